import * as path from "node:path"
import { Effect } from "effect"
import { truncateMessage } from "../domain/input.js"
import { withoutPrivate } from "../domain/privateSpans.js"
import { encodeSessionId } from "../store/paths.js"
import { withFileLock } from "../store/fileLock.js"
import { AppConfig } from "../services/AppConfig.js"
import { RawLog } from "../services/RawLog.js"
import { claudeSessionId, type HookPayload, payloadScope, scopeMetadata } from "./payload.js"
import { lastAssistantText } from "./transcript.js"

/**
 * Stop: logs the assistant's reply once. Claude Code can fire Stop twice for one reply; the second
 * fire sees an identical assistant message at the end of the log and does nothing. Returns whether
 * a message was logged.
 */
export const stopHook = Effect.fn("hookStop")(function* (payload: HookPayload) {
  // Without its private spans, so a second fire compares what was actually logged.
  const message = withoutPrivate(
    payload.lastAssistantMessage ??
    (payload.transcriptPath !== null ? lastAssistantText(payload.transcriptPath) : null) ??
    ""
  ).trim()
  if (message === "") return false
  const config = yield* AppConfig
  const content = truncateMessage(message, config.maxMessageChars)
  const rawLog = yield* RawLog
  const sessionId = claudeSessionId(payload)
  const scope = payloadScope(payload, config)
  // The check and the append are one step, so two concurrent fires cannot both log.
  const lock = path.join(config.dataDir, "locks", `hook-stop-${encodeSessionId(sessionId)}.lock`)
  return yield* withFileLock(
    lock,
    Effect.gen(function* () {
      const entries = yield* rawLog.read(sessionId)
      const last = entries[entries.length - 1]
      if (last !== undefined && last.role === "assistant" && last.content === content) return false
      yield* rawLog.append({ sessionId, role: "assistant", content, metadata: scopeMetadata(scope) })
      return true
    })
  )
})
