import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { RawTuning } from "../../src/layers/retriever/engine.js"
import { RawLog } from "../../src/services/RawLog.js"
import { Retriever } from "../../src/services/Retriever.js"
import { asksName, namesOne } from "../../src/text/namesAsked.js"
import { world } from "./support.js"

describe("questions that ask where or who, lines that name a place or a person", () => {
  it("asks for a name: 'Where…', which city, country, state or place, 'Who…', the names of, which book, game or band", () => {
    expect(
      [
        "Where has Melanie camped?",
        "Which cities has Jon visited?",
        "What European countries has Maria been to?",
        "Which state did Nate visit?",
        "Who did John go to yoga with?",
        "What are the names of John's children?",
        "What video games does Nate play?",
        "Which books has Tim read?"
      ].map(asksName)
    ).toEqual([true, true, true, true, true, true, true, true])
    expect(
      [
        "When did Melanie go camping?",
        "What did Jon do in the city?",
        "What activities does Melanie partake in?",
        "How many children does John have?",
        "What did Tim think of the book?",
        "Between my two updates, which one shows a higher number of views?"
      ].map(asksName)
    ).toEqual([false, false, false, false, false, false])
  })

  it("names one: a capitalised word inside a sentence, not a known name, a greeting, a weekday or a month", () => {
    const known = new Set(["jon", "gina"])
    expect(
      [
        "Jon: Took a short trip last week to Rome to clear my mind.",
        "My colleague Rob invited me to a yoga class.",
        "We explored the coast up in the Pacific Northwest.",
        "That picture was from my daughter Sara's birthday."
      ].map((t) => namesOne(t, known))
    ).toEqual([true, true, true, true])
    expect(
      [
        "Jon: Hey Gina, hope you're doing great! Still working on my biz.",
        "Jon: Thanks! I went camping with the kids last weekend.",
        "We met up on Friday, and again in August. Wow, Jon!",
        "Gina: \"Dance\" is my go-to. Great, I'm in!"
      ].map((t) => namesOne(t, known))
    ).toEqual([false, false, false, false])
  })
})

/** Logs [speaker, text] lines of people to a session. */
const say = (sessionId: string, lines: ReadonlyArray<readonly [string, string]>) =>
  Effect.flatMap(RawLog, (log) =>
    Effect.forEach(lines, ([speaker, content]) => log.append({ sessionId, role: "user", content, metadata: { speaker } }))
  )

const top = (query: string, rawTuning?: Partial<RawTuning>) =>
  Effect.gen(function* () {
    yield* say("s1", [["Jon", "Jon: Hey Gina, the trip was long and the trip was tiring."], ["Gina", "Gina: Oh no."]])
    yield* say("s2", [["Jon", "Jon: I went on a trip to Rome last month."], ["Gina", "Gina: Fun."]])
    const results = yield* Effect.flatMap(Retriever, (r) => r.retrieve(query, { k: 10, lexicalOnly: true }))
    return results.map((r) => r.content).slice(0, 2)
  }).pipe(Effect.provide(world(rawTuning === undefined ? undefined : { rawTuning })))

describe("a question that asks where, against the raw log", () => {
  const ROME = "Jon: I went on a trip to Rome last month."
  const TIRING = "Jon: Hey Gina, the trip was long and the trip was tiring."

  it.effect("puts the line that names a place before a better match by words that names only the other speaker", () =>
    Effect.map(top("Where did Jon go on his trip?"), (lines) => expect(lines).toEqual([ROME, TIRING]))
  )

  it.effect("a question that asks no name ranks by the words", () =>
    Effect.map(top("How was Jon's trip?"), (lines) => expect(lines).toEqual([TIRING, ROME]))
  )

  it.effect("without the rule, the better match by words comes first", () =>
    Effect.map(top("Where did Jon go on his trip?", { nameWeight: 0 }), (lines) => expect(lines).toEqual([TIRING, ROME]))
  )
})
