// Row shapes the SQL graph stores (SQLite, PostgreSQL) share.
import type { MemoryNode } from "../../domain/Node.js"

/**
 * `items` in slices of at most `size`: one multi-row statement per slice stays well below the bound-parameter
 * limits (SQLite 32766, PostgreSQL 65535).
 */
export const chunks = <A>(items: ReadonlyArray<A>, size = 500): Array<ReadonlyArray<A>> => {
  const out: Array<ReadonlyArray<A>> = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}

export type SourceRow = {
  readonly session_id: string
  readonly message_index: number
  readonly node_id: string
}

/** One node_sources row per source message; a session named without a message gets index -1. */
export const sourceRows = (n: MemoryNode): Array<SourceRow> => {
  const seen = new Set<string>()
  const rows: Array<SourceRow> = []
  const add = (sessionId: string, messageIndex: number) => {
    const key = `${messageIndex}:${sessionId}`
    if (seen.has(key)) return
    seen.add(key)
    rows.push({ session_id: sessionId, message_index: messageIndex, node_id: n.id })
  }
  for (const r of n.sourceRefs) add(r.sessionId, r.messageIndex)
  const refSessions = new Set(n.sourceRefs.map((r) => r.sessionId))
  for (const s of n.sourceSessions) if (!refSessions.has(s)) add(s, -1)
  return rows
}

/** A vector as the bytes of its float32 values (a view, no copy). */
export const vectorBytes = (v: Float32Array): Buffer => Buffer.from(v.buffer, v.byteOffset, v.byteLength)
