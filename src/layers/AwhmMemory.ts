import { Effect, Layer } from "effect"
import { scopedTempDir } from "../store/scopedTempDir.js"
import { loadConfig } from "./ConfigLive.js"
import { EmbedderMock } from "./EmbedderMock.js"
import { GraphStoreMemory } from "./GraphStoreMemory.js"
import { AwhmLive, type AwhmLayers } from "./Main.js"
import { RawLogMemory } from "./RawLogMemory.js"
import { SessionBufferMemory } from "./SessionBufferMemory.js"
import { Stage2Mock } from "./Stage2Mock.js"

/**
 * Every service in memory (memory raw log, buffer and graph, mock embedder, mock Stage 2 that proposes
 * nothing), for users' own tests. The few bookkeeping files (consolidation progress, snapshots) go to a
 * temporary folder removed when the layer's scope closes. Any layer can still be replaced.
 */
export const AwhmMemory = (overrides: Readonly<Record<string, string>> = {}, replace: AwhmLayers = {}) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const dataDir = yield* scopedTempDir("awhm-memory-")
      const config = yield* loadConfig({ ...overrides, data_dir: dataDir }, {})
      return AwhmLive(config, {
        rawLog: RawLogMemory,
        sessionBuffer: SessionBufferMemory,
        graphStore: GraphStoreMemory,
        embedder: EmbedderMock,
        stage2Client: Stage2Mock([]),
        ...replace
      })
    })
  )
