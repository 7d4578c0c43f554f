import { Effect } from "effect"
import { AppConfig } from "../../services/AppConfig.js"
import { RawLog } from "../../services/RawLog.js"
import { Retriever } from "../../services/Retriever.js"
import { SessionBuffer } from "../../services/SessionBuffer.js"
import { formatContext, promptHookOutput, withoutEcho } from "./context.js"
import { claudeSessionId, type HookPayload, payloadScope, scopeMetadata } from "./payload.js"

export interface PromptHookOptions {
  /** How many memories to retrieve (default 5). */
  readonly k: number
  /** Also use embeddings (loads the model); lexical-only otherwise, which keeps the hook fast. */
  readonly semantic: boolean
}

/**
 * UserPromptSubmit: logs the prompt (raw log + session buffer), then returns Claude Code's JSON with
 * the most relevant memories as additionalContext, or null when there is nothing to add.
 */
export const promptHook = Effect.fn("hookPrompt")(function* (payload: HookPayload, options: PromptHookOptions) {
  const prompt = payload.prompt?.trim() ?? ""
  if (prompt === "") return null
  const config = yield* AppConfig
  const rawLog = yield* RawLog
  const buffer = yield* SessionBuffer
  const retriever = yield* Retriever
  const sessionId = claudeSessionId(payload)
  const scope = payloadScope(payload, config)
  const entry = yield* rawLog.append({ sessionId, role: "user", content: prompt, metadata: scopeMetadata(scope) })
  yield* buffer.observe(entry)
  const own = { sessionId, messageIndex: entry.index }
  const results = yield* retriever.retrieve(prompt, {
    k: options.k,
    lexicalOnly: !options.semantic,
    sessionId,
    scope,
    exclude: [own]
  })
  const context = formatContext(
    withoutEcho(results, prompt, own).map((r) => r.content),
    config.hookContextChars
  )
  return context === null ? null : promptHookOutput(context)
})
