import { describe, expect, it } from "vitest"
import { byBound, collectMatches, exactScore, maxScoreTop, parseIntList } from "../../src/layers/graph/exactBm25.js"

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

  describe("MaxScore top (maxScoreTop)", () => {
    const norm1At = (lens: ReadonlyArray<number>) => (k1 * 0.75) / (lens.reduce((a, b) => a + b, 0) / lens.length)
    /** Every matching document, exact scores, best first (ties: the lower rowid): what the full merge gives. */
    const full = (lists: ReadonlyArray<Int32Array>, idfs: ReadonlyArray<number>, lens: ReadonlyArray<number>) => {
      const m = collectMatches(lists, idfs, k1, norm0)
      return Array.from(m.rids, (rid, d) => ({ rid, score: exactScore(m, d, lens[rid]!, idfs, k1, norm0, norm1At(lens)) })).sort(
        (x, y) => y.score - x.score || x.rid - y.rid
      )
    }

    // 40 documents. "common" (low idf) is in every one, 3 times in the short ones 30..39 (length 3), so its bound
    // is high though its part in long documents is small; "rare" is in 0..9 (length 20). Document 5 also holds
    // "mid", in 5 and 31 only. After "rare" and "mid" (the highest bounds), the 10 rare documents' scores so far
    // beat what "common" alone can give a document they do not hold, so "common" is looked up for the surviving
    // documents only. A stop that took the scores after "rare" and "mid" as final would miss document 31 (short,
    // 3x common plus mid), which outranks every rare document but 5.
    const lens = Array.from({ length: 40 }, (_, d) => (d >= 30 ? 3 : 20))
    const rare = Int32Array.from([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    const mid = Int32Array.from([5, 31])
    const common = Int32Array.from(Array.from({ length: 40 }, (_, d) => (d >= 30 ? [d, d, d] : [d])).flat())
    const lists = [common, rare, mid]
    const idfs = [0.1, 2.5, 3]

    it("gives the full merge's best m, exact scores and ties, without scoring what only the common term matches", () => {
      const got = maxScoreTop(lists, idfs, k1, norm0, norm1At(lens), (rid) => lens[rid]!, 4)
      const want = full(lists, idfs, lens)
      expect(got).not.toBeNull()
      // 5 and 31, then the rare documents, tied (same counts and lengths) in rowid order; none that only
      // "common" matches (10..30, 32..39) is listed.
      expect(got!.hits.map((h) => h.rid)).toEqual([5, 31, 0, 1, 2, 3, 4, 6, 7, 8, 9])
      expect(got!.hits).toEqual(want.slice(0, 11))
      // Below the floor the list may miss documents (the best of them, 30, scores just under it).
      expect(want[11]!.rid).toBe(30)
      expect(got!.floor).toBeGreaterThan(want[11]!.score)
      expect(got!.floor).toBeLessThanOrEqual(want[10]!.score)
    })

    it("lists every matching document (floor -Infinity) when fewer than m match, and stops at an unknown length", () => {
      const got = maxScoreTop(lists, idfs, k1, norm0, norm1At(lens), (rid) => lens[rid]!, 100)
      expect(got).toEqual({ hits: full(lists, idfs, lens), floor: -Infinity })
      expect(maxScoreTop(lists, idfs, k1, norm0, norm1At(lens), (rid) => (rid === 31 ? -1 : lens[rid]!), 4)).toBeNull()
      // The scratch it left behind is clean: the same call again answers the same.
      expect(maxScoreTop(lists, idfs, k1, norm0, norm1At(lens), (rid) => lens[rid]!, 4)!.hits.map((h) => h.rid)).toEqual([5, 31, 0, 1, 2, 3, 4, 6, 7, 8, 9])
    })

    it("agrees with the full merge on random corpora down to its floor", () => {
      let seed = 7
      const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648)
      for (let round = 0; round < 200; round++) {
        const docs = 1 + Math.floor(rand() * 300)
        const docLens = Array.from({ length: docs }, () => 1 + Math.floor(rand() * 30))
        const nt = 1 + Math.floor(rand() * 6)
        const termLists = Array.from({ length: nt }, () => {
          const p = rand() * rand()
          const out: Array<number> = []
          for (let d = 0; d < docs; d++) if (rand() < p) for (let f = 1 + Math.floor(rand() * rand() * 4); f > 0; f--) out.push(d)
          return Int32Array.from(out)
        })
        const termIdf = termLists.map(() => 0.05 + rand() * 4)
        const m = 1 + Math.floor(rand() * 20)
        const want = full(termLists, termIdf, docLens)
        const got = maxScoreTop(termLists, termIdf, k1, norm0, norm1At(docLens), (rid) => docLens[rid]!, m)!
        const sure = want.filter((h) => h.score >= got.floor)
        expect(got.hits.slice(0, sure.length)).toEqual(sure)
        expect(sure.length).toBeGreaterThanOrEqual(Math.min(m, want.length))
      }
    })
  })
})
