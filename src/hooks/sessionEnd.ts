import * as path from "node:path"
import { Effect } from "effect"
import { AppConfig } from "../services/AppConfig.js"
import { SessionBuffer } from "../services/SessionBuffer.js"
import { consolidateSession } from "../programs/consolidate.js"
import { withFileLock } from "../store/fileLock.js"
import { encodeSessionId } from "../store/paths.js"
import { claudeSessionId, type HookPayload } from "./payload.js"

/** A second session-end of a session waits this many times the lock's own timeout (a minute) for the first. */
const LOCK_ROUNDS = 10

/**
 * SessionEnd: consolidates the session's new messages into the graph (Stage 2 too when enabled), then
 * deletes its WAL: the buffer's entries now live in the graph. Returns how many nodes were created.
 * One session-end of a session at a time: a second one (a resumed session ending again, a double fire)
 * waits for the first, then finds only what is new, so Stage 2 never sees the same messages twice.
 */
export const sessionEndHook = Effect.fn("hookSessionEnd")(function* (payload: HookPayload) {
  const config = yield* AppConfig
  const buffer = yield* SessionBuffer
  const sessionId = claudeSessionId(payload)
  const lock = path.join(config.dataDir, "locks", `hook-session-end-${encodeSessionId(sessionId)}.lock`)
  return yield* withFileLock(
    lock,
    Effect.gen(function* () {
      const created = yield* consolidateSession(sessionId)
      yield* buffer.clear(sessionId)
      return created
    })
  ).pipe(Effect.retry({ times: LOCK_ROUNDS - 1, while: (e) => e._tag === "StorageError" && e.operation === "lock" && e.path === lock }))
})
