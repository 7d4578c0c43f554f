import { describe, expect, it } from "vitest"
import { byBound, collectMatches, exactScore, parseIntList } from "../../src/layers/graph/exactBm25.js"

// Two terms: "a" in documents 3 (twice), 5, 9; "b" in 5 and 7.
const postings = [
  [3, 3, 5, 9],
  [5, 7]
]
const idf = [1, 2]
const k1 = 1.2
const norm0 = k1 * (1 - 0.75)

describe("exact BM25 from postings", () => {
  it("collects each matching document once, in rowid order, with its count of each term", () => {
    const m = collectMatches(postings, idf, k1, norm0)
    expect([...m.rids]).toEqual([3, 5, 7, 9])
    expect([...m.tf]).toEqual([2, 0, 1, 1, 0, 1, 1, 0])
  })

  it("orders every document by its bound, the lower rowid first among equal bounds", () => {
    const m = collectMatches(postings, idf, k1, norm0)
    // 5 has both terms; 7 has the rarer one; 3 has "a" twice; 9 once.
    expect([...byBound(m)].map((d) => m.rids[d])).toEqual([5, 7, 3, 9])
    const single = collectMatches([[8, 2, 4].sort((x, y) => x - y)], [1], k1, norm0)
    expect([...byBound(single)].map((d) => single.rids[d])).toEqual([2, 4, 8])
  })

  it("scores a document at its length below its bound, as bm25Score's expression does", () => {
    const m = collectMatches(postings, idf, k1, norm0)
    const norm1 = (k1 * 0.75) / 4
    expect(exactScore(m, 1, 0, idf, k1, norm0, norm1)).toBe(m.bound[1])
    expect(exactScore(m, 1, 4, idf, k1, norm0, norm1)).toBeCloseTo((1 * 2.2) / (1 + 1.2) + (2 * 2.2) / (1 + 1.2), 12)
  })

  it("reads group_concat's comma list as numbers", () => {
    expect([...parseIntList("3,3,17,2048,9007199254740991")]).toEqual([3, 3, 17, 2048, 9007199254740991])
    expect([...parseIntList("42")]).toEqual([42])
    expect([...parseIntList(null)]).toEqual([])
    expect([...parseIntList("")]).toEqual([])
  })
})
