import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { memoryLine } from "../../src/hooks/context.js"
import { Retriever } from "../../src/services/Retriever.js"
import { graphOf, logAll, node, world } from "./support.js"

// The newer-wins order across graph memories and raw-log lines, pinned whole: which statements of one value
// move, where to, what they are marked with; and the statements that are not one value and stay as ranked.

const retrieve = (query: string, options: Parameters<Retriever["Type"]["retrieve"]>[1] = {}) =>
  Effect.flatMap(Retriever, (r) => r.retrieve(query, { lexicalOnly: true, ...options }))

const JAN = "2026-01-05T09:00:00.000Z"
const FEB = "2026-02-01T09:00:00.000Z"
const MAR = "2026-03-20T09:00:00.000Z"

const ref = (sessionId: string, messageIndex: number) => ({ sessionId, messageIndex })

/** Each result as the agent sees it: where from, what, superseded when, updated from what, conflicting with what said when. */
const marked = (results: ReadonlyArray<Parameters<typeof memoryLine>[0]>) =>
  results.map((r) => [r.source, r.content, r.supersededBy?.at ?? null, r.updated?.before ?? null, r.conflictsWith?.at ?? null])

const bookBudgets = world({ graph: graphOf([node("g1", "My monthly book budget is $35.", { validFrom: JAN, sourceRefs: [ref("s0", 0)] })]) })

describe("newer wins across graph and raw log: the exact order", () => {
  const lines = [
    ["user", "I raised my monthly book budget to $50.", FEB],
    ["user", "My monthly travel budget is $500.", FEB],
    ["user", "Heads-up: my monthly book budget is now $60.", MAR]
  ] as const

  it.effect("three statements of one budget, a graph memory and two log lines: newest first, both older ones marked with it", () =>
    Effect.gen(function* () {
      yield* logAll("s1", lines)
      const results = yield* retrieve("What is my monthly book budget?")
      expect(marked(results)).toEqual([
        ["raw_log", "Heads-up: my monthly book budget is now $60.", null, "$50", null],
        ["raw_log", "I raised my monthly book budget to $50.", MAR, null, null],
        ["graph", "My monthly book budget is $35.", MAR, null, null],
        // Another budget: another value, unmarked and where it ranked.
        ["raw_log", "My monthly travel budget is $500.", null, null, null]
      ])
      expect(results[1]!.supersededBy).toEqual({ at: MAR, sourceRefs: [ref("s1", 2)] })
      expect(results[2]!.supersededBy).toEqual({ at: MAR, sourceRefs: [ref("s1", 2)] })
      expect(memoryLine(results[0]!)).toBe("Heads-up: my monthly book budget is now $60. (updated 2026-03-20; before: $50)")
    }).pipe(Effect.provide(bookBudgets))
  )

  it.effect("with include-history the same three come back oldest first, the graph memory first", () =>
    Effect.gen(function* () {
      yield* logAll("s1", lines)
      const results = yield* retrieve("What is my monthly book budget?", { includeHistory: true })
      expect(marked(results)).toEqual([
        ["graph", "My monthly book budget is $35.", MAR, null, null],
        ["raw_log", "I raised my monthly book budget to $50.", MAR, null, null],
        ["raw_log", "Heads-up: my monthly book budget is now $60.", null, "$50", null],
        ["raw_log", "My monthly travel budget is $500.", null, null, null]
      ])
    }).pipe(Effect.provide(bookBudgets))
  )

  it.effect("of a statement's values, the one the question names: the budget changed from $700, not from the $38,500 portfolio", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [["user", "My monthly investment budget is now $750.", FEB]])
      const results = yield* retrieve("What is my monthly investment budget for the portfolio?")
      expect(marked(results)).toEqual([
        ["raw_log", "My monthly investment budget is now $750.", null, "$700", null],
        ["graph", "I'm managing a $38,500 portfolio and I've raised my monthly investment budget to $700.", FEB, null, null]
      ])
    }).pipe(
      Effect.provide(
        world({
          graph: graphOf([
            node("g1", "I'm managing a $38,500 portfolio and I've raised my monthly investment budget to $700.", { validFrom: JAN, sourceRefs: [ref("s0", 0)] })
          ])
        })
      )
    )
  )

  it.effect("a denial beside an update: the current rate first, the denial next to the booking it contradicts", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [
        ["user", "I've booked a hotel room for my Quebec City trip at $250 per night.", JAN],
        ["user", "The hotel rate for my Quebec City trip was adjusted to $270 per night.", FEB],
        ["user", "I've never booked any hotel rooms for the Quebec City trip, so what are my options?", MAR]
      ])
      const results = yield* retrieve("What is the nightly rate for the hotel room I booked for my Quebec City trip?")
      expect(marked(results)).toEqual([
        ["raw_log", "The hotel rate for my Quebec City trip was adjusted to $270 per night.", null, "$250", null],
        ["raw_log", "I've never booked any hotel rooms for the Quebec City trip, so what are my options?", null, null, JAN],
        ["raw_log", "I've booked a hotel room for my Quebec City trip at $250 per night.", FEB, null, MAR]
      ])
    }).pipe(Effect.provide(world()))
  )
})

describe("a value said of a pronoun", () => {
  it.effect("'set it to 100 requests/minute' is of the limit the question asks about, which the sentence names", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [
        ["user", "I'm rate limiting my API with Flask-Limiter to prevent abuse, and I've set it to 100 requests/minute.", JAN],
        ["user", "The new rate limit for my API is 120 requests per minute.", FEB]
      ])
      expect(marked(yield* retrieve("What is the request limit per minute for my API?"))).toEqual([
        ["raw_log", "The new rate limit for my API is 120 requests per minute.", null, "100 requests/minute", null],
        ["raw_log", "I'm rate limiting my API with Flask-Limiter to prevent abuse, and I've set it to 100 requests/minute.", FEB, null, null]
      ])
    }).pipe(Effect.provide(world()))
  )

  it.effect("a pronoun's value in a sentence not naming what is asked is not of it", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [
        ["user", "My memory limit on the server is 512 MB.", JAN],
        ["user", "I looked at the cache on the server and set it to 256 MB.", FEB]
      ])
      expect(marked(yield* retrieve("What is my memory limit on the server?"))).toEqual([
        ["raw_log", "My memory limit on the server is 512 MB.", null, null, null],
        ["raw_log", "I looked at the cache on the server and set it to 256 MB.", null, null, null]
      ])
    }).pipe(Effect.provide(world()))
  )
})

describe("a value holds from its latest statement", () => {
  const APR = "2026-04-10T09:00:00.000Z"
  it.effect("a value said again after a different one is current: its statements first, as they ranked; only the other value is marked", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [
        ["user", "My LDL cholesterol measured 102 mg/dL.", JAN],
        ["user", "My LDL cholesterol measured 98 mg/dL at the clinic last week.", FEB],
        ["user", "Back up again: after the holidays my LDL cholesterol measured 102 mg/dL at the lab.", APR]
      ])
      const results = yield* retrieve("What is my LDL cholesterol?")
      expect(marked(results)).toEqual([
        ["raw_log", "My LDL cholesterol measured 102 mg/dL.", null, "98 mg", null],
        ["raw_log", "Back up again: after the holidays my LDL cholesterol measured 102 mg/dL at the lab.", null, null, null],
        ["raw_log", "My LDL cholesterol measured 98 mg/dL at the clinic last week.", APR, null, null]
      ])
      expect(results[0]!.updated).toEqual({ at: APR, before: "98 mg", beforeAt: FEB })
      expect(results[2]!.supersededBy).toEqual({ at: APR, sourceRefs: [ref("s1", 2)] })
    }).pipe(Effect.provide(world()))
  )

  it.effect("the first statement of the current value stays above its later restatement; the old value after both", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [
        ["user", "I raised my monthly book budget to $50.", FEB],
        ["user", "Just noting for the record, since we talked about reading plans and libraries, my monthly book budget is still $50.", MAR]
      ])
      expect(marked(yield* retrieve("What is my monthly book budget?"))).toEqual([
        ["raw_log", "I raised my monthly book budget to $50.", null, "$35", null],
        ["raw_log", "Just noting for the record, since we talked about reading plans and libraries, my monthly book budget is still $50.", null, null, null],
        ["graph", "My monthly book budget is $35.", MAR, null, null]
      ])
    }).pipe(Effect.provide(bookBudgets))
  )
})

describe("an update said in other words", () => {
  const lines = [
    ["user", "I need to make sure I've got enough budget for my photography gear, I've allocated $300 monthly starting March 2024, is that enough for a beginner like me?", JAN],
    ["user", "I'm kinda worried about my photography budget, it's been adjusted to $350 monthly starting March 2024, can you help me make the most of it?", FEB]
  ] as const

  it.effect("'it's been adjusted to $350 monthly' covers half the words the $300 statement does and moves above it, which is marked", () =>
    Effect.gen(function* () {
      yield* logAll("s1", lines)
      expect(marked(yield* retrieve("How much do I allocate monthly for my photography gear and software subscriptions?"))).toEqual([
        ["raw_log", lines[1][1], null, null, null],
        ["raw_log", lines[0][1], FEB, null, null]
      ])
    }).pipe(Effect.provide(world()))
  )

  it.effect("a question about when something was said asks for that statement: nothing moves", () =>
    Effect.gen(function* () {
      const said = [
        ["user", "My doctor, Dr. Lee, recommended a blood test to check my cholesterol levels on January 15.", JAN],
        ["user", "I've increased my daily protein intake to 35% of my calories before my upcoming blood test.", FEB]
      ] as const
      yield* logAll("s1", said)
      expect(marked(yield* retrieve("When did I say my doctor recommended the blood test?"))).toEqual([
        ["raw_log", said[0][1], null, null, null],
        ["raw_log", said[1][1], null, null, null]
      ])
    }).pipe(Effect.provide(world()))
  )
})

describe("the answer states the value", () => {
  it.effect("a statement of the value asked for moves above the user's statement about the same thing that states none", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [
        ["user", "My job as a senior engineer at Acme Corp keeps me busy.", JAN],
        ["user", "After my raise I earn $80,000 as a senior engineer at Acme Corp, which feels great for my family.", FEB]
      ])
      expect(marked(yield* retrieve("What is my salary as a senior engineer at Acme Corp?"))).toEqual([
        ["raw_log", "After my raise I earn $80,000 as a senior engineer at Acme Corp, which feels great for my family.", null, null, null],
        ["raw_log", "My job as a senior engineer at Acme Corp keeps me busy.", null, null, null]
      ])
    }).pipe(Effect.provide(world()))
  )

  it.effect("and above an assistant line covering the question no better", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [
        ["user", "Scott's homework completion is at 85% this term, up after tutoring with his new teacher.", JAN],
        ["assistant", "Scott's homework completion matters a lot.", JAN]
      ])
      expect(marked(yield* retrieve("What is Scott's homework completion rate?"))).toEqual([
        ["raw_log", "Scott's homework completion is at 85% this term, up after tutoring with his new teacher.", null, null, null],
        ["raw_log", "Scott's homework completion matters a lot.", null, null, null]
      ])
    }).pipe(Effect.provide(world()))
  )

  it.effect("not above a statement covering more of the question", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [
        ["user", "My salary as a senior engineer at Acme Corp is paid monthly.", JAN],
        ["user", "After my raise I earn $80,000 as a senior engineer at Acme Corp, which feels great for my family.", FEB]
      ])
      expect(marked(yield* retrieve("What is my salary as a senior engineer at Acme Corp?"))).toEqual([
        ["raw_log", "My salary as a senior engineer at Acme Corp is paid monthly.", null, null, null],
        ["raw_log", "After my raise I earn $80,000 as a senior engineer at Acme Corp, which feels great for my family.", null, null, null]
      ])
    }).pipe(Effect.provide(world()))
  )
})

describe("newer wins: an update in fewer of the question's words", () => {
  it.effect("'the weekly spending at Whole Foods has adjusted to $115' updates '$120 weekly … for 5 gluten-free dinners'; a later spend for the same dinners does too", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [
        ["user", "I spend $120 weekly at Whole Foods on Main Street for 5 gluten-free dinners.", JAN],
        ["user", "While planning dinners, I just found out the weekly spending at Whole Foods has adjusted to $115.", FEB]
      ])
      expect(marked(yield* retrieve("How much do I spend weekly at Whole Foods on Main Street for my gluten-free dinners?"))).toEqual([
        ["raw_log", "While planning dinners, I just found out the weekly spending at Whole Foods has adjusted to $115.", null, "$120", null],
        ["raw_log", "I spend $120 weekly at Whole Foods on Main Street for 5 gluten-free dinners.", FEB, null, null]
      ])
      yield* logAll("s2", [["user", "Now I spend $130 weekly at Whole Foods on Main Street for my gluten-free dinners.", MAR]])
      expect(marked(yield* retrieve("How much do I spend weekly at Whole Foods on Main Street for my gluten-free dinners?"))).toEqual([
        ["raw_log", "Now I spend $130 weekly at Whole Foods on Main Street for my gluten-free dinners.", null, "$115", null],
        ["raw_log", "While planning dinners, I just found out the weekly spending at Whole Foods has adjusted to $115.", MAR, null, null],
        ["raw_log", "I spend $120 weekly at Whole Foods on Main Street for 5 gluten-free dinners.", MAR, null, null]
      ])
    }).pipe(Effect.provide(world()))
  )

  it.effect("a change of another store's spending in the same few words is no update of it", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [
        ["user", "I spend $120 weekly at Whole Foods on Main Street for 5 gluten-free dinners.", JAN],
        ["user", "While planning dinners, I just found out the weekly spending at Trader Joe's has adjusted to $115.", FEB]
      ])
      expect(marked(yield* retrieve("How much do I spend weekly at Whole Foods on Main Street for my gluten-free dinners?"))).toEqual([
        ["raw_log", "I spend $120 weekly at Whole Foods on Main Street for 5 gluten-free dinners.", null, null, null],
        ["raw_log", "While planning dinners, I just found out the weekly spending at Trader Joe's has adjusted to $115.", null, null, null]
      ])
    }).pipe(Effect.provide(world()))
  )
})

describe("not one value: nothing moves, nothing is marked", () => {
  it.effect("a question naming what a date is of: a later date of another event about the same thing is no update of it", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [
        ["user", "The deadline for the Green Tech article series was extended to July 7, 2024.", JAN],
        ["user", "I celebrated the Green Tech article series on July 1 with the team.", FEB]
      ])
      expect(marked(yield* retrieve("What is the deadline for the Green Tech article series?"))).toEqual([
        ["raw_log", "The deadline for the Green Tech article series was extended to July 7, 2024.", null, null, null],
        ["raw_log", "I celebrated the Green Tech article series on July 1 with the team.", null, null, null]
      ])
    }).pipe(Effect.provide(world()))
  )

  it.effect("a threshold aimed at is no measurement: the measured level stays current", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [
        ["user", "My LDL cholesterol measured 110 mg/dL.", JAN],
        ["user", "I'm trying to reduce my LDL cholesterol to below 100 mg/dL by December.", FEB]
      ])
      expect(marked(yield* retrieve("What is my LDL cholesterol?"))).toEqual([
        ["raw_log", "My LDL cholesterol measured 110 mg/dL.", null, null, null],
        ["raw_log", "I'm trying to reduce my LDL cholesterol to below 100 mg/dL by December.", null, null, null]
      ])
    }).pipe(Effect.provide(world()))
  )

  it.effect("a cap set on a value ('keeping it to 10 people', 'limit the list to 12') is no count that holds: the people coming stay current", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [
        ["user", "I've got 28 people coming to the remembrance event.", JAN],
        ["user", "Keeping it to 10 people will make the event more intimate.", FEB],
        ["user", "We could limit the guest list to 12 people for the event.", MAR]
      ])
      expect(marked(yield* retrieve("How many people are coming to the event?"))).toEqual([
        ["raw_log", "I've got 28 people coming to the remembrance event.", null, null, null],
        ["raw_log", "Keeping it to 10 people will make the event more intimate.", null, null, null],
        ["raw_log", "We could limit the guest list to 12 people for the event.", null, null, null]
      ])
    }).pipe(Effect.provide(world()))
  )

  it.effect("a cap ranked above the count it limits comes after it, unmarked: the count that holds answers 'how many'", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [
        ["user", "We have 25 guests for the Christmas Eve dinner.", JAN],
        ["user", "For the Christmas Eve dinner, we are limiting it to 20 guests coming from close family.", FEB]
      ])
      expect(marked(yield* retrieve("How many guests are coming to the Christmas Eve dinner?"))).toEqual([
        ["raw_log", "We have 25 guests for the Christmas Eve dinner.", null, null, null],
        ["raw_log", "For the Christmas Eve dinner, we are limiting it to 20 guests coming from close family.", null, null, null]
      ])
    }).pipe(Effect.provide(world()))
  )

  it.effect("a value said to be for something else ('for holiday specialty items') is not what the question asks it for", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [
        ["user", "I spend $120 weekly at Whole Foods on Main Street for 5 gluten-free dinners.", JAN],
        ["user", "I've been spending $200 weekly at Whole Foods on Main Street for holiday specialty items.", FEB]
      ])
      expect(marked(yield* retrieve("How much do I spend weekly at Whole Foods on Main Street for my gluten-free dinners?"))).toEqual([
        ["raw_log", "I spend $120 weekly at Whole Foods on Main Street for 5 gluten-free dinners.", null, null, null],
        ["raw_log", "I've been spending $200 weekly at Whole Foods on Main Street for holiday specialty items.", null, null, null]
      ])
    }).pipe(Effect.provide(world()))
  )

  it.effect("two different budgets", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [
        ["user", "My monthly book budget is $35.", JAN],
        ["user", "My monthly travel budget is $500.", FEB]
      ])
      expect(marked(yield* retrieve("What is my monthly book budget?"))).toEqual([
        ["raw_log", "My monthly book budget is $35.", null, null, null],
        ["raw_log", "My monthly travel budget is $500.", null, null, null]
      ])
    }).pipe(Effect.provide(world()))
  )

  it.effect("a budget and a deadline of one project, asked about either", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [
        ["user", "The budget for my garden project is $5,000.", JAN],
        ["user", "The deadline for my garden project moved to April 25.", FEB]
      ])
      expect(marked(yield* retrieve("What is the budget for my garden project?"))).toEqual([
        ["raw_log", "The budget for my garden project is $5,000.", null, null, null],
        ["raw_log", "The deadline for my garden project moved to April 25.", null, null, null]
      ])
      expect(marked(yield* retrieve("When is the deadline for my garden project?"))).toEqual([
        ["raw_log", "The deadline for my garden project moved to April 25.", null, null, null],
        ["raw_log", "The budget for my garden project is $5,000.", null, null, null]
      ])
    }).pipe(Effect.provide(world()))
  )

  it.effect("a value restated unchanged, in the graph and twice in the log", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [
        ["user", "My monthly book budget is $50 for now.", JAN],
        ["user", "Still the same: my monthly book budget is $50.", FEB]
      ])
      expect(marked(yield* retrieve("What is my monthly book budget?"))).toEqual([
        ["graph", "My monthly book budget is $50.", null, null, null],
        ["raw_log", "My monthly book budget is $50 for now.", null, null, null],
        ["raw_log", "Still the same: my monthly book budget is $50.", null, null, null]
      ])
    }).pipe(Effect.provide(world({ graph: graphOf([node("g1", "My monthly book budget is $50.", { validFrom: JAN, sourceRefs: [ref("s0", 0)] })]) })))
  )

  it.effect("a question whether something ever happened: two proposals of different amounts are not an update", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [
        ["user", "I rejected Jeremy's proposal to invest $5,000 in NFTs.", JAN],
        ["user", "Jeremy proposed to invest $6,000 in NFTs and I rejected that too.", FEB]
      ])
      expect(marked(yield* retrieve("Have I ever rejected any proposals from Jeremy to invest in NFTs?"))).toEqual([
        ["raw_log", "I rejected Jeremy's proposal to invest $5,000 in NFTs.", null, null, null],
        ["raw_log", "Jeremy proposed to invest $6,000 in NFTs and I rejected that too.", null, null, null]
      ])
    }).pipe(Effect.provide(world()))
  )
})

describe("a change the candidates do not hold, found in the raw log by the words of the statement it changes", () => {
  const scheduled =
    "I have scheduled batch cooking sessions for March 24 and March 31 at 3 PM, but I'm kinda worried I might forget, can you remind me about these sessions?"
  const extended =
    "I'm kinda curious, what are some new recipes I can try during the batch cooking sessions on March 24 and March 31, since they were extended by 30 minutes?"
  // The assistant's replies match the question as well as the change does, more briefly, and fill the candidates.
  const replies = Array.from({ length: 32 }, (_, i) => ["assistant", `Tip ${i + 1}: batch cooking sessions go well with labelled containers.`, JAN] as const)

  it.effect("comes in above the statement it changes, which is marked with it", () =>
    Effect.gen(function* () {
      yield* logAll("s0", [["user", scheduled, JAN], ...replies])
      yield* logAll("s1", [["user", extended, FEB]])
      const results = yield* retrieve("How long are the batch cooking sessions scheduled to last?")
      expect(marked(results.slice(0, 3))).toEqual([
        ["raw_log", extended, null, null, null],
        ["raw_log", scheduled, FEB, null, null],
        ["raw_log", replies[0]![1], null, null, null]
      ])
      expect(results[1]!.supersededBy).toEqual({ at: FEB, sourceRefs: [ref("s1", 0)] })
    }).pipe(Effect.provide(world()))
  )
})
