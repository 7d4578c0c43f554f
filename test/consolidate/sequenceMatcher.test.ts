import { describe, expect, it } from "@effect/vitest"
import { sequenceRatio } from "../../src/text/sequenceMatcher.js"

describe("sequenceRatio (difflib SequenceMatcher.ratio)", () => {
  it("matches Python's values", () => {
    // Values printed by CPython 3's difflib.SequenceMatcher(None, a, b).ratio().
    const cases: Array<[string, string, number]> = [
      ["alice", "alice smith", 0.625],
      ["acme", "acme corp", 0.6153846153846154],
      ["jon", "john smith", 0.46153846153846156],
      ["priya", "stripe", 0.36363636363636365],
      ["abcd", "dcba", 0.25],
      ["The quick brown fox", "The quick brown dog jumps", 0.7727272727272727],
      ["kubernetes", "k8s", 0.3076923076923077],
      ["", "x", 0]
    ]
    for (const [a, b, r] of cases) expect(sequenceRatio(a, b)).toBeCloseTo(r, 12)
  })

  it("two empty strings are identical, and autojunk ignores popular characters in long strings", () => {
    expect(sequenceRatio("", "")).toBe(1)
    // Every character of a 250-character b made of four symbols is "popular": difflib finds no anchor.
    const a = "ab c".repeat(75)
    const b = "c ba".repeat(63).slice(0, 250)
    expect(sequenceRatio(a, b)).toBe(0)
  })
})
