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

describe("a question when something is, beside the user's words about it that say no date", () => {
  const query = "When was the wall-mounted pegboard for tools and supplies installed to free up extra space?"
  const added = "What's the best way to organize my tools and supplies now that I've added a wall-mounted pegboard, freeing up 3 sq ft"
  const installed =
    "What's the best way to utilize the space saved from the pegboard installation that was completed on September 18 to enhance my home's functionality?"

  it("the dated statement comes above them, however many more of the question's words they have", () => {
    const out = newerWins([said(added, JAN, 0), said(installed, FEB, 1)], query, false)
    expect(marked(out)).toEqual([
      [installed, null, null],
      [added, null, null]
    ])
  })

  it("a question for another value, or an assistant line saying no date, stays where it ranked", () => {
    const asked = "How much space did the wall-mounted pegboard for tools and supplies free up?"
    expect(marked(newerWins([said(added, JAN, 0), said(installed, FEB, 1)], asked, false))).toEqual([
      [added, null, null],
      [installed, null, null]
    ])
    const reply = { ...said("A wall-mounted pegboard for tools and supplies frees up extra space and keeps everything in view.", JAN, 0), said: false }
    expect(marked(newerWins([reply, said(installed, FEB, 1)], query, false))).toEqual([
      [reply.content, null, null],
      [installed, null, null]
    ])
  })
})

describe("a later statement naming the attribute an earlier one gives a value of, in other words", () => {
  const query = "How much money do I have set aside for unexpected rehearsal or costume expenses?"
  const setAside = "I set aside $150 as an emergency fund for unexpected rehearsal or costume costs, and I'm hoping that will be enough to cover any last-minute expenses"
  const later = (fund: string) =>
    `I'm considering using my ${fund} for something other than unexpected costume repairs, but I'm not sure if that's a good idea since I just increased it after the last recital`

  it("with another value, comes above it; the earlier one is marked", () => {
    const out = newerWins([said(setAside, JAN, 0), said(later("$200 emergency fund"), FEB, 1)], query, false)
    expect(marked(out)).toEqual([
      [later("$200 emergency fund"), null, null],
      [setAside, FEB, null]
    ])
  })

  it("another fund, a bare 'budget', or the same value said again stays where it ranked", () => {
    for (const fund of ["$200 travel fund", "$200 budget", "$150 emergency fund"]) {
      expect(marked(newerWins([said(setAside, JAN, 0), said(later(fund), FEB, 1)], query, false))).toEqual([
        [setAside, null, null],
        [later(fund), null, null]
      ])
    }
  })

  const entries =
    "I'm trying to implement a data modeling approach for my restaurant dataset, which includes 10,000+ restaurant entries and 50,000 user ratings, with fields like cuisine, location, and price range."
  const stats =
    "I'm trying to update my dataset statistics, can you help me create a summary table with the new numbers? I have 12,500 restaurant entries and 60,000 user ratings now, and I want to make sure I'm displaying the correct information."

  it("counts too: the new numbers come first; asked what they were at the start, both stay where they ranked", () => {
    expect(marked(newerWins([said(entries, JAN, 0), said(stats, FEB, 1)], "How many entries and ratings does my dataset include?", false))).toEqual([
      [stats, null, null],
      [entries, FEB, null]
    ])
    expect(marked(newerWins([said(entries, JAN, 0), said(stats, FEB, 1)], "How many entries and ratings did I say my dataset includes at the start?", false))).toEqual([
      [entries, null, null],
      [stats, null, null]
    ])
  })
})

describe("a change said past the candidates, found by the words of the user's statement it changes", () => {
  const query = "How long are the batch cooking sessions scheduled to last?"
  const scheduled =
    "I have scheduled batch cooking sessions for March 24 and March 31 at 3 PM, but I'm kinda worried I might forget, can you remind me about these sessions?"
  const usual = "My Sunday batch cooking session usually runs 3.5 hours."
  const later = (change: string) => `I'm kinda curious, what are some new recipes I can try during the batch cooking sessions on March 24 and March 31, ${change}?`
  const extended = later("since they were extended by 30 minutes")

  /** newerWins with a raw log that holds one more line of the user's, said at `at`; the texts it was asked for. */
  const withLookup = (candidates: Parameters<typeof newerWins>[0], line: string, at: string) => {
    const asked: Array<string> = []
    const out = newerWins(candidates, query, false, (_, text) => {
      asked.push(text)
      return [said(line, at, 9)]
    })
    return { out: marked(out), asked }
  }

  it("a later line saying it changed, in a measure of the value the candidates state, comes above the oldest statement of it, marked", () => {
    // Minutes change a length said in hours; the oldest of the best statements is the one looked up.
    const { out, asked } = withLookup([said(usual, FEB, 0), said(scheduled, JAN, 1)], extended, MAR)
    expect(asked).toEqual([scheduled])
    expect(out).toEqual([
      [usual, null, null],
      [extended, null, null],
      [scheduled, MAR, null]
    ])
  })

  it("a candidate ranked below the best few that says it changed comes above the statement it changes (the lookup leaves candidates out)", () => {
    const others = Array.from({ length: 10 }, (_, i) => said(`Batch cooking tip ${i}: label every container.`, FEB, 20 + i))
    const asked: Array<string> = []
    const out = newerWins([said(scheduled, JAN, 1), ...others, said(extended, MAR, 2)], query, false, (_, text) => {
      asked.push(text)
      return []
    })
    expect(asked).toEqual([])
    expect(marked(out).slice(0, 3)).toEqual([
      [extended, null, null],
      [scheduled, MAR, null],
      [others[0]!.content, null, null]
    ])
    expect(out.length).toBe(12)
  })

  it("a line said before it, one saying no change, or a change of another measure is left where it was: nothing comes in", () => {
    for (const [line, at] of [
      [extended, "2026-01-01T09:00:00.000Z"],
      [later("with 30 guests"), MAR],
      [later("since the budget was increased to $80"), MAR]
    ] as const) {
      expect(withLookup([said(usual, FEB, 0), said(scheduled, JAN, 1)], line, at).out).toEqual([
        [usual, null, null],
        [scheduled, null, null]
      ])
    }
  })
})

describe("one setting's value in another unit of its measure", () => {
  const first = "I'm trying to optimize my Redis cache to reduce evictions, and I've identified that increasing the maxmemory to 512MB could help."
  const query = "What is the maxmemory setting I should use in my Redis configuration to minimize cache evictions?"

  it("a later value said in gigabytes, 'as mentioned', updates one said in megabytes: it comes first, the earlier one marked", () => {
    const later =
      "I'm trying to update my Redis cache configuration, but I'm not sure how to adjust the maxmemory setting to 1GB as mentioned in the information update."
    const out = newerWins([said(first, JAN, 0), said(later, FEB, 1)], query, false)
    expect(marked(out)).toEqual([
      [later, null, "512 mb"],
      [first, FEB, null]
    ])
  })

  it("a value only asked how to set is still no update, and milliseconds are no size", () => {
    const asked = "I'm trying to update my Redis cache configuration, but I'm not sure how to adjust the maxmemory setting to 1GB."
    const latency = "I'm trying to update my Redis cache configuration, and the maxmemory eviction check now takes 20ms."
    for (const later of [asked, latency]) {
      const out = newerWins([said(first, JAN, 0), said(later, FEB, 1)], query, false)
      expect(marked(out)).toEqual([
        [first, null, null],
        [later, null, null]
      ])
    }
  })
})
