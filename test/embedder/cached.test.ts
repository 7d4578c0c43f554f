import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { EmbedderCached } from "../../src/layers/EmbedderCached.js"
import { EmbedderMock, mockEmbedding } from "../../src/layers/EmbedderMock.js"
import { Embedder } from "../../src/services/Embedder.js"
import { embedderContract } from "./contract.js"

embedderContract("EmbedderCached over EmbedderMock", EmbedderCached(16).pipe(Layer.provide(EmbedderMock)), {
  modelId: "mock-hash-384",
  dimension: 384
})

// The mock, recording every batch that reaches it.
const recording = (calls: Array<ReadonlyArray<string>>) =>
  Layer.effect(
    Embedder,
    Effect.map(Embedder, (inner) =>
      Embedder.of({ ...inner, embed: (texts) => Effect.suspend(() => (calls.push(texts), inner.embed(texts))) })
    )
  ).pipe(Layer.provide(EmbedderMock))

describe("EmbedderCached", () => {
  it.effect("sends only texts it has not seen, once each, and answers in input order", () => {
    const calls: Array<ReadonlyArray<string>> = []
    return Effect.gen(function* () {
      const embedder = yield* Embedder
      yield* embedder.embed(["alpha", "beta"])
      const out = yield* embedder.embed(["beta", "gamma", "alpha", "gamma"])
      expect(calls).toEqual([["alpha", "beta"], ["gamma"]])
      expect(out.map((v) => Array.from(v))).toEqual(
        ["beta", "gamma", "alpha", "gamma"].map((t) => Array.from(mockEmbedding(t)))
      )
      yield* embedder.embed(["alpha"])
      expect(calls).toHaveLength(2)
    }).pipe(Effect.provide(EmbedderCached(10).pipe(Layer.provide(recording(calls)))))
  })

  it.effect("forgets the least recently used text beyond its capacity", () => {
    const calls: Array<ReadonlyArray<string>> = []
    return Effect.gen(function* () {
      const embedder = yield* Embedder
      yield* embedder.embed(["a", "b"])
      yield* embedder.embed(["a"]) // a is now more recent than b
      yield* embedder.embed(["c"]) // evicts b
      yield* embedder.embed(["a", "b"])
      expect(calls).toEqual([["a", "b"], ["c"], ["b"]])
      // More distinct texts in one call than the capacity still all come back.
      expect(yield* embedder.embed(["p", "q", "r", "a"])).toHaveLength(4)
    }).pipe(Effect.provide(EmbedderCached(2).pipe(Layer.provide(recording(calls)))))
  })

  it.effect("hands out copies: mutating a returned vector leaves the cache intact", () =>
    Effect.gen(function* () {
      const embedder = yield* Embedder
      const [first] = yield* embedder.embed(["hello world"])
      first!.fill(0)
      const [again] = yield* embedder.embed(["hello world"])
      expect(Array.from(again!)).toEqual(Array.from(mockEmbedding("hello world")))
    }).pipe(Effect.provide(EmbedderCached(4).pipe(Layer.provide(EmbedderMock)))))
})
