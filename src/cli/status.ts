import { Command } from "@effect/cli"
import { Effect, Layer } from "effect"
import { graphStoreLayer, rawLogLayer } from "../layers/Main.js"
import { SessionBufferLive } from "../layers/SessionBufferLive.js"
import type { AwhmConfigShape } from "../domain/Config.js"
import { locateModel } from "../layers/modelLocation.js"
import { statusReport } from "../programs/status.js"
import { dataDirOption, flagMap, jsonOption, output, postgresUrlOption, withConfig } from "./common.js"

/** Where the live embedder's model is (files only: status never loads it); absent when no model is used. */
const modelReport = (config: AwhmConfigShape) => {
  const location = config.embedder === "transformers" ? locateModel(config) : null
  return location === null ? {} : { model: { dir: location.dir, source: location.source, found: location.complete } }
}

/** `awhm status`: what is stored, and where. */
export const statusCommand = Command.make("status", { dataDir: dataDirOption, postgresUrl: postgresUrlOption, json: jsonOption }, (args) =>
  withConfig(flagMap(args.dataDir, {}, args.postgresUrl), (config) =>
    statusReport.pipe(
      Effect.map((s) => ({ ...s, ...modelReport(config) })),
      Effect.flatMap((s) =>
        output(args.json, s, () =>
          [
            `data dir:       ${s.dataDir}`,
            `graph:          ${s.nodes} nodes, ${s.edges} edges (${s.storageBackend})`,
            `raw log:        ${s.logMessages} messages in ${s.sessions} sessions`,
            `session buffer: ${s.bufferEntries} entries`,
            `embedder:       ${s.embedder}${s.model === undefined ? "" : s.model.found ? ` (model at ${s.model.dir})` : " (NO MODEL FOUND: retrieval is lexical-only; run `awhm model install`)"}`
          ].join("\n")
        )
      ),
      Effect.provide(Layer.mergeAll(rawLogLayer(config), SessionBufferLive, graphStoreLayer(config)))
    )
  )
).pipe(Command.withDescription("Show what is stored: graph, raw logs, session buffers"))
