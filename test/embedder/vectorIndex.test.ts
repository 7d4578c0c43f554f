import { describe, expect, it } from "@effect/vitest"
import { VectorIndex } from "../../src/search/VectorIndex.js"
import { decodeVector, encodeVector } from "../../src/store/compactVector.js"
import { mulberry32, unit } from "../support/randomVectors.js"


/** The obvious implementation: score every vector in float64, sort. */
const naive = (data: Map<string, Float32Array>, q: Float32Array, k: number, filter?: (id: string) => boolean) =>
  [...data]
    .filter(([id]) => filter === undefined || filter(id))
    .map(([id, v]) => ({ id, score: v.reduce((s, x, i) => s + x * q[i]!, 0) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, k)

const expectSame = (got: ReadonlyArray<{ id: string; score: number }>, want: ReadonlyArray<{ id: string; score: number }>) => {
  expect(got.map((h) => h.id)).toEqual(want.map((h) => h.id))
  got.forEach((h, i) => expect(Math.abs(h.score - want[i]!.score)).toBeLessThan(1e-5))
}

describe("VectorIndex", () => {
  for (const dim of [384, 10]) {
    it(`finds exactly the naive top k (dim ${dim}, 2,500 vectors, past the first growth)`, () => {
      const rand = mulberry32(dim)
      const index = new VectorIndex(dim)
      const data = new Map<string, Float32Array>()
      for (let i = 0; i < 2500; i++) {
        const v = unit(rand, dim)
        data.set(`n${i}`, v)
        index.add(`n${i}`, v)
      }
      expect(index.size).toBe(2500)
      for (let q = 0; q < 10; q++) {
        const query = unit(rand, dim)
        for (const k of [1, 10, 100]) expectSame(index.search(query, k), naive(data, query, k))
        const even = (id: string) => Number(id.slice(1)) % 2 === 0
        expectSame(index.search(query, 10, even), naive(data, query, 10, even))
      }
    })
  }

  it("stays exact through replacements and removals", () => {
    const rand = mulberry32(42)
    const index = new VectorIndex(384)
    const data = new Map<string, Float32Array>()
    for (let i = 0; i < 1500; i++) {
      const v = unit(rand, 384)
      data.set(`n${i}`, v)
      index.add(`n${i}`, v)
    }
    for (let i = 0; i < 1500; i += 3) {
      expect(index.remove(`n${i}`)).toBe(true)
      data.delete(`n${i}`)
    }
    for (let i = 1; i < 1500; i += 5) {
      const v = unit(rand, 384)
      data.set(`n${i}`, v)
      index.add(`n${i}`, v) // same id: replaced, not duplicated
    }
    expect(index.remove("n0")).toBe(false)
    expect(index.has("n0")).toBe(false)
    expect(index.has("n1")).toBe(true)
    expect(index.size).toBe(data.size)
    for (let q = 0; q < 10; q++) {
      const query = unit(rand, 384)
      expectSame(index.search(query, 20), naive(data, query, 20))
    }
  })

  it("searches stored compact vectors as they read back, and mixes them with float ones", () => {
    const rand = mulberry32(11)
    const index = new VectorIndex(384)
    const data = new Map<string, Float32Array>()
    for (let i = 0; i < 2000; i++) {
      const v = unit(rand, 384)
      if (i % 2 === 0) {
        const bytes = encodeVector(v)
        expect(index.addCompact(`n${i}`, bytes)).toBe(true)
        data.set(`n${i}`, decodeVector(bytes, 384)!)
      } else {
        index.add(`n${i}`, v)
        data.set(`n${i}`, v)
      }
    }
    for (let i = 0; i < 2000; i += 7) {
      index.remove(`n${i}`)
      data.delete(`n${i}`)
    }
    for (let q = 0; q < 10; q++) {
      const query = unit(rand, 384)
      expectSame(index.search(query, 20), naive(data, query, 20))
      const even = (id: string) => Number(id.slice(1)) % 2 === 0
      expectSame(index.search(query, 10, even), naive(data, query, 10, even))
      for (const id of ["n2", "n3"]) expect(Math.abs(index.score(id, query)! - naive(new Map([[id, data.get(id)!]]), query, 1)[0]!.score)).toBeLessThan(1e-6)
    }
    expect(index.score("n0", unit(rand, 384))).toBeUndefined()
    // Only the compact form of this dimension is taken.
    expect(index.addCompact("bad", encodeVector(unit(rand, 10)))).toBe(false)
    expect(index.has("bad")).toBe(false)
    expect(index.size).toBe(data.size)
  })

  it("scores a compact vector as it reads back: q * scale / 127 against the query", () => {
    const index = new VectorIndex(3)
    index.addCompact("x", encodeVector([1, 0, 0]))
    index.addCompact("y", encodeVector([0, 0.5, 0]))
    index.addCompact("z", encodeVector([0.25, -0.5, 0.125]))
    // z holds [64, -127, 32] in steps of 0.5 / 127.
    const z = [64, -127, 32].map((q) => (q * 0.5) / 127)
    expect(index.search([0.75, 0.25, 0], 3)).toEqual([
      { id: "x", score: 0.75 },
      { id: "y", score: 0.125 },
      { id: "z", score: expect.closeTo(0.75 * z[0]! + 0.25 * z[1]!, 12) }
    ])
    expect(index.score("x", [1, 0, 0])).toBe(1)
  })

  it("finds a stored unit vector itself first, with score 1", () => {
    const rand = mulberry32(7)
    const index = new VectorIndex(384)
    const vs = Array.from({ length: 50 }, () => unit(rand, 384))
    vs.forEach((v, i) => index.add(`m${i}`, v))
    const [top] = index.search(vs[17]!, 1)
    expect(top!.id).toBe("m17")
    expect(top!.score).toBeCloseTo(1, 5)
  })

  it("returns everything when k exceeds the size, nothing for k 0 or an empty index", () => {
    const index = new VectorIndex(4)
    expect(index.search([1, 0, 0, 0], 5)).toEqual([])
    index.add("a", [1, 0, 0, 0])
    index.add("b", [0, 1, 0, 0])
    index.add("c", [0.6, 0.8, 0, 0])
    expect(index.search([1, 0, 0, 0], 0)).toEqual([])
    const hits = index.search([1, 0, 0, 0], 10)
    expect(hits.map((h) => h.id)).toEqual(["a", "c", "b"])
    expect(hits.map((h) => h.score)).toEqual([1, Math.fround(0.6), 0])
  })

  it("breaks ties by the earlier row", () => {
    const index = new VectorIndex(3)
    for (const id of ["x", "y", "z"]) index.add(id, [0, 1, 0])
    expect(index.search([0, 1, 0], 2).map((h) => h.id)).toEqual(["x", "y"])
  })

  it("rejects vectors of the wrong dimension or with non-finite values", () => {
    const index = new VectorIndex(3)
    expect(() => index.add("a", [1, 0])).toThrow(RangeError)
    expect(() => index.add("a", [1, Number.NaN, 0])).toThrow(RangeError)
    expect(() => index.search([1, 0], 1)).toThrow(RangeError)
    expect(() => new VectorIndex(0)).toThrow(RangeError)
    expect(index.size).toBe(0)
  })
})
