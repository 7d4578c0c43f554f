import { Effect, Layer } from "effect"
import { Embedder, EmbedderError } from "../services/Embedder.js"

/** Lexical-only: no model; callers check `enabled` and skip semantics, and embed always fails. */
export const EmbedderNone = Layer.succeed(
  Embedder,
  Embedder.of({
    modelId: "none",
    enabled: false,
    dimension: 0,
    embed: () => Effect.fail(new EmbedderError({ operation: "embed", message: "embeddings disabled" }))
  })
)
