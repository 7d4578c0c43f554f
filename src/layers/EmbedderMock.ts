import { Effect, Layer } from "effect"
import { Embedder } from "../services/Embedder.js"

export const MOCK_MODEL_ID = "mock-hash-384"
export const MOCK_DIMENSION = 384

// Function words would make unrelated sentences look alike; they count only when a text has nothing else.
const STOP_WORDS = new Set(
  ("a an the and or but nor of to in on at for with by from as into onto over under about than then " +
    "is are was were be been being am do does did have has had will would shall should can could may might must " +
    "i me my you your he him his she her it its we us our they them their this that these those there here " +
    "not no so if just also very too s t").split(" ")
)

const utf8 = new TextEncoder()

/** 32-bit FNV-1a over UTF-8 bytes: the same value on every platform and in every process. */
export const fnv1a = (s: string): number => {
  let h = 0x811c9dc5
  for (const byte of utf8.encode(s)) {
    h ^= byte
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

/**
 * A deterministic stand-in for a sentence embedding: lower-cased word tokens hashed into 384 signed
 * buckets (count-weighted), L2-normalised. Texts sharing content words score high, identical texts 1,
 * texts sharing none about 0 (only hash collisions add or subtract a little).
 */
export const mockEmbedding = (text: string): Float32Array => {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []
  const content = words.filter((w) => !STOP_WORDS.has(w))
  const tokens = content.length > 0 ? content : words.length > 0 ? words : [text.trim()]
  const v = new Float32Array(MOCK_DIMENSION)
  for (const t of tokens) {
    const h = fnv1a(t)
    v[h % MOCK_DIMENSION]! += h >>> 31 === 1 ? -1 : 1
  }
  let norm = 0
  for (const x of v) norm += x * x
  // Opposite signs can cancel to zero (e.g. two colliding tokens): fall back to the whole text's bucket.
  if (norm === 0) {
    v[fnv1a(text) % MOCK_DIMENSION] = 1
    return v
  }
  const inv = 1 / Math.sqrt(norm)
  for (let i = 0; i < v.length; i++) v[i]! *= inv
  return v
}

/** Deterministic hash vectors for tests and demos: no model, no I/O. */
export const EmbedderMock = Layer.succeed(
  Embedder,
  Embedder.of({
    modelId: MOCK_MODEL_ID,
    enabled: true,
    dimension: MOCK_DIMENSION,
    embed: (texts) => Effect.sync(() => texts.map(mockEmbedding))
  })
)
