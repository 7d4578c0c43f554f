import { Effect } from "effect"
import { AppConfig } from "../services/AppConfig.js"
import { ConsolidationProgress } from "../services/ConsolidationProgress.js"
import { fileProgress } from "./consolidate/fileProgress.js"

/** The ConsolidationProgress a layer provides (the PostgreSQL backend does), else the data dir's progress file. */
export const progressStore = Effect.flatMap(Effect.serviceOption(ConsolidationProgress), (provided) =>
  provided._tag === "Some" ? Effect.succeed(provided.value) : Effect.map(AppConfig, (config) => fileProgress(config.dataDir))
)
