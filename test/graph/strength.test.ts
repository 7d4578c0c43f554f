import { describe, expect, it } from "@effect/vitest"
import { makeNode } from "../../src/domain/Node.js"
import {
  composite,
  frequency,
  p90,
  recency,
  recomputeStrength,
  reinforce,
  strengthOf
} from "../../src/domain/strength.js"

const round3 = (x: number) => Math.round(x * 1000) / 1000

describe("strength", () => {
  it("power-law recency matches the reference at 0 h, 24 h, 7 days and 30 days", () => {
    expect([0, 24, 24 * 7, 24 * 30].map((h) => round3(recency(h)))).toEqual([1, 0.693, 0.422, 0.276])
    expect(round3(recency(24, 0.5, 0.2))).toBe(round3(Math.pow(1 + 0.2 * 24, -0.5)))
    expect(recency(-5)).toBe(1)
  })

  it("p90 is sorted[min(floor(0.9 n), n - 1)], at least 1", () => {
    expect(p90([])).toBe(1)
    expect(p90([0, 0])).toBe(1)
    expect(p90([5])).toBe(5)
    // n = 10: index 9 (the largest)
    expect(p90([1, 2, 3, 4, 5, 6, 7, 8, 9, 40])).toBe(40)
    // n = 20: index 18
    expect(p90(Array.from({ length: 20 }, (_, i) => 20 - i))).toBe(19)
    // numeric, not lexical, order
    expect(p90([10, 9, 100, 2])).toBe(100)
  })

  it("frequency is access count over p90, capped at 1; composite is 0.4 rec + 0.6 freq", () => {
    expect(frequency(2, 8)).toBe(0.25)
    expect(frequency(20, 8)).toBe(1)
    expect(frequency(3, 0)).toBe(1)
    expect(composite(0.5, 0.25)).toBeCloseTo(0.35, 12)
    expect(composite(1, 0, { alpha: 0.3, beta: 0.1, wRec: 0.5, wFreq: 0.5 })).toBe(0.5)
  })

  it("a node's strength uses hours since its last access", () => {
    const node = makeNode({ id: "a", type: "semantic", content: "x", createdAt: "2026-03-01T00:00:00.000Z", accessCount: 2 })
    const s = strengthOf(node, "2026-03-02T00:00:00.000Z", 4)
    expect([round3(s.recency), s.frequency, round3(s.composite)]).toEqual([0.693, 0.5, round3(0.4 * 0.693 + 0.3)])
  })

  it("recomputes only the candidates, with the percentile over all access counts", () => {
    const at = "2026-03-01T00:00:00.000Z"
    const nodes = Array.from({ length: 10 }, (_, i) => makeNode({ id: `n${i}`, type: "semantic", content: "x", createdAt: at, accessCount: i + 1 }))
    const result = recomputeStrength([nodes[0]!, nodes[4]!], nodes.map((n) => n.accessCount), at)
    expect(Array.from(result.keys())).toEqual(["n0", "n4"])
    // p90 of 1..10 is 10
    expect(result.get("n4")).toEqual({ recency: 1, frequency: 0.5, composite: 0.4 + 0.3 })
  })

  it("reinforcing a returned result bumps its count and last access only", () => {
    const node = makeNode({ id: "a", type: "semantic", content: "x", createdAt: "2026-03-01T00:00:00.000Z", accessCount: 3 })
    expect(reinforce(node, "2026-03-05T00:00:00.000Z")).toEqual({ ...node, accessCount: 4, lastAccessed: "2026-03-05T00:00:00.000Z" })
  })
})
