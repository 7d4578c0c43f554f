import { Effect, Layer } from "effect"
import { Embedder } from "../services/Embedder.js"

/**
 * Wraps the Embedder below it with an in-memory LRU cache of text -> vector, so texts embedded again
 * in one process (a repeated query, node texts re-checked by consolidation) skip the model. Only the
 * texts missing from the cache go to the model, as one batch. Vectors are copied in and out, so a
 * caller that mutates a vector cannot corrupt the cache. Nothing is persisted.
 * Use: `EmbedderCached(2048).pipe(Layer.provide(EmbedderTransformers({...})))`.
 */
export const EmbedderCached = (capacity: number) =>
  Layer.effect(
    Embedder,
    Effect.map(Embedder, (inner) => {
      // A Map iterates in insertion order: re-inserting on a hit makes the first key the least recent.
      const cache = new Map<string, Float32Array>()
      const remember = (text: string, v: Float32Array) => {
        cache.delete(text)
        cache.set(text, v)
        if (cache.size > capacity) cache.delete(cache.keys().next().value!)
      }
      return Embedder.of({
        ...inner,
        embed: (texts) => {
          const known = new Map<string, Float32Array>()
          const missing = new Set<string>()
          for (const t of texts) {
            const v = cache.get(t)
            if (v === undefined) missing.add(t)
            else known.set(t, v)
          }
          const ask = [...missing]
          const fetched = ask.length === 0 ? Effect.succeed<ReadonlyArray<Float32Array>>([]) : inner.embed(ask)
          return Effect.map(fetched, (vectors) => {
            ask.forEach((t, i) => known.set(t, vectors[i]!))
            for (const [t, v] of known) remember(t, v)
            return texts.map((t) => Float32Array.from(known.get(t)!))
          })
        }
      })
    })
  )
