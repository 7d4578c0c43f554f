import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Retriever } from "../../src/services/Retriever.js"
import { logAll, world } from "./support.js"

// The raw log's lexical pool: the assistant's long replies restate the user's words and can fill it, so the user's
// own best lines are looked at as deeply.

const query = "How many hours per week do I need to dedicate to the leadership training?"
const reply = (i: number) =>
  `Reply ${i}: dedicate enough hours per week to the leadership training; the leadership training needs hours per week you dedicate.`

describe("the user's own lines in the raw log's lexical pool", () => {
  it.effect("a short statement of the user's comes back first though sixty replies match the question better", () =>
    Effect.gen(function* () {
      for (let i = 0; i < 60; i++) yield* logAll(`s${i + 2}`, [["user", `What about week ${i}?`], ["assistant", reply(i)]])
      yield* logAll("s1", [["user", "The leadership training now needs 10 hours per week."]])
      const results = yield* Effect.flatMap(Retriever, (r) => r.retrieve(query, { k: 10, lexicalOnly: true }))
      expect(results.findIndex((r) => r.content === "The leadership training now needs 10 hours per week.")).toBe(0)
      // A request for a summary reads the lines as they rank: the replies fill its ten.
      const summary = yield* Effect.flatMap(Retriever, (r) => r.retrieve(`Can you summarize this: ${query}`, { k: 10, lexicalOnly: true }))
      expect(summary.findIndex((r) => r.content === "The leadership training now needs 10 hours per week.")).toBe(-1)
    }).pipe(Effect.provide(world()))
  )
})
