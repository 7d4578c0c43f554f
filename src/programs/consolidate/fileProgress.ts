import { Effect } from "effect"
import { nowIso } from "../../domain/time.js"
import type { ConsolidationProgressShape } from "../../services/ConsolidationProgress.js"
import { readConsolidatedLogs, settledMark, writeConsolidatedLogs } from "../../store/consolidatedLogs.js"
import { dataPaths } from "../../store/paths.js"
import { readProgress, withConsolidationLock, writeProgress } from "../../store/progress.js"

/**
 * Progress in `<data-dir>/meta/consolidated_sessions.json`, committed under the consolidation lock; the
 * settled logs in `meta/consolidated_logs.json`.
 */
export const fileProgress = (dataDir: string): ConsolidationProgressShape => {
  const paths = dataPaths(dataDir)
  const read = Effect.suspend(() => readProgress(paths.progress, nowIso()))
  return {
    read,
    withLock: (f) =>
      withConsolidationLock(
        dataDir,
        Effect.gen(function* () {
          const [a, next] = yield* f(yield* read)
          if (next !== null) yield* writeProgress(paths.progress, next)
          return a
        })
      ),
    lock: (body) => withConsolidationLock(dataDir, body),
    replace: (progress) => writeProgress(paths.progress, progress),
    settled: Effect.sync(() => readConsolidatedLogs(paths.consolidatedLogs)),
    recordSettled: (settled, listing) =>
      withConsolidationLock(
        dataDir,
        Effect.gen(function* () {
          const progress = yield* read
          const had = readConsolidatedLogs(paths.consolidatedLogs)
          const marks = new Map(had.logs)
          for (const [sid, { stamp, index }] of settled) {
            if (progress.get(sid)?.lastMsgIndex === index) marks.set(sid, settledMark(stamp, index))
            else marks.delete(sid)
          }
          yield* Effect.try(() => writeConsolidatedLogs(paths.consolidatedLogs, marks, listing ?? had.listing))
        })
      ).pipe(Effect.catchAll(() => Effect.void))
  }
}
