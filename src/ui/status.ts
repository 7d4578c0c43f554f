import { Effect } from "effect"
import { statusReport } from "../programs/status.js"
import { VERSION } from "../runtime/version.js"
import { AppConfig } from "../services/AppConfig.js"
import { Embedder } from "../services/Embedder.js"
import { GraphStore } from "../services/GraphStore.js"
import { runningHookServers } from "../store/hookSocket.js"

/** The Status page: `awhm status`'s counts plus what serves this data dir. */
export interface UiStatus {
  readonly nodes: number
  readonly edges: number
  readonly sessions: number
  readonly logMessages: number
  readonly bufferEntries: number
  readonly dataDir: string
  readonly storageBackend: string
  readonly graphLocation: string | null
  readonly embedder: string
  readonly embedderModel: string
  /** How many hook servers answer for this data dir. */
  readonly hookServers: number
  readonly version: string
}

export const uiStatus = Effect.gen(function* () {
  const config = yield* AppConfig
  const report = yield* statusReport
  const store = yield* GraphStore
  const embedder = yield* Embedder
  const hookServers = yield* Effect.promise(() => runningHookServers(config.dataDir))
  return {
    ...report,
    graphLocation: store.location,
    embedderModel: embedder.modelId,
    hookServers,
    version: VERSION
  } satisfies UiStatus
})
