import { Layer } from "effect"
import type { AwhmConfigShape } from "../domain/Config.js"
import { AppConfig } from "../services/AppConfig.js"
import { EmbedderMock } from "./EmbedderMock.js"
import { EmbedderNone } from "./EmbedderNone.js"
import { EmbedderTransformers } from "./EmbedderTransformers.js"
import { GraphStoreJson } from "./GraphStoreJson.js"
import { GraphStoreSqlite } from "./GraphStoreSqlite.js"
import { RawLogLive } from "./RawLogLive.js"
import { RetrieverLive } from "./RetrieverLive.js"
import { SessionBufferLive } from "./SessionBufferLive.js"
import { Stage2Anthropic } from "./Stage2Anthropic.js"
import { Stage2ClaudeCode } from "./Stage2ClaudeCode.js"

// The one place where live layers are chosen from configuration. Commands take only what they need.

export const configLayer = (config: AwhmConfigShape) => Layer.succeed(AppConfig, config)

export const embedderLayer = (config: AwhmConfigShape) =>
  config.embedder === "mock"
    ? EmbedderMock
    : config.embedder === "none"
      ? EmbedderNone
      : EmbedderTransformers({
          modelId: config.modelId,
          ...(config.modelDir !== null ? { modelDir: config.modelDir } : process.env.AWHM_MODEL_DIR ? { modelDir: process.env.AWHM_MODEL_DIR } : {})
        })

export const graphStoreLayer = (config: AwhmConfigShape) =>
  (config.storageBackend === "json" ? GraphStoreJson : GraphStoreSqlite).pipe(Layer.provide(configLayer(config)))

export const rawLogLayer = (config: AwhmConfigShape) => RawLogLive.pipe(Layer.provide(configLayer(config)))

export const sessionBufferLayer = (config: AwhmConfigShape) =>
  SessionBufferLive.pipe(Layer.provide(configLayer(config)))

export const stage2Layer = (config: AwhmConfigShape) =>
  (config.stage2Client === "anthropic" ? Stage2Anthropic : Stage2ClaudeCode).pipe(Layer.provide(configLayer(config)))

/** The stores: raw log, session buffer, graph. */
export const storesLayer = (config: AwhmConfigShape) =>
  Layer.mergeAll(rawLogLayer(config), sessionBufferLayer(config), graphStoreLayer(config))

/** Everything a query needs. */
export const retrievalLayer = (config: AwhmConfigShape) => {
  const base = Layer.mergeAll(storesLayer(config), embedderLayer(config), configLayer(config))
  return Layer.provideMerge(RetrieverLive, base)
}

/** Every live service. */
export const MainLive = (config: AwhmConfigShape) => Layer.merge(retrievalLayer(config), stage2Layer(config))
