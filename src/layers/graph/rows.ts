// Row shapes the SQL graph stores (SQLite, PostgreSQL) share.
import type { MemoryNode } from "../../domain/Node.js"
import type { GraphChanges } from "../../services/GraphStore.js"
import { decodeVector, encodeVector, storedVector } from "../../store/compactVector.js"

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

/** A node's embedding as its row stores it (int8 with a scale: src/store/compactVector.ts). */
export const vectorBytes = (v: Float32Array): Buffer => encodeVector(v)

/** The embedding a row holds (`embed_dim` dimensions, compact or older float32 bytes), or null; into `out` when given. */
export const rowVector = (bytes: unknown, dim: unknown, out?: Float32Array): Float32Array | null =>
  bytes instanceof Uint8Array && typeof dim === "number" ? decodeVector(bytes, dim, out) : null

/**
 * The embeddings of many rows (as rowVector), decoded into one shared array: one allocation instead of one
 * typed array per row (which cost more than the decoding at 100k rows).
 */
export const rowVectors = (rows: ReadonlyArray<{ readonly embedding: unknown; readonly embed_dim: unknown }>): Array<Float32Array | null> => {
  let total = 0
  for (const r of rows) if (typeof r.embed_dim === "number" && r.embed_dim > 0) total += r.embed_dim
  const all = new Float32Array(total)
  let at = 0
  return rows.map((r) => {
    const dim = r.embed_dim
    if (typeof dim !== "number" || dim <= 0 || !Number.isInteger(dim)) return rowVector(r.embedding, dim)
    const v = rowVector(r.embedding, dim, all.subarray(at, at + dim))
    if (v !== null) at += dim
    return v
  })
}

/**
 * The changes with each upserted node's embedding as it reads back from a row: a process's cached graph
 * then holds the vectors any other process reads.
 */
export const asStored = (changes: GraphChanges): GraphChanges =>
  changes.upsertNodes === undefined || changes.upsertNodes.length === 0
    ? changes
    : {
        ...changes,
        upsertNodes: changes.upsertNodes.map((n) => (n.embedding === null ? n : { ...n, embedding: storedVector(n.embedding) }))
      }
