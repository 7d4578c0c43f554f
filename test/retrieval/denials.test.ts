import { describe, expect, it } from "@effect/vitest"
import { newerWins } from "../../src/layers/retriever/newerWins.js"
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
})
