import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { Either, Schema } from "effect"
import { type BufferEntry, BufferEntryType } from "../domain/BufferEntry.js"
import { CorruptFile, StorageError } from "../domain/errors.js"
import type { Graph, MemoryNode } from "../domain/Node.js"
import { atomicWriteFileSync, writeSyncedTempSync } from "./atomicWrite.js"
import { canonicalIso, decodeGraph, graphToStored } from "./graphSerialization.js"
import { parseProgress, type Progress, renderProgress } from "./progress.js"

// Snapshot files: `{"version":"2.0","created_at","graph":{"nodes","edges"},"wal_state":[buffer entries]}`,
// the reference's format; wal_state entries also carry `session_id` (all sessions with a WAL are saved), and
// `consolidation_progress` (as meta/consolidated_sessions.json) records how far consolidation had got.

/** A buffer entry in a snapshot; the reference's entries have no session id. */
const SnapshotWalEntry = Schema.Struct({
  type: BufferEntryType,
  content: Schema.String,
  timestamp: Schema.String,
  source_msg: Schema.Int,
  session_id: Schema.optional(Schema.String)
})
export type SnapshotWalEntry = typeof SnapshotWalEntry.Type
const decodeWalState = Schema.decodeUnknownEither(Schema.Array(SnapshotWalEntry))

export interface Snapshot {
  readonly createdAt: string
  readonly graph: Graph
  readonly walState: ReadonlyArray<SnapshotWalEntry>
  /** Consolidation progress taken with the graph (null in the reference's snapshots and older ones). */
  readonly progress?: Progress | null
}

export interface SnapshotInfo {
  readonly path: string
  readonly createdAt: string
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0")
let counter = 0

/**
 * `snapshot_YYYYMMDD_HHMMSS_mmm_<counter><random>.json` (UTC): sorts by time like the reference's
 * `snapshot_YYYYMMDD_HHMMSS.json`, and two snapshots in one millisecond still get different names.
 */
export const snapshotFileName = (at: Date): string => {
  const stamp =
    `${at.getUTCFullYear()}${pad(at.getUTCMonth() + 1)}${pad(at.getUTCDate())}_` +
    `${pad(at.getUTCHours())}${pad(at.getUTCMinutes())}${pad(at.getUTCSeconds())}_${pad(at.getUTCMilliseconds(), 3)}`
  counter = (counter + 1) % 10_000
  return `snapshot_${stamp}_${pad(counter, 4)}${randomBytes(3).toString("hex")}.json`
}

const NAME_TIME = /^snapshot_(\d{4})(\d{2})(\d{2})_(\d{2})(\d{2})(\d{2})(?:_(\d{3}))?(?:_[0-9a-z]+)?\.json$/

/** The creation time encoded in a snapshot's name (ours or the reference's), or null. */
export const createdAtFromName = (name: string): string | null => {
  const m = NAME_TIME.exec(name)
  if (m === null) return null
  const [, y, mo, d, h, mi, s, ms] = m
  const iso = `${y}-${mo}-${d}T${h}:${mi}:${s}.${ms ?? "000"}Z`
  return Number.isNaN(Date.parse(iso)) ? null : iso
}

/** Every snapshot in the folder, newest first. */
export const listSnapshotFiles = (dir: string): Array<SnapshotInfo> => {
  let names: Array<string>
  try {
    names = fs.readdirSync(dir)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return []
    throw new StorageError({ operation: "list", path: dir, message: `cannot list ${dir}: ${(e as Error).message}` })
  }
  const out: Array<SnapshotInfo & { readonly name: string }> = []
  for (const name of names) {
    if (!name.startsWith("snapshot_") || !name.endsWith(".json")) continue
    const file = path.join(dir, name)
    let createdAt = createdAtFromName(name)
    if (createdAt === null) {
      try {
        createdAt = new Date(fs.statSync(file).mtimeMs).toISOString()
      } catch {
        continue
      }
    }
    out.push({ path: file, createdAt, name })
  }
  out.sort((a, b) => (a.createdAt !== b.createdAt ? (a.createdAt < b.createdAt ? 1 : -1) : a.name < b.name ? 1 : -1))
  return out.map(({ path, createdAt }) => ({ path, createdAt }))
}

export const encodeSnapshot = (snapshot: Snapshot): string =>
  JSON.stringify({
    version: "2.0",
    created_at: snapshot.createdAt,
    graph: graphToStored(snapshot.graph),
    wal_state: snapshot.walState,
    ...(snapshot.progress != null ? { consolidation_progress: JSON.parse(renderProgress(snapshot.progress)) as unknown } : {})
  })

/** Reads a snapshot file. Missing: StorageError; damaged: CorruptFile naming it (never its content). */
export const readSnapshotFileSync = (file: string): Snapshot => {
  let text: string
  try {
    text = fs.readFileSync(file, "utf8")
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    throw new StorageError({
      operation: "read",
      path: file,
      message: code === "ENOENT" ? `snapshot ${file} not found` : `cannot read snapshot ${file} (${code ?? "error"})`
    })
  }
  const damaged = (reason: string) => new CorruptFile({ path: file, message: `snapshot ${file} is damaged (${reason})` })
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw damaged("not valid JSON, maybe truncated")
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw damaged("not a snapshot object")
  const obj = parsed as Record<string, unknown>
  if (typeof obj.graph !== "object" || obj.graph === null) throw damaged("no graph in it")
  const graph = decodeGraph(obj.graph)
  if (Either.isLeft(graph)) throw damaged(graph.left)
  const wal = decodeWalState(obj.wal_state ?? [])
  if (Either.isLeft(wal)) throw damaged("bad wal_state")
  let progress: Progress | null = null
  if (obj.consolidation_progress !== undefined) {
    const parsed = parseProgress(JSON.stringify(obj.consolidation_progress), new Date().toISOString())
    if (Either.isLeft(parsed)) throw damaged("bad consolidation_progress")
    progress = parsed.right
  }
  return {
    createdAt: typeof obj.created_at === "string" ? canonicalIso(obj.created_at) : "",
    graph: graph.right,
    walState: wal.right,
    progress
  }
}

/**
 * Writes `data` to a new file `dir/<name()>` that did not exist before: temp file, fsync, then a hard
 * link (which fails instead of overwriting), so no snapshot ever replaces another. Returns the path.
 */
export const writeNewFileSync = (dir: string, name: () => string, data: string): string => {
  const tmp = writeSyncedTempSync(dir, "snapshot", data)
  try {
    for (;;) {
      const file = path.join(dir, name())
      try {
        fs.linkSync(tmp, file)
        return file
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e
      }
    }
  } finally {
    fs.rmSync(tmp, { force: true })
  }
}

/**
 * Buffer entries of a snapshot as live entries. An entry without a session (the reference's files) goes
 * to the session `ownerOf` names for it; entries it cannot place are skipped and counted.
 */
export const walEntriesBySession = (walState: ReadonlyArray<SnapshotWalEntry>, ownerOf: (entry: SnapshotWalEntry) => string | null = () => null) => {
  const bySession = new Map<string, Array<BufferEntry>>()
  let skipped = 0
  for (const e of walState) {
    const sessionId = e.session_id ?? ownerOf(e)
    if (sessionId === null) {
      skipped++
      continue
    }
    const list = bySession.get(sessionId) ?? []
    list.push({ type: e.type, content: e.content, timestamp: e.timestamp, source_msg: e.source_msg, session_id: sessionId })
    bySession.set(sessionId, list)
  }
  return { bySession, skipped }
}

export type ScrubOutcome = "touched" | "clean" | "damaged"

/**
 * Removes matching nodes (and the edges that touch them) and matching buffer entries from one snapshot,
 * rewriting it atomically only if something matched. A damaged file is reported, not changed.
 */
export const scrubSnapshotFileSync = (
  file: string,
  nodeMatches: (node: MemoryNode) => boolean,
  entryMatches: (entry: SnapshotWalEntry) => boolean
): ScrubOutcome => {
  let snapshot: Snapshot
  try {
    snapshot = readSnapshotFileSync(file)
  } catch (e) {
    if (e instanceof CorruptFile) return "damaged"
    throw e
  }
  const removed = new Set<string>()
  for (const n of snapshot.graph.nodes.values()) if (nodeMatches(n)) removed.add(n.id)
  const walState = snapshot.walState.filter((e) => !entryMatches(e))
  if (removed.size === 0 && walState.length === snapshot.walState.length) return "clean"
  const nodes = new Map(Array.from(snapshot.graph.nodes).filter(([id]) => !removed.has(id)))
  const edges = snapshot.graph.edges.filter((e) => !removed.has(e.source) && !removed.has(e.target))
  atomicWriteFileSync(file, encodeSnapshot({ ...snapshot, graph: { nodes, edges }, walState }))
  return "touched"
}
