import { Effect, Layer } from "effect"
import { makeRetriever, type RetrieverOptions } from "./retriever/service.js"
import { Retriever } from "../services/Retriever.js"

/** The retriever with explicit options (tests, benchmarks, embedding apps). */
export const makeRetrieverLayer = (options: RetrieverOptions = {}) =>
  Layer.scoped(Retriever, Effect.map(makeRetriever(options), (shape) => Retriever.of(shape)))

/**
 * Retrieval over the session buffer, the graph and the raw log (REFERENCE-BEHAVIOUR 4.4 with "does better"
 * 5, 6, 7, 11). Indexes live in the layer and follow the stores incrementally; with a file-backed graph
 * store the raw-log index and message embeddings are kept under `<data-dir>/index/`.
 */
export const RetrieverLive = makeRetrieverLayer()
