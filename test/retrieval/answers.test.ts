import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Retriever } from "../../src/services/Retriever.js"
import { logAll, world } from "./support.js"

// A reply answers what came before it: the line after a question someone else asked borrows more of the
// question's score (answerWeight) than a neighbour does, so "Three times a week" comes back for "How often…".

const QUERY = "How often does the user work out with the family?"
const ANSWER = "Three times a week, it keeps the family on track."
const OTHER = "My whole family is into sport and we often work out on weekends."

const ask = Effect.flatMap(Retriever, (r) => r.retrieve(QUERY, { k: 10, lexicalOnly: true }))

const chat = (asker: "assistant" | "user") =>
  Effect.gen(function* () {
    yield* logAll("s1", [
      [asker, "How often do you work out with your family?"],
      ["user", ANSWER]
    ])
    yield* logAll("s2", [
      ["user", OTHER],
      ["assistant", "Good for you."]
    ])
    yield* logAll("s3", [
      ["user", "We often go out for a walk."],
      ["assistant", "Nice."]
    ])
  })

describe("the answer to a question that matches the query", () => {
  it.effect("comes back right after the question, above a line that matches the query better", () =>
    Effect.gen(function* () {
      yield* chat("assistant")
      expect((yield* ask).slice(0, 3).map((r) => r.content)).toEqual(["How often do you work out with your family?", ANSWER, OTHER])
    }).pipe(Effect.provide(world()))
  )

  it.effect("ranks below that line when it borrows only what a neighbour does", () =>
    Effect.gen(function* () {
      yield* chat("assistant")
      expect((yield* ask).slice(0, 3).map((r) => r.content)).toEqual(["How often do you work out with your family?", OTHER, ANSWER])
    }).pipe(Effect.provide(world({ rawTuning: { answerWeight: 0 } })))
  )

  it.effect("a line after its own author's question is no answer to it", () =>
    Effect.gen(function* () {
      yield* chat("user")
      expect((yield* ask).slice(0, 3).map((r) => r.content)).toEqual(["How often do you work out with your family?", OTHER, ANSWER])
    }).pipe(Effect.provide(world()))
  )
})
