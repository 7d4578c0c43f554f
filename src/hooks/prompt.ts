import { Effect } from "effect"
import { truncateMessage } from "../domain/input.js"
import type { SourceRef } from "../domain/Message.js"
import { withoutPrivate } from "../domain/privateSpans.js"
import { AppConfig } from "../services/AppConfig.js"
import { RawLog } from "../services/RawLog.js"
import { Retriever } from "../services/Retriever.js"
import { SessionBuffer } from "../services/SessionBuffer.js"
import { noteUnsaved } from "../runtime/unsavedNotice.js"
import { isOnlyAsking } from "../text/questions.js"
import { formatContext, memoryLine, promptHookOutput, withoutEcho } from "./context.js"
import { claudeSessionId, type HookPayload, payloadScope, scopeMetadata } from "./payload.js"

export interface PromptHookOptions {
  /** How many memories to retrieve (default 5). */
  readonly k: number
  /** Also use embeddings (loads the model); lexical-only otherwise, which keeps the hook fast. */
  readonly semantic: boolean
}

/** A prompt as logged: what recall needs to know about it. */
export interface LoggedPrompt {
  readonly prompt: string
  readonly scope: string | null
  readonly ref: SourceRef
}

/**
 * Logs the prompt to the raw log and lets the session buffer see it; null when the prompt is empty. On a
 * full disk the prompt is not logged (said once on stderr) and recall still runs: the agent gets its
 * memories either way.
 */
export const logPrompt = Effect.fn("hookPrompt.log")(function* (payload: HookPayload) {
  const config = yield* AppConfig
  // Without its private spans (those are neither logged nor searched for), and an over-long prompt stored
  // cut, with a note: refusing it would lose it, and the agent must not wait.
  const prompt = truncateMessage(withoutPrivate(payload.prompt ?? "").trim(), config.maxMessageChars)
  if (prompt === "") return null
  const sessionId = claudeSessionId(payload)
  const scope = payloadScope(payload, config)
  const entry = yield* (yield* RawLog).append({ sessionId, role: "user", content: prompt, metadata: scopeMetadata(scope) }).pipe(
    Effect.catchIf(
      (e) => noteUnsaved("the prompt", e),
      () => Effect.succeed(null)
    )
  )
  if (entry === null) return { prompt, scope, ref: { sessionId, messageIndex: -1 } } satisfies LoggedPrompt
  yield* (yield* SessionBuffer).observe(entry)
  return { prompt, scope, ref: { sessionId, messageIndex: entry.index } } satisfies LoggedPrompt
})

/**
 * The memories relevant to a logged prompt, as Claude Code's UserPromptSubmit JSON, or null when there
 * is nothing to add. The prompt itself never comes back, nor do earlier questions and requests that carry
 * no fact (a question is not a memory); the context stays within hook_context_chars.
 */
export const recallFor = Effect.fn("hookPrompt.recall")(function* (logged: LoggedPrompt, options: PromptHookOptions) {
  const config = yield* AppConfig
  // Twice as many as wanted: the echoes and the earlier questions dropped below leave room for memories.
  const results = yield* (yield* Retriever).retrieve(logged.prompt, {
    k: options.k * 2,
    lexicalOnly: !options.semantic,
    sessionId: logged.ref.sessionId,
    scope: logged.scope,
    exclude: [logged.ref]
  })
  const memories = withoutEcho(results, logged.prompt, logged.ref).filter((r) => !isOnlyAsking(r.content))
  const context = formatContext(
    memories.slice(0, options.k).map(memoryLine),
    config.hookContextChars
  )
  return context === null ? null : promptHookOutput(context)
})

/** UserPromptSubmit: logs the prompt, then recalls what is relevant to it. */
export const promptHook = Effect.fn("hookPrompt")(function* (payload: HookPayload, options: PromptHookOptions) {
  const logged = yield* logPrompt(payload)
  return logged === null ? null : yield* recallFor(logged, options)
})
