import { Effect } from "effect"
import { AppConfig } from "../services/AppConfig.js"
import { GraphStore } from "../services/GraphStore.js"
import { RawLog } from "../services/RawLog.js"
import { SessionBuffer } from "../services/SessionBuffer.js"

/** Graph and raw-log counts: what every status view starts from. */
export const storeCounts = Effect.gen(function* () {
  const { nodes, edges } = yield* (yield* GraphStore).counts
  const logs = yield* (yield* RawLog).stats
  return { nodes, edges, sessions: logs.sessions, logMessages: logs.messages }
})

/** The counts `awhm status` reports. Cheap: no embedding model, no JSON parse of log lines. */
export const statusReport = Effect.gen(function* () {
  const config = yield* AppConfig
  const buffer = yield* SessionBuffer
  const { nodes, edges, sessions, logMessages } = yield* storeCounts
  let bufferEntries = 0
  for (const id of yield* buffer.sessionsWithWal) bufferEntries += (yield* buffer.entries(id)).length
  return {
    nodes,
    edges,
    sessions,
    logMessages,
    bufferEntries,
    dataDir: config.dataDir,
    storageBackend: config.storageBackend,
    embedder: config.embedder
  }
})
