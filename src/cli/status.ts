import { Command } from "@effect/cli"
import { Effect, Layer } from "effect"
import { graphStoreLayer } from "../layers/Main.js"
import { RawLogLive } from "../layers/RawLogLive.js"
import { SessionBufferLive } from "../layers/SessionBufferLive.js"
import { AppConfig } from "../services/AppConfig.js"
import { GraphStore } from "../services/GraphStore.js"
import { RawLog } from "../services/RawLog.js"
import { SessionBuffer } from "../services/SessionBuffer.js"
import { dataDirOption, flagMap, jsonOption, output, withConfig } from "./common.js"

/** The counts `awhm status` reports. Cheap: no embedding model, no JSON parse of log lines. */
export const statusReport = Effect.gen(function* () {
  const config = yield* AppConfig
  const graph = yield* GraphStore
  const rawLog = yield* RawLog
  const buffer = yield* SessionBuffer
  const { nodes, edges } = yield* graph.counts
  const logs = yield* rawLog.stats
  let bufferEntries = 0
  for (const id of yield* buffer.sessionsWithWal) bufferEntries += (yield* buffer.entries(id)).length
  return {
    nodes,
    edges,
    sessions: logs.sessions,
    logMessages: logs.messages,
    bufferEntries,
    dataDir: config.dataDir,
    storageBackend: config.storageBackend,
    embedder: config.embedder
  }
})

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
