import { describe, expect, it } from "vitest"
import { newerWins } from "../../src/layers/retriever/newerWins.js"
import { FEB, JAN, MAR, said } from "./support.js"

// Which statements newer-wins takes for one value, read from real chats' phrasings: pinned with the candidates
// in their ranked order and the exact order and marks that come back.

/** Each candidate as newerWins returns it: its text, superseded when, updated from what. */
const marked = (out: ReadonlyArray<{ content: string; supersededBy?: { at: string }; updated?: { before: string } }>) =>
  out.map((x) => [x.content, x.supersededBy?.at ?? null, x.updated?.before ?? null])

describe("a statement naming what the question asks the value of", () => {
  const first = "I've scheduled a safety inspection for the preferred apartment on March 23, focusing on smoke detectors and electrical wiring."
  const moved = "I've got a safety inspection coming up on March 25, is there anything I should do to prepare for it?"

  it("counts at half the best statement's coverage: the later date comes first, the earlier one marked", () => {
    const out = newerWins([said(first, JAN, 0), said(moved, FEB, 1)], "When is my scheduled safety inspection for the apartment?", false)
    expect(marked(out)).toEqual([
      [moved, null, "march 23"],
      [first, FEB, null]
    ])
  })

  it("an attribute only part of what is asked needs the usual coverage: another date of the apartment stays as ranked", () => {
    // "apartment inspection" covers half the question, as the moved date does, but is not the "safety inspection" asked about.
    const other = "The apartment inspection is on March 27."
    const out = newerWins([said(first, JAN, 0), said(other, FEB, 1)], "When is my scheduled safety inspection for the apartment?", false)
    expect(marked(out)).toEqual([
      [first, null, null],
      [other, null, null]
    ])
  })

  it("the same date said again is no update", () => {
    const again = "I've got a safety inspection coming up on March 23, is there anything I should do to prepare for it?"
    const out = newerWins([said(first, JAN, 0), said(again, FEB, 1)], "When is my scheduled safety inspection for the apartment?", false)
    expect(marked(out)).toEqual([
      [first, null, null],
      [again, null, null]
    ])
  })
})

describe("the words of the best statement's own sentence", () => {
  const gear = "I need to make sure I've got enough budget for my photography gear, I've allocated $300 monthly starting March."
  const query = "How much do I allocate monthly for my photography gear?"

  it("name the attribute of another statement: the budget it spoke of, raised later, comes first", () => {
    const raised = "I've allocated a new photography budget of $350 monthly."
    const out = newerWins([said(gear, JAN, 0), said(raised, MAR, 1)], query, false)
    expect(marked(out)).toEqual([
      [raised, null, "$300"],
      [gear, MAR, null]
    ])
  })

  it("a budget of something neither the question nor that sentence names is another slot", () => {
    const travel = "I've allocated a travel budget of $500 monthly."
    const out = newerWins([said(gear, JAN, 0), said(travel, MAR, 1)], query, false)
    expect(marked(out)).toEqual([
      [gear, null, null],
      [travel, null, null]
    ])
  })
})

describe("a value of the kind asked for, of the thing asked about by name", () => {
  const query = "When was the wall-mounted pegboard for tools and supplies installed to free up extra space?"
  const reply = { content: "Installing a pegboard is a great way to organize tools.", at: JAN, said: false, sourceRefs: [{ sessionId: "s1", messageIndex: 0 }] }

  it("sets the slot at a quarter of the question's words: the user's date comes above the reply covering no more", () => {
    const installed = "What's the best way to use the space saved from the pegboard installation that was completed on September 18?"
    const out = newerWins([reply, said(installed, FEB, 1)], query, false)
    expect(out.map((x) => x.content)).toEqual([installed, reply.content])
  })

  it("a date of another thing, as little about the question, sets none", () => {
    const sale = "I mounted the shelves on the wall next to my tools on September 18."
    const out = newerWins([reply, said(sale, FEB, 1)], query, false)
    expect(out.map((x) => x.content)).toEqual([reply.content, sale])
  })
})

describe("an update said in other words than the value's", () => {
  const query = "How many full days did I take off to rest and recover from the intense work period?"
  const before = "After taking a full day off on June 6 to rest and recover from an intense work period, I feel refreshed."
  const extended = "I extended my rest day on June 6 to two full days to fully recover from the intense work period."

  it("a later statement saying it changed, about what the earlier one says, comes above it; the earlier one is marked", () => {
    const out = newerWins([said(before, JAN, 0), said(extended, FEB, 1)], query, false)
    expect(marked(out)).toEqual([
      [extended, null, null],
      [before, FEB, null]
    ])
  })

  it("said earlier, by the assistant, of something else, or asked for as a sum, it stays where it ranked", () => {
    const stays = (candidates: Parameters<typeof newerWins>[0], q = query) => expect(marked(newerWins(candidates, q, false))).toEqual(candidates.map((c) => [c.content, null, null]))
    stays([said(before, FEB, 0), said(extended, JAN, 1)])
    stays([said(before, JAN, 0), { ...said(extended, FEB, 1), said: false }])
    stays([said(before, JAN, 0), said("I extended my gym membership to two months after the work period.", FEB, 1)])
    stays([said(before, JAN, 0), said(extended, FEB, 1)], "How many full days did I take off in total to rest and recover from the intense work period?")
  })
})

describe("an update said as a change to a value, asked for by what it is of", () => {
  const reading = "I'm kinda stressed about my blood pressure reading being 138/85 mmHg, should I talk to my doctor?"
  const improved = "I just had my blood pressure checked on April 23, and it showed a slight improvement to 135/82 mmHg."

  it("a question for a value the candidates state comes to the later change first, the earlier reading marked", () => {
    const out = newerWins([said(reading, JAN, 0), said(improved, FEB, 1)], "What was the result of my most recent blood pressure reading?", false)
    expect(marked(out)).toEqual([
      [improved, null, null],
      [reading, FEB, null]
    ])
  })

  it("a question for no value (what happened) keeps them as ranked", () => {
    const out = newerWins([said(reading, JAN, 0), said(improved, FEB, 1)], "What happened with my blood pressure reading lately?", false)
    expect(marked(out)).toEqual([
      [reading, null, null],
      [improved, null, null]
    ])
  })
})
