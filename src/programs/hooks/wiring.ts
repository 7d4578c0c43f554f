import { Effect } from "effect"
import type { AwhmConfigShape } from "../../domain/Config.js"
import { rawLogLayer, retrievalLayer } from "../../layers/Main.js"
import { AppConfig } from "../../services/AppConfig.js"
import type { HookPayload } from "./payload.js"
import { promptHook, type PromptHookOptions } from "./prompt.js"
import { stopHook } from "./stop.js"

// The live layers of the per-prompt hooks. Closing them flushes the session buffer's WAL.

/** The prompt hook on live stores; lexical mode swaps in the "none" embedder so no model is ever loaded. */
export const runPrompt = (config: AwhmConfigShape, payload: HookPayload, options: PromptHookOptions) =>
  promptHook(payload, options).pipe(
    Effect.provide(retrievalLayer(options.semantic ? config : { ...config, embedder: "none" }))
  )

/** The stop hook needs only the raw log. */
export const runStop = (config: AwhmConfigShape, payload: HookPayload) =>
  stopHook(payload).pipe(Effect.provide(rawLogLayer(config)), Effect.provideService(AppConfig, config))
