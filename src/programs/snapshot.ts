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
  walEntriesBySession,
  writeNewFileSync
} from "../store/snapshotFile.js"
import { dataPaths } from "../store/paths.js"
import { AppConfig } from "../services/AppConfig.js"
import { GraphStore } from "../services/GraphStore.js"
import { SessionBuffer } from "../services/SessionBuffer.js"

const asStorageError = (operation: string, file: string) => (e: unknown): StorageError | CorruptFile =>
  typeof e === "object" && e !== null && "_tag" in e && (e._tag === "StorageError" || e._tag === "CorruptFile")
    ? (e as StorageError | CorruptFile)
    : storageFailure(operation, file)(e)

/** Writes the whole graph and every session's buffer (all WALs) to a new snapshot file. */
export const createSnapshot = Effect.fn("createSnapshot")(function* () {
  const config = yield* AppConfig
  const store = yield* GraphStore
  const buffer = yield* SessionBuffer
  // Entries this process holds but has not flushed yet belong in the snapshot too.
  yield* buffer.flush()
  const graph = yield* store.load()
  const walState: Array<BufferEntry> = []
  for (const sessionId of yield* buffer.sessionsWithWal) walState.push(...(yield* buffer.entries(sessionId)))
  const at = new Date()
  const createdAt = at.toISOString()
  const dir = dataPaths(config.dataDir).snapshots
  const file = yield* Effect.try({
    try: () => writeNewFileSync(dir, () => snapshotFileName(at), encodeSnapshot({ createdAt, graph, walState })),
    catch: asStorageError("write a snapshot in", dir)
  })
  return { path: file, createdAt } satisfies SnapshotInfo
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
  /** Buffer entries of the snapshot without a session id (the reference's format): not restored. */
  readonly skippedBufferEntries: number
}

/** Reads a snapshot file (resolved against the working directory). */
export const readSnapshot = (file: string) => {
  const resolved = path.resolve(file)
  return Effect.try({ try: () => readSnapshotFileSync(resolved), catch: asStorageError("read", resolved) })
}

/**
 * Replaces the graph and the snapshot's session buffers with the snapshot's. Undoable: the current state
 * is snapshotted first (`backup`). Sessions the snapshot does not mention keep their buffers (they come
 * from raw logs a restore does not touch).
 */
export const restoreSnapshot = Effect.fn("restoreSnapshot")(function* (file: string, options?: { readonly backup?: boolean }) {
  const store = yield* GraphStore
  const buffer = yield* SessionBuffer
  const snapshot = yield* readSnapshot(file)
  const backup = options?.backup === false ? null : (yield* createSnapshot()).path
  yield* store.replaceAll(snapshot.graph)
  const { bySession, skipped } = walEntriesBySession(snapshot.walState)
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
