import { Effect, Layer } from "effect"
import type { AwhmConfigShape } from "../domain/Config.js"
import { AwhmLive } from "../layers/Main.js"
import { Embedder, type EmbedderShape } from "../services/Embedder.js"
import { GraphStore } from "../services/GraphStore.js"
import { type RetrieveOptions, Retriever } from "../services/Retriever.js"
import { SessionBuffer } from "../services/SessionBuffer.js"
import { consolidateSession } from "../programs/consolidate.js"
import { logMessage } from "../programs/logMessage.js"
import type { CorpusSession } from "./corpus.js"

// An evaluation store: live layers (raw log, session buffer with WAL, graph in the configured backend)
// over a temporary data directory, sharing one already-loaded embedder across stores.

export { scopedTempDir } from "../store/scopedTempDir.js"

/** The configuration of a store in `dataDir`: the user's settings, raw-log search as asked. */
export const storeConfig = (
  base: AwhmConfigShape,
  dataDir: string,
  coldStartSessionCount: number | null
): AwhmConfigShape => ({ ...base, dataDir, coldStartSessionCount })

/** Every service an evaluation needs, live, for `config.dataDir`; the embedder is the one given. */
export const storeLayer = (config: AwhmConfigShape, embedder: EmbedderShape) =>
  AwhmLive(config, { embedder: Layer.succeed(Embedder, embedder) })

/**
 * Replays one session as the reference's AWHMSession does: log every message (raw log + buffer),
 * consolidate it, end it (its WAL is cleared). Returns the number of new nodes.
 */
export const replaySession = Effect.fn("eval.replaySession")(function* (session: CorpusSession) {
  for (const m of session.messages) {
    yield* logMessage({
      sessionId: session.id,
      role: m.role,
      content: m.content,
      ...(m.timestamp !== null ? { timestamp: m.timestamp } : {})
    })
  }
  const created = yield* consolidateSession(session.id)
  const buffer = yield* SessionBuffer
  yield* buffer.clear(session.id)
  return created
})

/** One timed query: the results and the wall-clock latency in milliseconds. */
export const timedQuery = Effect.fn("eval.timedQuery")(function* (question: string, options: RetrieveOptions) {
  const retriever = yield* Retriever
  const start = performance.now()
  const results = yield* retriever.retrieve(question, options)
  return { results, latencyMs: performance.now() - start }
})

/** Nodes in the store's graph. */
export const nodeCount = Effect.flatMap(GraphStore, (store) => Effect.map(store.counts, (c) => c.nodes))
