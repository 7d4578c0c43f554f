import { describe, expect, it } from "@effect/vitest"
import { firstHit, ndcgAt, percentile, recallByCategory } from "../../src/eval/metrics.js"

describe("eval metrics", () => {
  it("percentiles interpolate linearly between closest ranks (numpy's default)", () => {
    expect(percentile([], 50)).toBe(0)
    expect(percentile([7], 95)).toBe(7)
    expect(percentile([4, 1, 3, 2], 50)).toBe(2.5)
    // rank = 3 · 0.95 = 2.85 → 3 + 0.85 · (4 − 3)
    expect(percentile([1, 2, 3, 4], 95)).toBeCloseTo(3.85, 12)
    expect(percentile([10, 20], 95)).toBeCloseTo(19.5, 12)
  })

  it("a hit is the first rank whose content holds any expected string, case-insensitively", () => {
    const contents = ["The port is 8080", "Actually, my preferred language is Rust", "rust again"]
    expect(firstHit(contents, ["RUST"])).toBe(2)
    expect(firstHit(contents, ["python", "8080"])).toBe(1)
    expect(firstHit(contents, ["go"])).toBe(null)
    expect(firstHit(contents, [])).toBe(null)
    expect(firstHit(contents, [""])).toBe(null)
  })

  it("nDCG is binary with one relevant item", () => {
    expect(ndcgAt(1)).toBe(1)
    expect(ndcgAt(3)).toBe(0.5)
    expect(ndcgAt(null)).toBe(0)
  })

  it("recall per category, sorted, with 'all' for questions without one", () => {
    expect(
      recallByCategory([
        { category: "update", hit_rank: 1 },
        { category: null, hit_rank: null },
        { category: "update", hit_rank: null },
        { category: "b", hit_rank: 4 }
      ])
    ).toEqual({
      all: { questions: 1, recall_at_k: 0 },
      b: { questions: 1, recall_at_k: 1 },
      update: { questions: 2, recall_at_k: 0.5 }
    })
  })
})
