// A node as its SQLite row keeps it: the shared row JSON (nodeToRow) without what the row's own columns
// already hold (id, access_count, canonical_key, and created_at when it is the window start), without
// source_sessions when they are the sessions of source_refs in order, without embed_model when it is the
// database's row model (meta row_embed_model, migration 0006), and source refs as [session, index] pairs:
// less than two thirds of the shared JSON of a typical node. A row whose JSON has no "id" is such a row;
// older rows (with "id") read as they always did.
import type { MemoryNode } from "../../domain/Node.js"
import { windowStart } from "../../domain/validity.js"
import { nodeToRow } from "../../store/graphSerialization.js"

/** The columns of a nodes row that the JSON leaves out. */
export interface NodeColumns {
  readonly id: string
  readonly access_count: number
  readonly canonical_key: string | null
  readonly window_start: string
}

/** The sessions of source refs, each once, in the order they first appear. */
const refSessions = (refs: ReadonlyArray<{ readonly sessionId: string }>): Array<string> => [...new Set(refs.map((r) => r.sessionId))]

const sameStrings = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) => a.length === b.length && a.every((s, i) => s === b[i])

/** The `data` JSON of a node's row (the columns are written beside it from the same node). */
export const nodeRowData = (n: MemoryNode, rowModel: string | null): string => {
  const { id: _id, access_count: _count, canonical_key: _key, ...rest } = nodeToRow(n)
  if (n.embedModel === rowModel) delete rest.embed_model
  else rest.embed_model = n.embedModel
  if (n.createdAt === windowStart(n)) delete rest.created_at
  if (sameStrings(n.sourceSessions, refSessions(n.sourceRefs))) delete rest.source_sessions
  else rest.source_sessions = n.sourceSessions
  if (n.sourceRefs.length > 0) rest.source_refs = n.sourceRefs.map((r) => [r.sessionId, r.messageIndex])
  return JSON.stringify(rest)
}

const isPair = (r: unknown): r is [unknown, unknown] => Array.isArray(r) && r.length === 2

/** A row's parsed JSON with the fields its columns and the row model hold put back (what decodeRowNode reads). */
export const withRowColumns = (data: unknown, row: NodeColumns, rowModel: string | null): unknown => {
  if (typeof data !== "object" || data === null || Array.isArray(data) || "id" in data) return data
  const o = data as Record<string, unknown>
  o.id = row.id
  o.access_count = row.access_count
  o.canonical_key = row.canonical_key
  if (!("embed_model" in o)) o.embed_model = rowModel
  if (o.created_at === undefined) o.created_at = row.window_start
  if (Array.isArray(o.source_refs)) {
    const refs: Array<unknown> = o.source_refs
    o.source_refs = refs.map((r) => (isPair(r) ? { session_id: r[0], message_index: r[1] } : r))
    if (o.source_sessions === undefined) o.source_sessions = [...new Set(refs.map((r) => (isPair(r) ? r[0] : r)))]
  }
  return o
}
