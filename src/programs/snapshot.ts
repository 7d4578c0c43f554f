import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import type { BufferEntry } from "../domain/BufferEntry.js"
import { type CorruptFile, type StorageError, storageFailure } from "../domain/errors.js"
import {
  encodeSnapshot,
  listSnapshotFiles,
  readSnapshotFileSync,
  snapshotFileName,
  type SnapshotInfo,
  type SnapshotWalEntry,
  walEntriesBySession,
  writeNewFileSync
} from "../store/snapshotFile.js"
import { dataPaths } from "../store/paths.js"
import { canonicalIso } from "../store/graphSerialization.js"
import { progressOfGraph } from "../store/progress.js"
import { nowIso } from "../domain/time.js"
import { AppConfig } from "../services/AppConfig.js"
import { GraphStore } from "../services/GraphStore.js"
import { RawLog } from "../services/RawLog.js"
import { SessionBuffer } from "../services/SessionBuffer.js"
import { progressStore } from "./progressStore.js"

const asStorageError = (operation: string, file: string) => (e: unknown): StorageError | CorruptFile =>
  typeof e === "object" && e !== null && "_tag" in e && (e._tag === "StorageError" || e._tag === "CorruptFile")
    ? (e as StorageError | CorruptFile)
    : storageFailure(operation, file)(e)

/** The snapshot file itself: graph and consolidation progress read together, under the consolidation lock's cover. */
const writeSnapshot = Effect.gen(function* () {
  const config = yield* AppConfig
  const store = yield* GraphStore
  const buffer = yield* SessionBuffer
  const paths = dataPaths(config.dataDir)
  const graph = yield* store.load()
  // A damaged progress file must not stop a backup: the restore then goes by what the graph proves.
  const progress = yield* (yield* progressStore).read.pipe(Effect.catchTag("CorruptFile", () => Effect.succeed(null)))
  const walState: Array<BufferEntry> = []
  for (const sessionId of yield* buffer.sessionsWithWal) walState.push(...(yield* buffer.entries(sessionId)))
  const at = new Date()
  const createdAt = at.toISOString()
  const file = yield* Effect.try({
    try: () => writeNewFileSync(paths.snapshots, () => snapshotFileName(at), encodeSnapshot({ createdAt, graph, walState, progress })),
    catch: asStorageError("write a snapshot in", paths.snapshots)
  })
  return { path: file, createdAt } satisfies SnapshotInfo
})

/**
 * Writes the whole graph, how far consolidation had got, and every session's buffer (all WALs) to a new
 * snapshot file.
 */
export const createSnapshot = Effect.fn("createSnapshot")(function* () {
  // Entries this process holds but has not flushed yet belong in the snapshot too.
  yield* (yield* SessionBuffer).flush()
  return yield* (yield* progressStore).lock(writeSnapshot)
})

/** Every snapshot, newest first. */
export const listSnapshots = Effect.fn("listSnapshots")(function* () {
  const config = yield* AppConfig
  const dir = dataPaths(config.dataDir).snapshots
  return yield* Effect.try({ try: () => listSnapshotFiles(dir), catch: asStorageError("list", dir) })
})

export interface RestoreResult {
  readonly restored: string
  /** A snapshot of the state just before the restore (restore it to undo), or null if there was nothing to keep. */
  readonly backup: string | null
  /** Buffer entries of the snapshot without a session id that no session's raw log accounts for: not restored. */
  readonly skippedBufferEntries: number
}

/**
 * The session each of these entries came from, for the reference's snapshots (their buffer entries carry no
 * session): the one whose raw log has the entry's message (`source_msg`) at the entry's time, which the
 * reference copied from that message. No such session, or more than one: null.
 */
const ownersFromLogs = (entries: ReadonlyArray<SnapshotWalEntry>) =>
  Effect.gen(function* () {
    const rawLog = yield* RawLog
    const key = (index: number, timestamp: string) => `${index} ${canonicalIso(timestamp)}`
    const wanted = new Set(entries.map((e) => key(e.source_msg, e.timestamp)))
    const owners = new Map<string, Set<string>>()
    if (wanted.size > 0) {
      for (const { sessionId } of yield* rawLog.sessions) {
        for (const m of yield* rawLog.read(sessionId)) {
          const k = key(m.index, m.timestamp)
          if (wanted.has(k)) owners.set(k, (owners.get(k) ?? new Set()).add(sessionId))
        }
      }
    }
    return (e: SnapshotWalEntry): string | null => {
      const found = owners.get(key(e.source_msg, e.timestamp))
      return found?.size === 1 ? [...found][0]! : null
    }
  })

/** Reads a snapshot file (resolved against the working directory). */
export const readSnapshot = (file: string) => {
  const resolved = path.resolve(file)
  return Effect.try({ try: () => readSnapshotFileSync(resolved), catch: asStorageError("read", resolved) })
}

/**
 * Replaces the graph, the consolidation progress and the snapshot's session buffers with the snapshot's
 * (progress the snapshot did not record is what its graph proves). Undoable: the current state is
 * snapshotted first (`backup`). Sessions the snapshot does not mention keep their buffers (they come
 * from raw logs a restore does not touch). The reference's buffer entries go back to the sessions whose
 * messages they were taken from.
 */
export const restoreSnapshot = Effect.fn("restoreSnapshot")(function* (file: string, options?: { readonly backup?: boolean }) {
  const store = yield* GraphStore
  const buffer = yield* SessionBuffer
  const progress = yield* progressStore
  const snapshot = yield* readSnapshot(file)
  if (options?.backup !== false) yield* buffer.flush()
  // Graph and progress change together, so the next consolidate redoes exactly what the snapshot lacks.
  const backup = yield* progress.lock(
    Effect.gen(function* () {
      const backup = options?.backup === false ? null : (yield* writeSnapshot).path
      yield* store.replaceAll(snapshot.graph)
      yield* progress.replace(snapshot.progress ?? progressOfGraph(snapshot.graph, nowIso()))
      return backup
    })
  )
  const ownerOf = yield* ownersFromLogs(snapshot.walState.filter((e) => e.session_id === undefined))
  const { bySession, skipped } = walEntriesBySession(snapshot.walState, ownerOf)
  for (const [sessionId, entries] of bySession) yield* buffer.replace(sessionId, entries)
  return { restored: path.resolve(file), backup, skippedBufferEntries: skipped } satisfies RestoreResult
})

/**
 * Moves a damaged graph file (and SQLite's -wal/-shm beside it) out of the way, so a restore can start
 * from an empty store. Nothing is deleted: the returned path keeps the damaged data.
 */
export const setAsideDamagedGraph = (file: string) =>
  Effect.try({
    try: () => {
      const aside = `${file}.damaged-${new Date().toISOString().replace(/[:.]/g, "")}`
      fs.renameSync(file, aside)
      for (const suffix of ["-wal", "-shm"]) {
        if (fs.existsSync(file + suffix)) fs.renameSync(file + suffix, aside + suffix)
      }
      return aside
    },
    catch: asStorageError("move aside", file)
  })
