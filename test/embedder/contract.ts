// The Embedder contract: every layer with `enabled: true` passes these, mock and live alike.
import { expect, layer } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import { Embedder } from "../../src/services/Embedder.js"

export const dot = (a: Float32Array, b: Float32Array): number => {
  let s = 0
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!
  return s
}

export const maxAbsDiff = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  expect(a.length).toBe(b.length)
  let m = 0
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!))
  return m
}

/** Texts a memory system really sees: short, long, empty, punctuation-only, non-Latin, emoji, code. */
export const CONTRACT_TEXTS = [
  "The user prefers dark mode in every editor.",
  "",
  "   ",
  "?!",
  "Alice moved the meeting to Thursday at 3pm.",
  "Café déjà vu: naïve résumé 🚀",
  "東京で寿司を食べました",
  "const x = await db.query(`SELECT * FROM nodes WHERE id = ${id}`)",
  "memory ".repeat(600).trim() // far past the model's 256-token limit
]

// Padding inside a batch changes float rounding, not meaning.
const BATCH_TOLERANCE = 1e-5

export const embedderContract = (
  name: string,
  live: Layer.Layer<Embedder>,
  expected: { readonly modelId: string; readonly dimension: number }
) =>
  layer(live, { timeout: "120 seconds" })(`${name} meets the Embedder contract`, (it) => {
    it.effect("reports its model id and dimension, and every vector has that dimension", () =>
      Effect.gen(function* () {
        const embedder = yield* Embedder
        expect(embedder.modelId).toBe(expected.modelId)
        expect(embedder.enabled).toBe(true)
        expect(embedder.dimension).toBe(expected.dimension)
        const vectors = yield* embedder.embed(CONTRACT_TEXTS)
        expect(vectors).toHaveLength(CONTRACT_TEXTS.length)
        for (const v of vectors) {
          expect(v).toBeInstanceOf(Float32Array)
          expect(v.length).toBe(expected.dimension)
        }
      }))

    it.effect("returns unit vectors (norm 1 ± 1e-5), even for empty and very long texts", () =>
      Effect.gen(function* () {
        const vectors = yield* (yield* Embedder).embed(CONTRACT_TEXTS)
        for (const v of vectors) expect(Math.abs(Math.sqrt(dot(v, v)) - 1)).toBeLessThanOrEqual(1e-5)
      }))

    it.effect("gives the same text the same vector every time", () =>
      Effect.gen(function* () {
        const embedder = yield* Embedder
        const first = yield* embedder.embed(CONTRACT_TEXTS)
        const second = yield* embedder.embed(CONTRACT_TEXTS)
        expect(second.map((v) => Array.from(v))).toEqual(first.map((v) => Array.from(v)))
      }))

    it.effect("returns a batch in input order, each vector as if embedded alone", () =>
      Effect.gen(function* () {
        const embedder = yield* Embedder
        // More texts than one internal batch, lengths shuffled so length-sorting must be undone.
        const texts = Array.from({ length: 70 }, (_, i) => `note ${i}: ${"alpha beta gamma ".repeat((i * 7) % 11)}item ${i}`)
          .concat(CONTRACT_TEXTS)
        const batch = yield* embedder.embed(texts)
        expect(batch).toHaveLength(texts.length)
        for (let i = 0; i < texts.length; i++) {
          const [alone] = yield* embedder.embed([texts[i]!])
          expect(maxAbsDiff(batch[i]!, alone!)).toBeLessThanOrEqual(BATCH_TOLERANCE)
        }
        // The texts differ, so a swapped order could not pass the check above.
        for (let i = 1; i < CONTRACT_TEXTS.length; i++) {
          expect(maxAbsDiff(batch[70]!, batch[70 + i]!)).toBeGreaterThan(1e-3)
        }
      }))

    it.effect("embeds an empty list as an empty list", () =>
      Effect.gen(function* () {
        expect(yield* (yield* Embedder).embed([])).toEqual([])
      }))
  })
