import { Command } from "@effect/cli"
import { Effect, Layer } from "effect"
import { graphStoreLayer } from "../layers/Main.js"
import { RawLogLive } from "../layers/RawLogLive.js"
import { SessionBufferLive } from "../layers/SessionBufferLive.js"
import { statusReport } from "../programs/status.js"
import { dataDirOption, flagMap, jsonOption, output, withConfig } from "./common.js"

/** `awhm status`: what is stored, and where. */
export const statusCommand = Command.make("status", { dataDir: dataDirOption, json: jsonOption }, (args) =>
  withConfig(flagMap(args.dataDir), (config) =>
    statusReport.pipe(
      Effect.flatMap((s) =>
        output(args.json, s, () =>
          [
            `data dir:       ${s.dataDir}`,
            `graph:          ${s.nodes} nodes, ${s.edges} edges (${s.storageBackend})`,
            `raw log:        ${s.logMessages} messages in ${s.sessions} sessions`,
            `session buffer: ${s.bufferEntries} entries`,
            `embedder:       ${s.embedder}`
          ].join("\n")
        )
      ),
      Effect.provide(Layer.mergeAll(RawLogLive, SessionBufferLive, graphStoreLayer(config)))
    )
  )
).pipe(Command.withDescription("Show what is stored: graph, raw logs, session buffers"))
