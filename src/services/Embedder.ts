import { Context, Data, type Effect } from "effect"

/** An embedding model could not be loaded or failed on input. */
export class EmbedderError extends Data.TaggedError("EmbedderError")<{
  readonly operation: string
  readonly message: string
}> {}

export interface EmbedderShape {
  /** Model identifier stored beside every embedding (e.g. "Xenova/all-MiniLM-L6-v2" or "mock-hash-384"). */
  readonly modelId: string
  /** False for the "none" embedder (lexical-only): callers skip semantics without calling embed. */
  readonly enabled: boolean
  /** Vector dimension (384 for all-MiniLM-L6-v2). */
  readonly dimension: number
  /** Batched embedding: one L2-normalised Float32Array per text, in order. Loads the model lazily on first call. */
  readonly embed: (texts: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Float32Array>, EmbedderError>
}

/** The embedding model. Live: transformers.js; mock: deterministic hash vectors; none: lexical-only. */
export class Embedder extends Context.Tag("awhm/Embedder")<Embedder, EmbedderShape>() {}
