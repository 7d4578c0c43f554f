import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import {
  AwhmMemory,
  consolidatePending,
  Embedder,
  GraphStore,
  logMessage,
  retrieve
} from "../../src/index.js"

// A user's own embedder: two fixed directions, so "car"/"automobile" are neighbours and nothing else is.
const calls: Array<ReadonlyArray<string>> = []
const vector = (text: string) => {
  const v = new Float32Array(4)
  v[/car|automobile/i.test(text) ? 0 : 1] = 1
  return v
}
const CustomEmbedder = Layer.succeed(
  Embedder,
  Embedder.of({
    modelId: "custom-4",
    dimension: 4,
    enabled: true,
    embed: (texts) => Effect.sync(() => (calls.push(texts), texts.map(vector)))
  })
)

describe("library layers", () => {
  it.scoped("a user-supplied Embedder replaces the built-in one and the rest keeps working", () =>
    Effect.gen(function* () {
      yield* logMessage({ sessionId: "s1", role: "user", content: "My car is a blue Volvo" })
      yield* logMessage({ sessionId: "s1", role: "user", content: "My favourite colour is green" })
      const report = yield* consolidatePending()
      expect(report.newNodes).toBeGreaterThan(0)
      const graph = yield* (yield* GraphStore).load()
      const models = new Set([...graph.nodes.values()].map((n) => n.embedModel))
      expect(models).toEqual(new Set(["custom-4"]))
      const results = yield* retrieve("automobile", { k: 1 })
      expect(results.map((r) => r.content)).toEqual(["My car is a blue Volvo"])
      expect(calls.some((batch) => batch.includes("automobile"))).toBe(true)
    }).pipe(Effect.provide(AwhmMemory({}, { embedder: CustomEmbedder })))
  )
})
