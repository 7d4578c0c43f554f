import { Effect, Layer } from "effect"
import type { AwhmConfigShape } from "../../domain/Config.js"
import { configLayer, embedderLayer, graphStoreLayer, rawLogLayer, sessionBufferLayer } from "../../layers/Main.js"
import { RetrieverLive } from "../../layers/RetrieverLive.js"
import type { HookPayload } from "./payload.js"
import { logPrompt, type PromptHookOptions, recallFor } from "./prompt.js"
import { stopHook } from "./stop.js"

// The live layers of the per-prompt hooks. Closing them flushes the session buffer's WAL.

/**
 * The prompt hook on live stores. The prompt is logged before the graph is even opened, so a damaged
 * graph or model costs the recall, never the message. Lexical mode swaps in the "none" embedder: no
 * model is ever loaded.
 */
export const runPrompt = (config: AwhmConfigShape, payload: HookPayload, options: PromptHookOptions) => {
  const recallConfig: AwhmConfigShape = options.semantic ? config : { ...config, embedder: "none" }
  const retriever = RetrieverLive.pipe(Layer.provide(Layer.merge(graphStoreLayer(config), embedderLayer(recallConfig))))
  return Effect.gen(function* () {
    const logged = yield* logPrompt(payload)
    if (logged === null) return null
    return yield* recallFor(logged, options).pipe(Effect.provide(retriever))
  }).pipe(Effect.provide(Layer.mergeAll(rawLogLayer(config), sessionBufferLayer(config), configLayer(config))))
}

/** The stop hook needs only the raw log. */
export const runStop = (config: AwhmConfigShape, payload: HookPayload) =>
  stopHook(payload).pipe(Effect.provide(Layer.merge(rawLogLayer(config), configLayer(config))))
