import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { EmbedderNone } from "../../src/layers/EmbedderNone.js"
import { Embedder } from "../../src/services/Embedder.js"

describe("EmbedderNone", () => {
  it.effect("is disabled, and embedding fails with EmbedderError 'embeddings disabled'", () =>
    Effect.gen(function* () {
      const embedder = yield* Embedder
      expect(embedder.enabled).toBe(false)
      expect(embedder.modelId).toBe("none")
      const error = yield* Effect.flip(embedder.embed(["anything"]))
      expect(error._tag).toBe("EmbedderError")
      expect(error.message).toBe("embeddings disabled")
      expect((yield* Effect.flip(embedder.embed([])))._tag).toBe("EmbedderError")
    }).pipe(Effect.provide(EmbedderNone)))
})
