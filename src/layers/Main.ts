import { Effect, Layer } from "effect"
import type { AwhmConfigShape } from "../domain/Config.js"
import { AppConfig } from "../services/AppConfig.js"
import type { ConfigurationError, StorageError } from "../domain/errors.js"
import type { ConsolidationProgress } from "../services/ConsolidationProgress.js"
import type { DeletionRecords } from "../services/DeletionRecords.js"
import type { Embedder } from "../services/Embedder.js"
import type { GraphStore } from "../services/GraphStore.js"
import type { RawLog } from "../services/RawLog.js"
import type { Retriever } from "../services/Retriever.js"
import type { SessionBuffer } from "../services/SessionBuffer.js"
import type { Stage2Client } from "../services/Stage2Client.js"
import type { UnusedGraphFile } from "../services/UnusedGraphFile.js"
import { DeletionRecordsFile } from "./DeletionRecordsFile.js"
import { EmbedderMock } from "./EmbedderMock.js"
import { EmbedderNone } from "./EmbedderNone.js"
import { EmbedderTransformers } from "./EmbedderTransformers.js"
import { GraphStoreJson } from "./GraphStoreJson.js"
import { GraphStoreSqlite } from "./GraphStoreSqlite.js"
import type { PostgresDatabase } from "./postgres/PostgresDatabase.js"
import { RawLogLive } from "./RawLogLive.js"
import { RetrieverLive } from "./RetrieverLive.js"
import { SessionBufferLive } from "./SessionBufferLive.js"
import { UnusedGraphFileLive, UnusedGraphFileNone } from "./graph/UnusedGraphFileLive.js"
import { locateModel } from "./modelLocation.js"

// The one place where live layers are chosen from configuration. Commands take only what they need.

export const configLayer = (config: AwhmConfigShape) => Layer.succeed(AppConfig, config)

export const embedderLayer = (config: AwhmConfigShape) =>
  config.embedder === "mock"
    ? EmbedderMock
    : config.embedder === "none"
      ? EmbedderNone
      : EmbedderTransformers({ modelId: config.modelId, ...modelDirOf(config) })

/** The local model folder the live embedder loads: configured, the data dir's, or the package's. */
const modelDirOf = (config: AwhmConfigShape): { readonly modelDir?: string } => {
  const location = locateModel(config)
  return location === null ? {} : { modelDir: location.dir }
}

type PostgresStores = typeof import("./postgresStores.js")

// Loaded on first use, so other backends never load the driver. The PostgreSQL stores share one layer
// value, so one composition opens one connection pool.
const onPostgres = <A, E>(pick: (stores: PostgresStores) => Layer.Layer<A, E, PostgresDatabase | AppConfig>) =>
  Layer.unwrapEffect(
    Effect.promise(() => import("./postgresStores.js")).pipe(Effect.map((stores) => pick(stores).pipe(Layer.provide(stores.PostgresDatabaseLive))))
  )

/** The configured backend's graph store (it needs AppConfig). */
const graphStoreOf = (config: AwhmConfigShape) =>
  config.storageBackend === "json" ? GraphStoreJson : config.storageBackend === "postgres" ? onPostgres((m) => m.GraphStorePostgres) : GraphStoreSqlite

/** The configured backend's raw log (it needs AppConfig). */
const rawLogOf = (config: AwhmConfigShape) => (config.storageBackend === "postgres" ? onPostgres((m) => m.RawLogPostgres) : RawLogLive)

/** Consolidation progress in the database on PostgreSQL; otherwise none, and consolidation keeps the data dir's file. */
const progressOf = (config: AwhmConfigShape): Layer.Layer<ConsolidationProgress, StorageError | ConfigurationError, AppConfig> | Layer.Layer<never> =>
  config.storageBackend === "postgres" ? onPostgres((m) => m.ConsolidationProgressPostgres) : Layer.empty

/** Tombstones and the deletion ledger: the write namespace's tables on PostgreSQL, else the data dir's files. */
const deletionRecordsOf = (config: AwhmConfigShape) =>
  config.storageBackend === "postgres" ? onPostgres((m) => m.DeletionRecordsPostgres) : DeletionRecordsFile

/** The configured Stage 2 client (it needs AppConfig). */
// Loaded when a composition builds it: the hooks and the query commands never load a Stage 2 client (the
// Claude Code one brings @effect/platform-node's command executor, ~4 ms of every prompt hook's start).
const stage2Of = (config: AwhmConfigShape): Layer.Layer<Stage2Client, never, AppConfig> =>
  Layer.unwrapEffect(
    Effect.promise(() =>
      config.stage2Client === "anthropic"
        ? import("./Stage2Anthropic.js").then((m) => m.Stage2Anthropic)
        : import("./Stage2ClaudeCode.js").then((m) => m.Stage2ClaudeCode)
    )
  )

export const graphStoreLayer = (config: AwhmConfigShape) => graphStoreOf(config).pipe(Layer.provide(configLayer(config)))

export const rawLogLayer = (config: AwhmConfigShape) => rawLogOf(config).pipe(Layer.provide(configLayer(config)))

/** Where consolidation records its progress (nothing to provide outside PostgreSQL). */
export const progressLayer = (config: AwhmConfigShape) => progressOf(config).pipe(Layer.provide(configLayer(config)))

export const sessionBufferLayer = (config: AwhmConfigShape) =>
  SessionBufferLive.pipe(Layer.provide(configLayer(config)))

export const stage2Layer = (config: AwhmConfigShape) => stage2Of(config).pipe(Layer.provide(configLayer(config)))

export const unusedGraphFileLayer = (config: AwhmConfigShape) => UnusedGraphFileLive.pipe(Layer.provide(configLayer(config)))

/** Where deletes leave their tombstones and ledger records. */
export const deletionRecordsLayer = (config: AwhmConfigShape) => deletionRecordsOf(config).pipe(Layer.provide(configLayer(config)))

/** The stores: raw log, session buffer, graph, progress, deletion records (and the other backend's graph file, for deletes). */
export const storesLayer = (config: AwhmConfigShape) =>
  Layer.mergeAll(
    rawLogLayer(config),
    sessionBufferLayer(config),
    graphStoreLayer(config),
    progressLayer(config),
    deletionRecordsLayer(config),
    unusedGraphFileLayer(config)
  )

/** Everything a query needs. */
export const retrievalLayer = (config: AwhmConfigShape) => {
  const base = Layer.mergeAll(storesLayer(config), embedderLayer(config), configLayer(config))
  return Layer.provideMerge(RetrieverLive, base)
}

/** Layers an app may supply in place of the built-in ones (each may need AppConfig). */
export interface AwhmLayers {
  readonly rawLog?: Layer.Layer<RawLog, unknown, AppConfig>
  readonly sessionBuffer?: Layer.Layer<SessionBuffer, unknown, AppConfig>
  readonly graphStore?: Layer.Layer<GraphStore, unknown, AppConfig>
  readonly embedder?: Layer.Layer<Embedder, unknown, AppConfig>
  readonly stage2Client?: Layer.Layer<Stage2Client, unknown, AppConfig>
  /** The retriever, e.g. `makeRetrieverLayer(options)` for other ranking options. */
  readonly retriever?: Layer.Layer<Retriever, unknown, RawLog | SessionBuffer | GraphStore | Embedder | AppConfig>
}

/**
 * Every service, live as the configuration chooses, except those the caller replaces: an app can bring
 * its own embedder or store and keep the rest.
 */
export const AwhmLive = (config: AwhmConfigShape, replace: AwhmLayers = {}) => {
  const base = Layer.mergeAll(
    replace.rawLog ?? rawLogOf(config),
    replace.sessionBuffer ?? SessionBufferLive,
    replace.graphStore ?? graphStoreOf(config),
    replace.embedder ?? embedderLayer(config),
    replace.stage2Client ?? stage2Of(config),
    replace.graphStore === undefined ? UnusedGraphFileLive : UnusedGraphFileNone,
    replace.graphStore === undefined && replace.rawLog === undefined ? progressOf(config) : Layer.empty,
    // An app's own stores keep their deletion records in the data dir.
    replace.graphStore === undefined && replace.rawLog === undefined ? deletionRecordsOf(config) : DeletionRecordsFile
  ).pipe(Layer.provideMerge(configLayer(config)))
  return Layer.provideMerge(replace.retriever ?? RetrieverLive, base)
}

/** Every service an awhm composition provides. */
export type AwhmServices = RawLog | SessionBuffer | GraphStore | Embedder | Stage2Client | Retriever | UnusedGraphFile | DeletionRecords | AppConfig

/** Every live service. */
export const MainLive = (config: AwhmConfigShape) => AwhmLive(config)
