import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { memoryLine } from "../../src/hooks/context.js"
import { newerWins } from "../../src/layers/retriever/newerWins.js"
import { Retriever } from "../../src/services/Retriever.js"
import { FEB, JAN, logAll, MAR, said, world } from "./support.js"

// Often only one side of a contradiction is among a query's candidates: the denial matches the question, what the
// user said to the contrary uses other words. One bounded lookup of the raw log brings it beside the denial.

const retrieve = (query: string) => Effect.flatMap(Retriever, (r) => r.retrieve(query, { lexicalOnly: true }))

const ref = (sessionId: string, messageIndex: number) => ({ sessionId, messageIndex })
const marked = (results: ReadonlyArray<Parameters<typeof memoryLine>[0]>) =>
  results.map((r) => [r.source, r.content, r.conflictsWith?.at ?? null])

const DENIAL = "I've never synchronized the clock on my server with an NTP pool."
// Shares no word with the question: never a candidate of its own.
const AFFIRM = "My server now pulls its time from the NTP pool at pool.ntp.org."
// The session that denies it (in March), after a line on the clock: the denial ranks first for the question.
const logDenial = logAll("s1", [
  ["user", "My laptop clock is two minutes fast.", MAR],
  ["user", DENIAL, MAR]
])
// The question's results once the affirming line is pulled in: the pair, each flagged with the other's time, then the clock line.
const PAIRED = [
  ["raw_log", DENIAL, JAN],
  ["raw_log", AFFIRM, MAR],
  ["raw_log", "My laptop clock is two minutes fast.", null]
]

describe("a denial among the candidates pulls in what affirms it from the raw log", () => {
  it.effect("the affirming line comes right beside the denial, both flagged with the other", () =>
    Effect.gen(function* () {
      yield* logAll("s0", [
        ["user", AFFIRM, JAN],
        ["user", "The weekly backup finished without errors.", JAN]
      ])
      yield* logDenial
      const results = yield* retrieve("Have I ever synchronized the clock?")
      expect(marked(results)).toEqual(PAIRED)
      expect(results[0]!.conflictsWith).toEqual({ at: JAN, sourceRefs: [ref("s0", 0)] })
      expect(results[1]!.conflictsWith).toEqual({ at: MAR, sourceRefs: [ref("s1", 1)] })
      // It comes back on the denial's account, at its score.
      expect(results[1]!.score).toBe(results[0]!.score)
      expect(memoryLine(results[1]!)).toBe(`${AFFIRM} (conflicts with what was said on 2026-03-20)`)
    }).pipe(Effect.provide(world()))
  )

  it.effect("a line sharing one word with the denial does not affirm it: nothing is pulled in, nothing flagged", () =>
    Effect.gen(function* () {
      yield* logAll("s0", [["user", "The NTP acronym came up in my networking class.", JAN]])
      yield* logDenial
      const results = yield* retrieve("Have I ever synchronized the clock?")
      expect(marked(results)).toEqual([
        ["raw_log", DENIAL, null],
        ["raw_log", "My laptop clock is two minutes fast.", null]
      ])
    }).pipe(Effect.provide(world()))
  )

  it.effect("an assistant line saying the opposite is not the user's word: not pulled in", () =>
    Effect.gen(function* () {
      yield* logAll("s0", [["assistant", AFFIRM, JAN]])
      yield* logAll("s1", [["user", DENIAL, MAR]])
      const results = yield* retrieve("Have I ever synchronized the clock?")
      expect(marked(results)).toEqual([["raw_log", DENIAL, null]])
    }).pipe(Effect.provide(world()))
  )
})

describe("the lookup runs only for a denial without an opposite among the candidates", () => {
  const counting = (found: ReadonlyArray<ReturnType<typeof said>>) => {
    const calls: Array<string> = []
    return { calls, lookup: (_denier: ReturnType<typeof said>, denied: string) => (calls.push(denied), found) }
  }

  it("no denial among the candidates: no lookup, the candidates come back as they were, unmarked", () => {
    const a = said("My server syncs its clock every hour.", JAN, 0)
    const b = said("The clock drifted by two seconds.", FEB, 1)
    const { calls, lookup } = counting([said(AFFIRM, JAN, 2)])
    const out = newerWins([a, b], "Have I ever synchronized the clock?", false, lookup)
    expect(calls).toEqual([])
    expect(out).toEqual([a, b])
  })

  it("the opposite is already a candidate: no lookup, the two are paired", () => {
    const denial = said(DENIAL, MAR, 0)
    const other = said("The clock drifted by two seconds.", FEB, 1)
    const affirm = said("I synchronized the clock on my server with the NTP pool last week.", JAN, 2)
    const { calls, lookup } = counting([])
    const out = newerWins([denial, other, affirm], "Have I ever synchronized the clock?", false, lookup)
    expect(calls).toEqual([])
    expect(out.map((c) => [c.content, c.conflictsWith?.at ?? null])).toEqual([
      [DENIAL, JAN],
      [affirm.content, MAR],
      [other.content, null]
    ])
  })

  it("what is looked up is the denied clause without the negation; of the lines found, the one affirming most comes beside the denial", () => {
    const denial = said(DENIAL, MAR, 0)
    const other = said("The clock drifted by two seconds.", FEB, 1)
    const weak = said("An NTP pool was mentioned in the docs.", JAN, 5)
    const strong = said(AFFIRM, JAN, 6)
    const { calls, lookup } = counting([weak, strong])
    const out = newerWins([denial, other], "Have I ever synchronized the clock?", false, lookup)
    expect(calls).toEqual(["synchronized the clock on my server with an NTP pool"])
    expect(out.map((c) => [c.content, c.conflictsWith?.at ?? null])).toEqual([
      [DENIAL, JAN],
      [AFFIRM, MAR],
      [other.content, null]
    ])
  })

  it("a denial the question is not about (one shared word) asks for no lookup", () => {
    const denial = said("I've never written integration tests for my server.", MAR, 0)
    const other = said("The clock drifted by two seconds on the server.", FEB, 1)
    const { calls, lookup } = counting([said("I wrote integration tests for the socket events.", JAN, 2)])
    const out = newerWins([other, denial], "How far did the server clock drift?", false, lookup)
    expect(calls).toEqual([])
    expect(out.map((c) => c.conflictsWith)).toEqual([undefined, undefined])
  })
})

describe("the lookup returns lines that affirm the denial", () => {
  it.effect("lines that share the denied words without affirming them do not use up the lookup: the affirming one below them is found", () =>
    Effect.gen(function* () {
      // Each matches the denied clause better than the affirming line, none shares a word with the question, none affirms.
      const unsure = [
        "No NTP pool server on my server: NTP pool.org?",
        "My server is not an NTP pool server on the NTP pool.",
        "I will not pick an NTP pool server for my server's NTP.",
        "I could not tell if an NTP pool or NTP server suits my server.",
        "No NTP pool, no NTP server, no server pool.",
        "The NTP pool server is not my server's NTP pool.",
        "My server is no NTP pool server."
      ]
      yield* logAll("s0", [["user", AFFIRM, JAN], ...unsure.map((u) => ["user", u, JAN] as const)])
      yield* logDenial
      const results = yield* retrieve("Have I ever synchronized the clock?")
      expect(marked(results)).toEqual(PAIRED)
    }).pipe(Effect.provide(world()))
  )
})

describe("a question whether it happened is told by what was said", () => {
  const DENIED = "I'm wondering if Ronald's comfort with posed sessions will change, since he's never expressed any discomfort before."
  const REPLY = { content: "It's a good idea to consider how Ronald's comfort with posed photography sessions may change.", at: MAR, said: false, sourceRefs: [{ sessionId: "s1", messageIndex: 3 }] }
  const FEEDBACK = "I'm unsure how to handle Ronald's feedback on posed shots."

  it("the assistant's replies come after the user's statements, each as ranked", () => {
    const denial = said(DENIED, MAR, 2)
    const feedback = said(FEEDBACK, JAN, 0)
    const out = newerWins([denial, REPLY, feedback], "Has Ronald ever expressed discomfort with posed photography sessions?", false)
    expect(out.map((c) => c.content)).toEqual([DENIED, FEEDBACK, REPLY.content])
  })

  it("a question of what the assistant did, or one that is not whether, keeps the replies where they ranked", () => {
    const denial = said(DENIED, MAR, 2)
    const feedback = said(FEEDBACK, JAN, 0)
    for (const q of ["Did you suggest posed photography sessions for Ronald?", "How can I make posed photography sessions comfortable for Ronald?"]) {
      expect(newerWins([denial, REPLY, feedback], q, false).map((c) => c.content)).toEqual([DENIED, REPLY.content, FEEDBACK])
    }
  })
})
