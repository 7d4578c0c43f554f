import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { RawLog } from "../../src/services/RawLog.js"
import { Retriever } from "../../src/services/Retriever.js"
import { atSimilarity, QUERY_VECTOR, tableEmbedder, world } from "./support.js"

// A line found by meaning that also shares a word with the question, but ranks below the lexical pool (50 lines
// for k = 10) because many shorter lines say that word: it keeps the words it shares, so it comes first, before
// those lines (a word alone) and before a line a little closer in meaning that shares none.

const QUERY = "How did you get into basketball?"
const SHARES = "Basketball has been a part of my life ever since I was a kid, watching the big games on TV with my dad every week."
const NONE = "Watching the big games on TV with my dad every week, that's where it all started for me as a kid."
const FILLERS = 60

/** An embedder with set similarities to the query: 0.6 for the line that shares a word, 0.62 for the one that does not, 0 for the rest. */
const embedder = tableEmbedder((t) =>
  t === QUERY ? QUERY_VECTOR : t === SHARES ? atSimilarity(0.6, 1) : t === NONE ? atSimilarity(0.62, 2) : atSimilarity(0, 2)
)

describe("a line found by meaning below the lexical pool", () => {
  it.effect("keeps the words it shares with the question", () =>
    Effect.gen(function* () {
      const log = yield* RawLog
      for (let i = 0; i < FILLERS; i++) yield* log.append({ sessionId: `f${i}`, role: "user", content: `Basketball ${i}!` })
      yield* log.append({ sessionId: "a", role: "user", content: SHARES })
      yield* log.append({ sessionId: "b", role: "user", content: NONE })
      const results = yield* Effect.flatMap(Retriever, (r) => r.retrieve(QUERY, { k: 10 }))
      expect(results.map((r) => r.content).slice(0, 2)).toEqual([SHARES, "Basketball 0!"])
      expect(results.some((r) => r.content === NONE)).toBe(false)
    }).pipe(Effect.provide(world({ embedder })))
  )
})
