import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Embedder } from "../../src/services/Embedder.js"
import { RawLog } from "../../src/services/RawLog.js"
import { Retriever } from "../../src/services/Retriever.js"
import { world } from "./support.js"

// A line that shares no word with the question is found only by meaning ("a short trip to Rome" for "Which cities
// has Jon visited?"). When another person's lines are a little closer in meaning and there are more of them than one
// pool holds (50 for k = 10), the raw log looks twice as deep, so the line is still a candidate and, said by the
// person the question names, comes first.

const QUERY = "Which cities has Jon visited?"
const TRIP = "I took a short trip to Rome last spring."
const OTHERS = 70

/** An embedder with set similarities to the query: 0.68 for the trip, 0.7 for each of Gina's lines, 0 for the rest. */
const embedder = Layer.succeed(
  Embedder,
  Embedder.of({
    modelId: "test-table",
    enabled: true,
    dimension: 3,
    embed: (texts) =>
      Effect.succeed(
        texts.map((t) =>
          t === QUERY
            ? Float32Array.of(1, 0, 0)
            : t === TRIP
              ? Float32Array.of(0.68, Math.sqrt(1 - 0.68 ** 2), 0)
              : t.startsWith("Gina line")
                ? Float32Array.of(0.7, 0, Math.sqrt(1 - 0.7 ** 2))
                : Float32Array.of(0, 0, 1)
        )
      )
  })
)

describe("a line found only by meaning", () => {
  it.effect("is a candidate when more of another person's lines are closer to the question than one pool holds", () =>
    Effect.gen(function* () {
      const log = yield* RawLog
      yield* log.append({ sessionId: "jon", role: "user", content: TRIP, metadata: { speaker: "Jon" } })
      yield* log.append({ sessionId: "jon", role: "user", content: "Sounds lovely.", metadata: { speaker: "Gina" } })
      for (let i = 0; i < OTHERS; i++) {
        yield* log.append({ sessionId: `g${i}`, role: "user", content: `Gina line ${i}: my studio is busy.`, metadata: { speaker: "Gina" } })
        yield* log.append({ sessionId: `g${i}`, role: "user", content: "Good to hear.", metadata: { speaker: "Jon" } })
      }
      const results = yield* Effect.flatMap(Retriever, (r) => r.retrieve(QUERY, { k: 10 }))
      expect(results[0]?.content).toBe(TRIP)
      expect(results.length).toBe(10)
    }).pipe(Effect.provide(world({ embedder })))
  )
})
