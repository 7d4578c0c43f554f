import { Effect } from "effect"
import type { Progress } from "../../domain/Progress.js"
import type { Listing, SettledLogs } from "../../services/ConsolidationProgress.js"
import { RawLog, type SessionInfo } from "../../services/RawLog.js"
import { settledIndex } from "../../store/consolidatedLogs.js"

// Which sessions a full consolidation run looks at. After a full run every log it listed was settled, so the
// next run needs only the sessions the raw log's change journal names since that run began, and those whose
// progress no longer holds the index their settled mark was recorded at (a restore, a progress file moved
// aside). Every log is listed again when the journal cannot say (a log created, removed or renamed by
// another program, a journal replaced), and at least every LIST_EVERY_MS: a log another program appended to
// in place is consolidated by then.
export const LIST_EVERY_MS = 60 * 60_000

/** The sessions to check, oldest modification first, and the listing to record when the run has finished. */
export const sessionsToCheck = (progress: Progress, settled: SettledLogs) =>
  Effect.gen(function* () {
    const rawLog = yield* RawLog
    // Taken before any log is looked at: a change made during the run is named to the next one.
    const changes = yield* rawLog.changesSince(settled.listing?.mark ?? null)
    const now = Date.now()
    const since = settled.listing === null ? -1 : now - settled.listing.listedAt
    if (changes.sessions === null || !(since >= 0 && since <= LIST_EVERY_MS)) {
      return { sessions: yield* rawLog.sessions, listing: { mark: changes.mark, listedAt: now } satisfies Listing }
    }
    const ids = new Set(changes.sessions)
    for (const [sid, mark] of settled.logs) if (progress.get(sid)?.lastMsgIndex !== settledIndex(mark)) ids.add(sid)
    const found = (yield* Effect.forEach([...ids], rawLog.session)).filter((s): s is SessionInfo => s !== null)
    found.sort((a, b) => a.mtimeMs - b.mtimeMs || (a.sessionId < b.sessionId ? -1 : 1))
    return { sessions: found, listing: { mark: changes.mark, listedAt: settled.listing!.listedAt } satisfies Listing }
  })
