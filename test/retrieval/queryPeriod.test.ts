import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { monthIndex } from "../../src/text/months.js"
import { queryPeriods, withinPeriod } from "../../src/text/queryPeriod.js"
import { Retriever } from "../../src/services/Retriever.js"
import { logAll, world } from "./support.js"

describe("the period a question names", () => {
  it("knows a month by its name or an abbreviation of three letters or more, nothing shorter or else", () => {
    expect(["January", "Sept", "sep.", "MAR", "december"].map(monthIndex)).toEqual([0, 8, 8, 2, 11])
    expect(["ma", "", "mayo", "Monday"].map(monthIndex)).toEqual([-1, -1, -1, -1])
  })

  it("reads days, months and years, the most specific reading of each stretch", () => {
    expect(queryPeriods("Who did Maria have dinner with on May 3, 2023?")).toEqual([{ year: 2023, month: 5, day: 3 }])
    expect(queryPeriods("What did Gina find for her clothing store on 1 February, 2023?")).toEqual([{ year: 2023, month: 2, day: 1 }])
    expect(queryPeriods("What was the name of the pet that John had to say goodbye to on 3 June, 2023?")).toEqual([{ year: 2023, month: 6, day: 3 }])
    expect(queryPeriods("What setback did Melanie face in October 2023?")).toEqual([{ year: 2023, month: 10, day: null }])
    expect(queryPeriods("How many times has Melanie gone to the beach in 2023?")).toEqual([{ year: 2023, month: null, day: null }])
    expect(queryPeriods("When did Melanie go camping in June?")).toEqual([{ year: null, month: 6, day: null }])
    expect(queryPeriods("What did we plan for Sept. 2024 and in 2025?")).toEqual([
      { year: 2024, month: 9, day: null },
      { year: 2025, month: null, day: null }
    ])
    expect(queryPeriods("What changed between mid-March and mid 2024?")).toEqual([
      { year: null, month: 3, day: null },
      { year: 2024, month: null, day: null }
    ])
  })

  it("names none in counts, verbs and relative times", () => {
    expect(queryPeriods("How many commits are in the repo, 2023 or more?")).toEqual([])
    expect(queryPeriods("What in may be the cause of the 500 errors?")).toEqual([])
    expect(queryPeriods("Where did John explore on a road trip last year?")).toEqual([])
    expect(queryPeriods("What is my monthly book budget?")).toEqual([])
  })

  it("holds from a day before it to a week after it ends", () => {
    const may3 = { year: 2023, month: 5, day: 3 }
    expect(withinPeriod(may3, Date.parse("2023-05-02T01:00:00Z"))).toBe(true)
    expect(withinPeriod(may3, Date.parse("2023-05-10T23:00:00Z"))).toBe(true)
    expect(withinPeriod(may3, Date.parse("2023-05-11T01:00:00Z"))).toBe(false)
    expect(withinPeriod(may3, Date.parse("2023-05-01T23:00:00Z"))).toBe(false)
    const june = { year: null, month: 6, day: null }
    expect(withinPeriod(june, Date.parse("2022-06-15T12:00:00Z"))).toBe(true)
    expect(withinPeriod(june, Date.parse("2023-07-05T12:00:00Z"))).toBe(true)
    expect(withinPeriod(june, Date.parse("2023-07-09T12:00:00Z"))).toBe(false)
    const december = { year: null, month: 12, day: null }
    expect(withinPeriod(december, Date.parse("2024-01-06T12:00:00Z"))).toBe(true)
  })
})

// The raw log indexes each line with the month and year it was said in (indexedText.ts), so "in June 2023" already
// meets June's lines by its words. The period adds what words cannot: the week after a period (what happened
// "last weekend" is said after it), a day, and a pool as deep for the period's lines as for the best matches.
describe("a question that names a period, against the raw log", () => {
  const filler = Effect.forEach(Array.from({ length: 200 }, (_, i) => i), (i) =>
    logAll(`f${i}`, [["user", `Lunch was fine today, number ${i}.`, "2023-01-20T12:00:00.000Z"]])
  )
  const ask = (q: string) => Effect.flatMap(Retriever, (r) => r.retrieve(q, { k: 10, lexicalOnly: true }))

  it.effect("a line said in the week after the period comes back before a slightly better match said months before", () =>
    Effect.gen(function* () {
      yield* filler
      yield* logAll("s1", [["user", "We went camping at the lake, the lake was great.", "2023-03-10T18:00:00.000Z"]])
      yield* logAll("s2", [["user", "We went camping at the lake last weekend.", "2023-07-02T18:00:00.000Z"]])
      const june = yield* ask("Did we go camping at the lake in June 2023?")
      expect(june.slice(0, 2).map((r) => r.content)).toEqual([
        "We went camping at the lake last weekend.",
        "We went camping at the lake, the lake was great."
      ])
      // Without a period the better match is first.
      // (A question that asks when also prefers the line that says when: timeReference.test.ts.)
      const plain = yield* ask("Did we go camping at the lake?")
      expect(plain.slice(0, 2).map((r) => r.content)).toEqual([
        "We went camping at the lake, the lake was great.",
        "We went camping at the lake last weekend."
      ])
    }).pipe(Effect.provide(world()))
  )

  it.effect("an in-period line the words rank below the pool is still a candidate", () =>
    Effect.gen(function* () {
      yield* filler
      for (let i = 0; i < 80; i++) {
        yield* logAll(`s${i + 10}`, [["user", `We went camping, camping trip ${i}.`, "2023-03-01T10:00:00.000Z"]])
      }
      yield* logAll("s1", [["user", "We went camping last weekend.", "2023-07-02T10:00:00.000Z"]])
      const june = yield* ask("When did we go camping in June 2023?")
      expect(june.findIndex((r) => r.content === "We went camping last weekend.")).toBe(0)
      // Without the period it is one of eighty-one lines, eighty of which match better.
      const plain = yield* ask("When did we go camping?")
      expect(plain.findIndex((r) => r.content === "We went camping last weekend.")).toBe(-1)
    }).pipe(Effect.provide(world()))
  )
})
