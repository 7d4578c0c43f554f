import * as fs from "node:fs"
import * as path from "node:path"
import { readFileNoFollow } from "./noFollow.js"
import { Effect, Either, Schema } from "effect"
import { CorruptFile, StorageError } from "../domain/errors.js"
import type { Graph } from "../domain/Node.js"
import type { Progress, SessionProgress } from "../domain/Progress.js"
import { atomicWriteFileSync } from "./atomicWrite.js"
import { withFileLock } from "./fileLock.js"
import { dataPaths } from "./paths.js"

// Consolidation progress per session: `meta/consolidated_sessions.json` in the reference's v2 format
// `{"version":2,"sessions":{sid:{"last_msg_index":n,"updated_at":iso}}}`; v1 files are migrated on read.

export type { Progress, SessionProgress } from "../domain/Progress.js"

const V2 = Schema.Struct({
  version: Schema.Literal(2),
  sessions: Schema.Record({
    key: Schema.String,
    value: Schema.Struct({ last_msg_index: Schema.Int, updated_at: Schema.String })
  })
})
/** v1: the sessions consolidated so far, in full. */
const V1List = Schema.Struct({ sessions: Schema.Array(Schema.String) })
/** v1: session → last consolidated message index. */
const V1Map = Schema.Record({ key: Schema.String, value: Schema.Int })
const ProgressFile = Schema.Union(V2, V1List, V1Map)
const decode = Schema.decodeUnknownEither(ProgressFile)

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x)

/**
 * The v2 form read directly (what V2 accepts, in one pass: a schema decode of every entry costs ~100 ms per
 * 5,000 sessions, and a run reads the file twice); null when it is not v2 in that shape.
 */
const readV2 = (json: unknown): Progress | null => {
  if (!isRecord(json) || json["version"] !== 2 || !isRecord(json["sessions"])) return null
  const out = new Map<string, SessionProgress>()
  for (const [sid, p] of Object.entries(json["sessions"])) {
    if (!isRecord(p) || !Number.isSafeInteger(p["last_msg_index"]) || typeof p["updated_at"] !== "string") return null
    out.set(sid, { lastMsgIndex: p["last_msg_index"] as number, updatedAt: p["updated_at"] })
  }
  return out
}

/** Parses a progress file's text (any version) into the in-memory form. */
export const parseProgress = (text: string, migratedAt: string): Either.Either<Progress, string> => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return Either.left("not valid JSON")
  }
  const v2 = readV2(json)
  if (v2 !== null) return Either.right(v2)
  const decoded = decode(json)
  if (Either.isLeft(decoded)) return Either.left("not a consolidation progress file")
  const value = decoded.right
  const out = new Map<string, SessionProgress>()
  if ("version" in value && value.version === 2 && typeof value.sessions === "object" && !Array.isArray(value.sessions)) {
    for (const [sid, p] of Object.entries(value.sessions)) out.set(sid, { lastMsgIndex: p.last_msg_index, updatedAt: p.updated_at })
  } else if ("sessions" in value && Array.isArray(value.sessions)) {
    for (const sid of value.sessions as ReadonlyArray<string>) out.set(sid, { lastMsgIndex: null, updatedAt: migratedAt })
  } else {
    for (const [sid, n] of Object.entries(value as Record<string, number>)) out.set(sid, { lastMsgIndex: n, updatedAt: migratedAt })
  }
  return Either.right(out)
}

/** The v2 text of a progress map (sessions sorted, so the file diffs cleanly). */
export const renderProgress = (progress: Progress): string => {
  const sessions: Record<string, { last_msg_index: number; updated_at: string }> = {}
  for (const sid of [...progress.keys()].sort()) {
    const p = progress.get(sid)!
    if (p.lastMsgIndex !== null) sessions[sid] = { last_msg_index: p.lastMsgIndex, updated_at: p.updatedAt }
  }
  return JSON.stringify({ version: 2, sessions }, null, 2) + "\n"
}

/**
 * The progress a graph proves (for snapshots that did not record theirs): per session, the last message a
 * node was made from. Later messages are consolidated again; what they repeat is merged as duplicates.
 */
export const progressOfGraph = (graph: Graph, now: string): Progress => {
  const out = new Map<string, SessionProgress>()
  for (const node of graph.nodes.values()) {
    for (const ref of node.sourceRefs) {
      const had = out.get(ref.sessionId)?.lastMsgIndex ?? -1
      if (ref.messageIndex > had) out.set(ref.sessionId, { lastMsgIndex: ref.messageIndex, updatedAt: now })
    }
  }
  return out
}

// The progress last read or written per file, under the file's stamp: a run reads it at its start, again
// under the lock for each commit and once more to record settled logs, and at 50,000 sessions each parse
// costs ~100 ms. A file replaced or changed (any writer) has another stamp and is read again.
const lastSeen = new Map<string, { readonly stamp: string; readonly progress: Progress }>()

const stampOf = (file: string): string | null => {
  const st = fs.lstatSync(file, { bigint: true, throwIfNoEntry: false })
  return st === undefined || !st.isFile() ? null : `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`
}

/** Reads the progress file; a missing file is empty progress, a damaged one is CorruptFile. */
export const readProgress = (file: string, now: string): Effect.Effect<Progress, StorageError | CorruptFile> =>
  Effect.gen(function* () {
    const cannot = (e: unknown) =>
      new StorageError({ operation: "read consolidation progress", path: file, message: `cannot read ${file}: ${(e as Error).message}` })
    const stamp = yield* Effect.try({ try: () => stampOf(file), catch: cannot })
    const seen = lastSeen.get(file)
    if (stamp !== null && seen?.stamp === stamp) return seen.progress
    const text = yield* Effect.try({
      try: () => (fs.existsSync(file) ? readFileNoFollow(file).toString("utf8") : null),
      catch: cannot
    })
    if (text === null) return new Map<string, SessionProgress>()
    const parsed = parseProgress(text, now)
    if (Either.isLeft(parsed)) {
      return yield* new CorruptFile({
        path: file,
        message: `${file} is ${parsed.left}; move it aside to re-consolidate every session (duplicates are merged)`
      })
    }
    // Kept only if the file did not change while it was read (a v1 file's entries keep this read's time).
    if (stamp !== null && stampOf(file) === stamp) lastSeen.set(file, { stamp, progress: parsed.right })
    return parsed.right
  })

/** Replaces the progress file atomically. */
export const writeProgress = (file: string, progress: Progress): Effect.Effect<void, StorageError> =>
  Effect.try({
    try: () => {
      lastSeen.delete(file)
      atomicWriteFileSync(file, renderProgress(progress))
      const stamp = stampOf(file)
      // As a read of the file would give it back (entries without an index are not written).
      const written = new Map([...progress].filter(([, p]) => p.lastMsgIndex !== null))
      if (stamp !== null) lastSeen.set(file, { stamp, progress: written })
    },
    catch: (e) => new StorageError({ operation: "write consolidation progress", path: file, message: `cannot write ${file}: ${(e as Error).message}` })
  })

// The lock file is taken synchronously: fibers of one process (the MCP server) queue here first.
const inProcess = Effect.unsafeMakeSemaphore(1)

/**
 * Runs `body` holding the consolidation lock, which covers the graph and the progress file together: a
 * consolidation commit, a snapshot's read of both, a restore's replacement of both.
 */
export const withConsolidationLock = <A, E, R>(dataDir: string, body: Effect.Effect<A, E, R>) =>
  inProcess.withPermits(1)(withFileLock(path.join(dataPaths(dataDir).locks, "consolidation.lock"), body))
