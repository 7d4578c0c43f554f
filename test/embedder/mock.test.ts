import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { EmbedderMock, fnv1a, MOCK_MODEL_ID, mockEmbedding } from "../../src/layers/EmbedderMock.js"
import { Embedder } from "../../src/services/Embedder.js"
import { dot, embedderContract } from "./contract.js"

embedderContract("EmbedderMock", EmbedderMock, { modelId: "mock-hash-384", dimension: 384 })

const nonZero = (v: Float32Array) => Array.from(v).flatMap((x, i) => (x === 0 ? [] : [[i, x]]))
const cos = (a: string, b: string) => dot(mockEmbedding(a), mockEmbedding(b))

describe("EmbedderMock", () => {
  it("hashes with 32-bit FNV-1a (the published test values)", () => {
    expect(fnv1a("")).toBe(0x811c9dc5)
    expect(fnv1a("a")).toBe(0xe40c292c)
    expect(fnv1a("foobar")).toBe(0xbf9cf968)
    expect(fnv1a("é")).toBe(513665217) // over UTF-8 bytes, not UTF-16 units
  })

  it("gives the same vector in every process: pinned buckets and values", () => {
    // "hello" -> bucket 147, "world" -> bucket 171, both positive; case and punctuation ignored.
    expect(nonZero(mockEmbedding("Hello, World!"))).toEqual([
      [147, Math.fround(Math.SQRT1_2)],
      [171, Math.fround(Math.SQRT1_2)]
    ])
    // Only stop words: they count after all ("to" twice, "be" twice, "or", "not").
    expect(nonZero(mockEmbedding("to be or not to be")).map(([i]) => i)).toEqual([0, 36, 132, 266])
    // No words at all: the trimmed text itself is the token, so "" and "?!" still differ.
    expect(nonZero(mockEmbedding(""))).toEqual([[325, -1]])
    expect(nonZero(mockEmbedding("   "))).toEqual([[325, -1]])
    expect(nonZero(mockEmbedding("?!"))).toEqual([[381, 1]])
  })

  it("scores like the thresholds expect: duplicates >= 0.92, shared words >= 0.3, unrelated 0", () => {
    expect(cos("User prefers dark mode", "User prefers dark mode")).toBeCloseTo(1, 6)
    // Case, punctuation and function words do not matter: a dedup candidate.
    expect(cos("The user prefers dark mode.", "user prefers DARK mode")).toBeCloseTo(1, 6)
    // Three of four content words shared: related (semantic anchor) but not a duplicate.
    expect(cos("user prefers dark mode", "user prefers light mode")).toBeCloseTo(0.75, 6)
    expect(cos("Alice is allergic to peanuts.", "Alice has a peanut allergy.")).toBeCloseTo(1 / 3, 6)
    expect(cos("The cat sat on the mat.", "Quarterly revenue grew eleven percent.")).toBe(0)
    expect(cos("Deploy the service on Friday", "The garden needs watering twice a week")).toBe(0)
  })

  it.effect("serves the same vectors through the layer", () =>
    Effect.gen(function* () {
      const embedder = yield* Embedder
      expect(embedder.modelId).toBe(MOCK_MODEL_ID)
      const [v] = yield* embedder.embed(["Hello, World!"])
      expect(Array.from(v!)).toEqual(Array.from(mockEmbedding("hello world")))
    }).pipe(Effect.provide(EmbedderMock)))
})
