import * as fs from "node:fs"
import { Effect, Layer } from "effect"
import type { AwhmConfigShape } from "../domain/Config.js"
import { configLayer, embedderLayer, graphStoreLayer, rawLogLayer, sessionBufferLayer } from "../layers/Main.js"
import { makeRetrieverLayer } from "../layers/RetrieverLive.js"
import type { HookPayload } from "./payload.js"
import { sessionStartHook } from "./sessionStart.js"
import { logPrompt, type PromptHookOptions, recallFor } from "./prompt.js"
import type { HookServices } from "./services.js"
import { stopHook } from "./stop.js"

// The live layers of the per-prompt hooks. Closing them flushes the session buffer's WAL.

/** The configuration recall runs with: lexical mode swaps in the "none" embedder, so no model is loaded. */
export const recallConfig = (config: AwhmConfigShape, semantic: boolean): AwhmConfigShape =>
  semantic ? config : { ...config, embedder: "none" }

/**
 * The prompt hook on live stores. The prompt is logged before the graph is even opened, so a damaged
 * graph or model costs the recall, never the message. The hook server lends a warm retriever; run on
 * its own, the hook opens the graph itself. `answer` gets the output as soon as it is known, before the
 * hook's stores close (the prompt is already in the raw log; closing writes the session buffer's WAL).
 */
export const runPrompt = (
  config: AwhmConfigShape,
  payload: HookPayload,
  options: PromptHookOptions,
  services?: HookServices,
  stderr: (text: string) => void = (text) => process.stderr.write(text),
  answer: (out: string | null) => void = () => {}
) => {
  const forRecall = recallConfig(config, options.semantic)
  const warn = (line: string) => stderr(line + "\n")
  const retriever = services
    ? services.retriever(forRecall, warn)
    : Effect.succeed(
        makeRetrieverLayer({ warn }).pipe(Layer.provide(Layer.merge(graphStoreLayer(config), embedderLayer(forRecall))))
      )
  return Effect.gen(function* () {
    const logged = yield* logPrompt(payload)
    const out = logged === null ? null : yield* recallFor(logged, options).pipe(Effect.provide(yield* retriever))
    answer(out)
    return out
  }).pipe(Effect.provide(Layer.mergeAll(rawLogLayer(config), sessionBufferLayer(config), configLayer(config))))
}

/** The stop hook needs only the raw log. */
export const runStop = (config: AwhmConfigShape, payload: HookPayload) =>
  stopHook(payload).pipe(Effect.provide(Layer.merge(rawLogLayer(config), configLayer(config))))

/** The session-start hook reads only the graph; with no data dir yet there is nothing to tell (and nothing is created). */
export const runSessionStart = (config: AwhmConfigShape, payload: HookPayload) =>
  fs.existsSync(config.dataDir)
    ? sessionStartHook(payload).pipe(Effect.provide(Layer.merge(graphStoreLayer(config), configLayer(config))))
    : Effect.succeed(null)
