import { Effect } from "effect"
import type { Role } from "../domain/Message.js"
import { RawLog } from "../services/RawLog.js"
import { SessionBuffer } from "../services/SessionBuffer.js"

/** Appends one message to its session's raw log, then lets the session buffer see it. */
export const logMessage = Effect.fn("logMessage")(function* (input: {
  readonly sessionId: string
  readonly role: Role
  readonly content: string
  readonly timestamp?: string
}) {
  const rawLog = yield* RawLog
  const buffer = yield* SessionBuffer
  const entry = yield* rawLog.append(input)
  const caught = yield* buffer.observe(entry)
  const bufferEntries = (yield* buffer.entries(entry.session_id)).length
  return { entry, caught, bufferEntries }
})
