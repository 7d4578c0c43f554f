// Keeps a real model's vectors between bench runs (development only): a JSON file of text -> vector, read at
// the start and written when the bench is done. Embeds each distinct text once per process either way.
import * as fs from "node:fs"
import { Effect } from "effect"
import type { EmbedderShape } from "../src/services/Embedder.js"

const readCache = (file: string | undefined, modelId: string): Map<string, Float32Array> => {
  const cache = new Map<string, Float32Array>()
  if (file === undefined || !fs.existsSync(file)) return cache
  const data = JSON.parse(fs.readFileSync(file, "utf8")) as { model: string; vectors: Record<string, Array<number>> }
  if (data.model !== modelId) return cache
  for (const [t, v] of Object.entries(data.vectors)) cache.set(t, Float32Array.from(v))
  return cache
}

const writeCache = (file: string | undefined, modelId: string, cache: ReadonlyMap<string, Float32Array>) => {
  if (file === undefined) return
  const vectors: Record<string, Array<number>> = {}
  for (const [t, v] of cache) vectors[t] = Array.from(v, (x) => Math.round(x * 1e6) / 1e6)
  fs.writeFileSync(file, JSON.stringify({ model: modelId, vectors }))
}

/** The embedder with a per-process memo, read from and saved to `file` when one is given. */
export const memoizedEmbedder = (inner: EmbedderShape, file: string | undefined): { embedder: EmbedderShape; save: () => void } => {
  const cache = readCache(file, inner.modelId)
  const embedder: EmbedderShape = {
    ...inner,
    embed: (texts) =>
      Effect.gen(function* () {
        const missing = [...new Set(texts.filter((t) => !cache.has(t)))]
        if (missing.length > 0) {
          const vectors = yield* inner.embed(missing)
          missing.forEach((t, i) => cache.set(t, vectors[i]!))
        }
        return texts.map((t) => cache.get(t)!)
      })
  }
  return { embedder, save: () => writeCache(file, inner.modelId, cache) }
}
