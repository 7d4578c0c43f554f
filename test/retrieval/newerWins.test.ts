import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { memoryLine } from "../../src/hooks/context.js"
import { newerWins } from "../../src/layers/retriever/newerWins.js"
import { Retriever } from "../../src/services/Retriever.js"
import { FEB, graphOf, JAN, logAll, MAR, node, said, world } from "./support.js"

// Newer wins across sources at retrieval: graph memories and raw-log lines that state the value a query
// asks about come back newest first; the older ones stay, marked; denials and their opposites come together.

const retrieve = (query: string, options: Parameters<Retriever["Type"]["retrieve"]>[1] = {}) =>
  Effect.flatMap(Retriever, (r) => r.retrieve(query, { lexicalOnly: true, ...options }))

const commitsWorld = world({
  graph: graphOf([
    node("g1", "Our repo has 150 commits merged.", { validFrom: JAN, sourceRefs: [{ sessionId: "s0", messageIndex: 0 }] }),
    node("g2", "The staging server runs on port 8080.", { validFrom: JAN, sourceRefs: [{ sessionId: "s0", messageIndex: 1 }] })
  ])
})

describe("newer wins across the graph and the raw log", () => {
  it.effect("a newer raw-log line takes the graph memory's place; the memory stays, marked with the newer one", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [["user", "Good news: the repo has now reached 165 commits.", MAR]])
      const results = yield* retrieve("How many commits does the repo have?")
      expect(results.slice(0, 2).map((r) => [r.source, r.content])).toEqual([
        ["raw_log", "Good news: the repo has now reached 165 commits."],
        ["graph", "Our repo has 150 commits merged."]
      ])
      expect(results[0]!.updated).toEqual({ at: MAR, before: "150", beforeAt: JAN })
      expect(results[0]!.supersededBy).toBeUndefined()
      expect(results[1]!.supersededBy).toEqual({ at: MAR, sourceRefs: [{ sessionId: "s1", messageIndex: 0 }] })
      // What the prompt hook shows.
      expect(memoryLine(results[0]!)).toBe("Good news: the repo has now reached 165 commits. (updated 2026-03-20; before: 150)")
      expect(memoryLine(results[1]!)).toBe("Our repo has 150 commits merged. (superseded on 2026-03-20)")
    }).pipe(Effect.provide(commitsWorld))
  )

  it.effect("with include-history both come back in time order, the older one still marked", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [["user", "Good news: the repo has now reached 165 commits.", MAR]])
      const history = yield* retrieve("How many commits does the repo have?", { includeHistory: true })
      expect(history.slice(0, 2).map((r) => r.content)).toEqual([
        "Our repo has 150 commits merged.",
        "Good news: the repo has now reached 165 commits."
      ])
      expect(history[0]!.supersededBy?.at).toBe(MAR)
    }).pipe(Effect.provide(commitsWorld))
  )

  it.effect("among raw-log lines alone: the newest value first, an assistant's restatement is not a statement", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [
        ["user", "My monthly book budget is $35 for now.", JAN],
        ["assistant", "A monthly book budget of $35 works well with a library card.", JAN],
        ["user", "I raised my monthly book budget to $50.", FEB],
        ["user", "My monthly travel budget is $500.", FEB]
      ])
      const results = yield* retrieve("What is my monthly book budget?")
      const users = results.filter((r) => r.content.startsWith("My") || r.content.startsWith("I "))
      expect(users[0]!.content).toBe("I raised my monthly book budget to $50.")
      expect(users[0]!.updated).toEqual({ at: FEB, before: "$35", beforeAt: JAN })
      expect(results.find((r) => r.content === "My monthly book budget is $35 for now.")!.supersededBy?.at).toBe(FEB)
      // Another budget is another slot: not marked.
      expect(results.find((r) => r.content === "My monthly travel budget is $500.")?.supersededBy).toBeUndefined()
    }).pipe(Effect.provide(world()))
  )
})

describe("questions about the current value and about history", () => {
  it.effect("'my first review' asks for the current date: the moved date comes first; 'when I first' keeps the ranking", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [
        ["user", "I've got a portfolio review scheduled for June 15, 2024.", JAN],
        ["user", "My portfolio review moved to June 20, 2024.", FEB]
      ])
      const current = yield* retrieve("When is my first portfolio review scheduled?")
      expect(current.slice(0, 2).map((r) => r.content)).toEqual([
        "My portfolio review moved to June 20, 2024.",
        "I've got a portfolio review scheduled for June 15, 2024."
      ])
      expect(current[0]!.updated).toEqual({ at: FEB, before: "june 15 2024", beforeAt: JAN })
      const history = yield* retrieve("When was the portfolio review I first scheduled?")
      expect(history.slice(0, 2).map((r) => r.content)).toEqual([
        "I've got a portfolio review scheduled for June 15, 2024.",
        "My portfolio review moved to June 20, 2024."
      ])
      expect(history[0]!.supersededBy?.at).toBe(FEB)
    }).pipe(Effect.provide(world()))
  )

  it.effect("a value the question gives itself is what it asks with, not for: no update among those", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [
        ["user", "I want the sum of the first 10 terms of the sequence 3, 7, 11.", JAN],
        ["user", "I want the sum of the first 15 terms of the sequence 7, 10, 13.", FEB]
      ])
      const results = yield* retrieve("Can you show me the sum of the first 10 terms of the sequence 3, 7, 11?")
      expect(results.slice(0, 2).map((r) => [r.content, r.supersededBy, r.updated])).toEqual([
        ["I want the sum of the first 10 terms of the sequence 3, 7, 11.", undefined, undefined],
        ["I want the sum of the first 15 terms of the sequence 7, 10, 13.", undefined, undefined]
      ])
    }).pipe(Effect.provide(world()))
  )
})

describe("values wished for or supposed are not statements of the value", () => {
  it.effect("a later 'it was supposed to be 30' or 'I want 25' does not supersede what holds", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [
        ["user", "I'm expecting 20 guests at my housewarming party.", JAN],
        ["user", "It was supposed to be 30 guests at my housewarming party, but plans changed.", FEB],
        ["user", "For my housewarming party I want 25 guests next time.", MAR]
      ])
      const results = yield* retrieve("How many guests are coming to my housewarming party?")
      expect(results.map((r) => r.content).sort()).toEqual([
        "For my housewarming party I want 25 guests next time.",
        "I'm expecting 20 guests at my housewarming party.",
        "It was supposed to be 30 guests at my housewarming party, but plans changed."
      ])
      expect(results.filter((r) => r.supersededBy !== undefined || r.updated !== undefined)).toEqual([])
    }).pipe(Effect.provide(world()))
  )

  it.effect("a verb read as the attribute names no slot: a monthly saving and a sum saved are not one value", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [
        ["user", "I'm saving $1,000 each month for my emergency fund.", JAN],
        ["user", "I have $3,000 saved for my emergency fund.", FEB]
      ])
      const results = yield* retrieve("How much am I saving each month for my emergency fund?")
      expect(results.slice(0, 2).map((r) => [r.content, r.supersededBy, r.updated])).toEqual([
        ["I'm saving $1,000 each month for my emergency fund.", undefined, undefined],
        ["I have $3,000 saved for my emergency fund.", undefined, undefined]
      ])
    }).pipe(Effect.provide(world()))
  )
})

describe("contradictions come back together", () => {
  it.effect("a denial and the statement it contradicts are both returned, next to each other, each flagged", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [
        ["user", "I synchronized my server time with the NTP service pool.ntp.org to fix token errors.", JAN],
        ["user", "Token validation keeps failing on the server.", JAN],
        ["user", "The server time drifts by a few seconds every day.", JAN],
        ["user", "I've never synchronized my server time with any NTP service.", FEB]
      ])
      const results = yield* retrieve("Have I ever synchronized my server time with an NTP service?")
      const denial = results.findIndex((r) => r.content.startsWith("I've never"))
      const other = results.findIndex((r) => r.content.startsWith("I synchronized"))
      expect(Math.abs(denial - other)).toBe(1)
      expect(results[denial]!.conflictsWith).toEqual({ at: JAN, sourceRefs: [{ sessionId: "s1", messageIndex: 0 }] })
      expect(results[other]!.conflictsWith).toEqual({ at: FEB, sourceRefs: [{ sessionId: "s1", messageIndex: 3 }] })
      expect(memoryLine(results[other]!)).toContain("(conflicts with what was said on 2026-02-01)")
    }).pipe(Effect.provide(world()))
  )
})

describe("a denial's partner is the statement affirming most of it", () => {
  it("of two statements affirming a denial, the one sharing more of its words comes up next to it, not the better-ranked one", () => {
    const denial = said("I've never merged any commits into the repo myself.", MAR, 0)
    const passing = said("I reviewed the commits in the repo.", FEB, 1)
    const unrelated = said("The weather was nice today.", FEB, 2)
    const affirm = said("I merged 12 commits into the repo myself yesterday.", JAN, 3)
    const out = newerWins([denial, passing, unrelated, affirm], "Have I ever merged commits into the repo myself?", false)
    expect(out.map((c) => [c.content, c.conflictsWith?.at])).toEqual([
      [denial.content, JAN],
      [affirm.content, MAR],
      [passing.content, undefined],
      [unrelated.content, undefined]
    ])
  })

  it("what is denied ends with its clause: the words after the comma are not part of it", () => {
    const denial = said("I have never upgraded any furniture in my living room, which seems weird since I moved in March.", MAR, 0)
    const unrelated = said("The weather was nice today.", FEB, 1)
    const affirm = said("I upgraded to a modular sofa, and my living room feels cozy.", JAN, 2)
    const out = newerWins([denial, unrelated, affirm], "Have I ever upgraded any furniture in my living room?", false)
    expect(out.map((c) => [c.content, c.conflictsWith?.at])).toEqual([
      [denial.content, JAN],
      [affirm.content, MAR],
      [unrelated.content, undefined]
    ])
  })
})
