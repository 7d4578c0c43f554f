import { Effect, Layer } from "effect"
import type { AwhmConfigShape } from "../domain/Config.js"
import { configLayer, embedderLayer, stage2Layer, storesLayer } from "../layers/Main.js"
import type { HookPayload } from "./payload.js"
import { sessionEndHook } from "./sessionEnd.js"

// Kept apart from the per-prompt wiring: consolidation's code (NER, dates, Stage 2) loads only here.

/** The session-end hook on live stores, the configured embedder and Stage 2 client. */
export const runSessionEnd = (config: AwhmConfigShape, payload: HookPayload) =>
  sessionEndHook(payload).pipe(
    Effect.provide(
      Layer.mergeAll(storesLayer(config), embedderLayer(config), stage2Layer(config), configLayer(config))
    )
  )
