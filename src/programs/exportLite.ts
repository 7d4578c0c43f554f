import * as path from "node:path"
import { Effect } from "effect"
import type { BufferEntry } from "../domain/BufferEntry.js"
import { ExportTargetError, storageFailure } from "../domain/errors.js"
import type { RawLogEntry } from "../domain/Message.js"
import { nowIso } from "../domain/time.js"
import { ExportTargetProblemError, writeLiteExport } from "../store/liteExport.js"
import { dataPaths } from "../store/paths.js"
import { readProgress, withConsolidationLock } from "../store/progress.js"
import { AppConfig } from "../services/AppConfig.js"
import { DeletionRecords } from "../services/DeletionRecords.js"
import { GraphStore } from "../services/GraphStore.js"
import { RawLog } from "../services/RawLog.js"
import { SessionBuffer } from "../services/SessionBuffer.js"

export interface ExportResult {
  readonly dir: string
  /** The files written, relative to `dir` (besides the deletion records). */
  readonly files: ReadonlyArray<string>
}

/**
 * Writes the whole memory as a data dir AWHM Lite opens (its JSON graph file, its log and WAL names, its
 * progress file) into `dir`, which must not exist or be empty. Graph, logs and progress are read together
 * under the consolidation lock, so they agree.
 */
export const exportLite = Effect.fn("exportLite")(function* (dir: string) {
  const config = yield* AppConfig
  const store = yield* GraphStore
  const rawLog = yield* RawLog
  const buffer = yield* SessionBuffer
  const paths = dataPaths(config.dataDir)
  const target = path.resolve(dir)
  yield* buffer.flush()
  const data = yield* withConsolidationLock(
    config.dataDir,
    Effect.gen(function* () {
      const graph = yield* store.load()
      const logs = new Map<string, ReadonlyArray<RawLogEntry>>()
      for (const { sessionId } of yield* rawLog.sessions) logs.set(sessionId, yield* rawLog.read(sessionId))
      const buffers = new Map<string, ReadonlyArray<BufferEntry>>()
      for (const sessionId of yield* buffer.sessionsWithWal) buffers.set(sessionId, yield* buffer.entries(sessionId))
      const progress = yield* readProgress(paths.progress, nowIso())
      const records = yield* (yield* DeletionRecords).lines
      const meta = [
        [path.basename(paths.tombstones), records.tombstones],
        [path.basename(paths.ledger), records.ledger]
      ] as const
      return { graph, logs, buffers, progress, meta }
    })
  )
  const files = yield* Effect.try({
    try: () => writeLiteExport(target, data),
    catch: (e) =>
      e instanceof ExportTargetProblemError
        ? new ExportTargetError({
            path: target,
            reason: e.problem,
            message:
              e.problem === "not_empty"
                ? `${target} already exists and is not an empty folder: export into a new or empty one`
                : `cannot write ${target} (${e.code}): choose a folder you can write`
          })
        : storageFailure("export", target)(e)
  })
  return { dir: target, files } satisfies ExportResult
})
