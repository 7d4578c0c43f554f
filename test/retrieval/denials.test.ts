import { describe, expect, it } from "@effect/vitest"
import { longestRun, newerWins } from "../../src/layers/retriever/newerWins.js"
import { FEB, JAN, MAR, said } from "./support.js"

// What a user's denial ("I've never …") denies, read from its own words: the clause after the negation, each of
// "X or Y", past a hedge elsewhere in a sentence; a statement of it among the candidates comes back beside it, flagged.

describe("what a denial denies", () => {
  // Each candidate with the time of the statement it conflicts with.
  const conflicts = (out: ReadonlyArray<{ readonly content: string; readonly conflictsWith?: { readonly at: string | null } }>) =>
    out.map((c) => [c.content, c.conflictsWith?.at ?? null])

  it("'never X or Y' denies X: a statement of X alone is its opposite, and a question whether it happened puts the two first", () => {
    const unrelated = said("The interview room is on the third floor.", FEB, 0)
    const denial = said("I'm worried that I've never attended the USCIS interview or submitted any insurance documents, how do I prepare?", MAR, 1)
    const affirm = said("After attending the USCIS interview on August 15, what comes next?", JAN, 2)
    const out = newerWins([unrelated, denial, affirm], "Have I attended the USCIS interview before?", false)
    expect(conflicts(out)).toEqual([
      [denial.content, JAN],
      [affirm.content, MAR],
      [unrelated.content, null]
    ])
  })

  it("the denial ends where another clause begins, and 'also' or 'actually' do not hide it", () => {
    const denial = said("I've also never actually completed any geometric sequence problems and need a step-by-step explanation.", MAR, 0)
    const explanation = said("I need a step-by-step explanation of the sum formula.", FEB, 1)
    const affirm = said("I just completed a set of geometric sequence problems and did well.", JAN, 2)
    const out = newerWins([explanation, denial, affirm], "Can you give me a step-by-step explanation of geometric sequence problems?", false)
    expect(conflicts(out)).toEqual([
      [explanation.content, null],
      [denial.content, JAN],
      [affirm.content, MAR]
    ])
  })

  it("a hedge does not make a sentence a denial: 'I attended …, but I'm not sure …' still affirms", () => {
    const denial = said("I've never attended any immigration workshops.", MAR, 0)
    const other = said("The library has a quiet room.", FEB, 1)
    const affirm = said("I attended the immigration workshop at the library, but I'm not sure what documents I need.", JAN, 2)
    const out = newerWins([denial, other, affirm], "Have I ever attended any immigration workshops?", false)
    expect(conflicts(out)).toEqual([
      [denial.content, JAN],
      [affirm.content, MAR],
      [other.content, null]
    ])
  })

  it("of two statements sharing as many of the denied words, the one saying what was done is its opposite", () => {
    const denial = said("I have never upgraded any furniture in my living room, which seems weird.", MAR, 0)
    const layout = said("I want to optimize the furniture layout in my living room.", JAN, 1)
    const upgrade = said("I feel good about the comfort level in my living room after the sofa upgrade.", FEB, 2)
    const out = newerWins([denial, layout, upgrade], "Have I ever upgraded any furniture in my living room?", false)
    expect(conflicts(out)).toEqual([
      [denial.content, FEB],
      [upgrade.content, MAR],
      [layout.content, null]
    ])
  })

  it("of statements sharing the denied words, the one naming the denied thing itself, words in a row, is its opposite", () => {
    const denial = said("I've never solved any tangent or normal line problems before, can you explain them?", MAR, 0)
    // More of the denial's words than the phrase's statement, but scattered: "working on tangent and normal lines", "solve".
    const working = said("I've been working on tangent and normal lines to conics and I aim to solve related problems.", JAN, 1)
    const separate = said("I finished 6 tangent line problems and 5 normal line problems.", JAN, 2)
    const completed = said("I completed 6 tangent and normal line problems and scored 5/6.", FEB, 3)
    const out = newerWins([denial, working, separate, completed], "Have I ever worked on tangent and normal line problems before?", false)
    expect(conflicts(out)).toEqual([
      [denial.content, FEB],
      [completed.content, MAR],
      [working.content, null],
      [separate.content, null]
    ])
  })

  it("a contraction negates as 'not' does: 'I won't pick an NTP server' is no opposite of 'never picked an NTP server', the statement of it is", () => {
    const denial = said("I've never picked an NTP server for my home lab.", MAR, 0)
    // Word for word the denied thing (a closer match than the statement of it), but negated.
    const wont = said("I won't pick an NTP server for my home lab until the router arrives.", JAN, 1)
    const picked = said("My home lab now syncs from an NTP server I picked.", FEB, 2)
    const out = newerWins([denial, wont, picked], "Have I ever picked an NTP server for my home lab?", false)
    expect(conflicts(out)).toEqual([
      [denial.content, FEB],
      [picked.content, MAR],
      [wont.content, null]
    ])
  })

  it("no contraction of a negation affirms what is denied: won't, can't, don't, isn't, haven't, didn't", () => {
    const denial = said("I've never picked an NTP server for my home lab.", MAR, 0)
    const lines = [
      "I won't pick an NTP server for my home lab.",
      "I can't pick an NTP server for my home lab.",
      "I really don't pick an NTP server for my home lab.",
      "An NTP server for my home lab isn't picked yet.",
      "I haven't picked an NTP server for my home lab.",
      "I didn’t pick an NTP server for my home lab."
    ]
    for (const line of lines) {
      const out = newerWins([denial, said(line, JAN, 1)], "Have I ever picked an NTP server for my home lab?", false)
      expect(conflicts(out)).toEqual([
        [denial.content, null],
        [line, null]
      ])
    }
  })

  it("a request for what to do from now on names the thing but does not affirm it: the statement of it does", () => {
    const denial = said("I've never solved any tangent or normal line problems before.", MAR, 0)
    const instruction = said("Always provide stepwise algebraic solutions when I ask about tangent and normal line problems.", JAN, 1)
    const completed = said("I completed 6 tangent and normal line problems last week.", FEB, 2)
    const out = newerWins([denial, instruction, completed], "Have I ever worked on tangent and normal line problems before?", false)
    expect(conflicts(out)).toEqual([
      [denial.content, FEB],
      [completed.content, MAR],
      [instruction.content, null]
    ])
    // Alone beside the denial, the request affirms nothing: nothing is flagged.
    const alone = newerWins([denial, instruction], "Have I ever worked on tangent and normal line problems before?", false)
    expect(conflicts(alone)).toEqual([
      [denial.content, null],
      [instruction.content, null]
    ])
  })
})

describe("which statement a denial is paired with", () => {
  const conflicts = (out: ReadonlyArray<{ readonly content: string; readonly conflictsWith?: { readonly at: string | null } }>) =>
    out.map((c) => [c.content, c.conflictsWith?.at ?? null])

  it("of statements sharing the denied words, the one saying the denied verb as the denial says it is the opposite", () => {
    const denial = said("I've never actually delivered any photos to James or received feedback from him.", MAR, 0)
    const planned = said("I need to deliver to James the photos by Friday.", JAN, 1)
    const done = said("I delivered 50 event photos to James last week.", FEB, 2)
    const out = newerWins([denial, planned, done], "Have I delivered photos to James and received his feedback before?", false)
    expect(conflicts(out)).toEqual([
      [denial.content, FEB],
      [done.content, MAR],
      [planned.content, null]
    ])
  })

  it("a question whether it happened pairs the denial with what was said before it; other questions with the best-ranked", () => {
    const later = said("I delivered the extra event photos to James.", MAR, 0)
    const denial = said("I've never delivered any event photos to James.", FEB, 1)
    const earlier = said("I delivered the first event photos to James.", JAN, 2)
    expect(conflicts(newerWins([later, denial, earlier], "Have I ever delivered event photos to James?", false))).toEqual([
      [denial.content, JAN],
      [earlier.content, FEB],
      [later.content, null]
    ])
    // Not a question whether it happened: the best-ranked statement affirming it (it may hold the value asked for).
    expect(conflicts(newerWins([later, denial, earlier], "What did I tell you about delivering event photos to James?", false))).toEqual([
      [later.content, FEB],
      [denial.content, MAR],
      [earlier.content, null]
    ])
  })
})

describe("longestRun", () => {
  it("counts the terms two sequences share one after another, in order", () => {
    expect(longestRun(["complet", "tangent", "normal", "line", "problem"], ["solv", "tangent", "normal", "line", "problem"])).toBe(4)
    expect(longestRun(["tangent", "line", "problem", "normal", "line", "problem"], ["solv", "tangent", "normal", "line", "problem"])).toBe(3)
    expect(longestRun(["problem", "line", "normal", "tangent"], ["tangent", "normal", "line", "problem"])).toBe(1)
    expect(longestRun([], ["tangent"])).toBe(0)
  })
})

describe("a contradiction in a question for a value", () => {
  const conflicts = (out: ReadonlyArray<{ readonly content: string; readonly conflictsWith?: { readonly at: string | null } }>) =>
    out.map((c) => [c.content, c.conflictsWith?.at ?? null])
  const earlier = "I've completed 7 sigma notation problems and scored 6/7 correct, but I'm still having trouble identifying the bounds and indices."
  const later =
    "I'm trying to express a sum in sigma notation, given that I scored 7/7 correct identifying bounds and indices in sigma notation problems, but I have never completed any sigma notation problems."

  it("'how many' asks for the value: the later-said statement of the pair comes first, and the earlier's value does not jump above it", () => {
    const out = newerWins([said(earlier, JAN, 0), said(later, FEB, 1)], "How many sigma notation problems have I correctly identified the bounds and indices for?", false)
    expect(conflicts(out)).toEqual([
      [later, JAN],
      [earlier, FEB]
    ])
  })

  it("values of two measures ('a 7-page guide', 'two junior writers') are not one value said twice: the pair stays as ranked", () => {
    const guide = "I'm using the expanded 7-page mentoring guide, considering I've never mentored junior writers."
    const mentoring = "I've been mentoring two junior writers with weekly sessions."
    const out = newerWins([said(guide, JAN, 0), said(mentoring, FEB, 1)], "How many pages is the mentoring guide for junior writers?", false)
    expect(conflicts(out)).toEqual([
      [guide, FEB],
      [mentoring, JAN]
    ])
  })

  it("a question whether it happened keeps the pair as ranked", () => {
    const out = newerWins([said(earlier, JAN, 0), said(later, FEB, 1)], "Have I completed any sigma notation problems?", false)
    expect(conflicts(out)).toEqual([
      [earlier, FEB],
      [later, JAN]
    ])
  })
})
