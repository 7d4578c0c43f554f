import { Effect } from "effect"
import { SessionBuffer } from "../services/SessionBuffer.js"
import { consolidateSession } from "../programs/consolidate.js"
import { claudeSessionId, type HookPayload } from "./payload.js"

/**
 * SessionEnd: consolidates the session's new messages into the graph (Stage 2 too when enabled), then
 * deletes its WAL: the buffer's entries now live in the graph. Returns how many nodes were created.
 */
export const sessionEndHook = Effect.fn("hookSessionEnd")(function* (payload: HookPayload) {
  const sessionId = claudeSessionId(payload)
  const created = yield* consolidateSession(sessionId)
  yield* (yield* SessionBuffer).clear(sessionId)
  return created
})
