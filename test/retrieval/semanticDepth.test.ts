import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { RawLog } from "../../src/services/RawLog.js"
import { Retriever } from "../../src/services/Retriever.js"
import { atSimilarity, QUERY_VECTOR, tableEmbedder, world } from "./support.js"

// A line that shares no word with the question is found only by meaning ("a short trip to Rome" for "Which cities
// has Jon visited?"). When another person's lines are a little closer in meaning and there are more of them than one
// pool holds (50 for k = 10), the raw log looks three pools deep, so the line is still a candidate and, said by the
// person the question names, comes first.

const QUERY = "Which cities has Jon visited?"
const TRIP = "I took a short trip to Rome last spring."

/** An embedder with set similarities to the query: 0.68 for the trip, 0.7 for each of Gina's lines, 0 for the rest. */
const embedder = tableEmbedder((t) =>
  t === QUERY ? QUERY_VECTOR : t === TRIP ? atSimilarity(0.68, 1) : t.startsWith("Gina line") ? atSimilarity(0.7, 2) : atSimilarity(0, 2)
)

describe("a line found only by meaning", () => {
  it.effect.each([
    ["one pool holds", 70],
    ["two pools hold", 120]
  ] as const)("is a candidate when more of another person's lines are closer to the question than %s", ([, others]) =>
    Effect.gen(function* () {
      const log = yield* RawLog
      yield* log.append({ sessionId: "jon", role: "user", content: TRIP, metadata: { speaker: "Jon" } })
      yield* log.append({ sessionId: "jon", role: "user", content: "Sounds lovely.", metadata: { speaker: "Gina" } })
      for (let i = 0; i < others; i++) {
        yield* log.append({ sessionId: `g${i}`, role: "user", content: `Gina line ${i}: my studio is busy.`, metadata: { speaker: "Gina" } })
        yield* log.append({ sessionId: `g${i}`, role: "user", content: "Good to hear.", metadata: { speaker: "Jon" } })
      }
      const results = yield* Effect.flatMap(Retriever, (r) => r.retrieve(QUERY, { k: 10 }))
      expect(results[0]?.content).toBe(TRIP)
      expect(results.length).toBe(10)
    }).pipe(Effect.provide(world({ embedder })))
  )
})
