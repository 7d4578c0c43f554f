import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Retriever } from "../../src/services/Retriever.js"
import { asksWhen, saysWhen } from "../../src/text/timeReference.js"
import { logAll, world } from "./support.js"

describe("questions that ask when, lines that say when", () => {
  it("asks when: 'When…', a year, month, day or date asked for, 'how long ago'", () => {
    expect(
      [
        "When did Melanie go camping?",
        "  when was the deadline moved?",
        "In which year did John start surfing?",
        "What date is the peer review due?",
        "How long ago did we adopt the dog?"
      ].map(asksWhen)
    ).toEqual([true, true, true, true, true])
    expect(
      [
        "What did Melanie do when she went camping?",
        "Which day trip did we like best?",
        "How long did the trip take?",
        "Where did Jon go?"
      ].map(asksWhen)
    ).toEqual([false, false, false, false])
  })

  it("says when: relative days and periods, weekdays, counts ago, months and years", () => {
    expect(
      [
        "We went camping last weekend.",
        "I adopted her two weeks ago!",
        "Yesterday I took the kids to the museum.",
        "I'm going to a concert on Friday.",
        "The show is next month.",
        "We moved here in 2019.",
        "It opened in August.",
        "It was due on May 3."
      ].map(saysWhen)
    ).toEqual([true, true, true, true, true, true, true, true])
    expect(
      [
        "I may go camping with the kids.",
        "We went camping at the lake.",
        "Three times a week, it keeps us on track.",
        "This time I won the whole tournament.",
        "I have been to 12 concerts."
      ].map(saysWhen)
    ).toEqual([false, false, false, false, false])
  })
})

describe("a question that asks when, against the raw log", () => {
  const ask = (q: string) => Effect.flatMap(Retriever, (r) => r.retrieve(q, { k: 10, lexicalOnly: true }))
  const lines = Effect.gen(function* () {
    yield* logAll("s1", [["user", "We went camping at the lake, the lake was great.", "2023-03-10T18:00:00.000Z"]])
    yield* logAll("s2", [["user", "We went camping at the lake last weekend.", "2023-07-02T18:00:00.000Z"]])
  })

  it.effect("puts the line that says when before a slightly better match that does not", () =>
    Effect.gen(function* () {
      yield* lines
      const when = yield* ask("When did we go camping at the lake?")
      expect(when.map((r) => r.content)).toEqual(["We went camping at the lake last weekend.", "We went camping at the lake, the lake was great."])
      const what = yield* ask("Did we go camping at the lake?")
      expect(what.map((r) => r.content)).toEqual(["We went camping at the lake, the lake was great.", "We went camping at the lake last weekend."])
    }).pipe(Effect.provide(world()))
  )

  it.effect("ranks by the words alone without the rule", () =>
    Effect.gen(function* () {
      yield* lines
      const when = yield* ask("When did we go camping at the lake?")
      expect(when.map((r) => r.content)).toEqual(["We went camping at the lake, the lake was great.", "We went camping at the lake last weekend."])
    }).pipe(Effect.provide(world({ rawTuning: { timeWeight: 0 } })))
  )
})
