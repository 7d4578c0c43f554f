import * as path from "node:path"
import { Effect } from "effect"
import { nowIso } from "../../domain/time.js"
import type { ConsolidationProgressShape } from "../../services/ConsolidationProgress.js"
import { withFileLock } from "../../store/fileLock.js"
import { dataPaths } from "../../store/paths.js"
import { readProgress, writeProgress } from "../../store/progress.js"

// The lock file is taken synchronously: fibers of one process (the MCP server) queue here first.
const inProcess = Effect.unsafeMakeSemaphore(1)

/** Progress in `<data-dir>/meta/consolidated_sessions.json`, committed under `locks/consolidation.lock`. */
export const fileProgress = (dataDir: string): ConsolidationProgressShape => {
  const paths = dataPaths(dataDir)
  const lock = path.join(paths.locks, "consolidation.lock")
  const read = Effect.suspend(() => readProgress(paths.progress, nowIso()))
  return {
    read,
    withLock: (f) =>
      inProcess.withPermits(1)(
        withFileLock(
          lock,
          Effect.gen(function* () {
            const [a, next] = yield* f(yield* read)
            if (next !== null) yield* writeProgress(paths.progress, next)
            return a
          })
        )
      )
  }
}
