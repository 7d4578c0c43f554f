import { describe, expect, it } from "@effect/vitest"
import { VectorIndex } from "../../src/search/VectorIndex.js"
import { decodeVector, encodeVector, storedVector } from "../../src/store/compactVector.js"
import { mulberry32, unit } from "../support/randomVectors.js"

const float32Bytes = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength)

describe("compact vectors (int8 with a scale)", () => {
  it("stores the largest magnitude as float32, then each component in steps of it / 127", () => {
    const bytes = encodeVector(Float32Array.from([0.25, -0.5, 0.125, 1 / 3]))
    expect(bytes.length).toBe(8)
    expect(bytes.readFloatLE(0)).toBe(0.5)
    expect(Array.from(new Int8Array(Uint8Array.from(bytes.subarray(4)).buffer))).toEqual([64, -127, 32, 85])
    expect(Array.from(decodeVector(bytes, 4)!)).toEqual([64, -127, 32, 85].map((q) => Math.fround((q * 0.5) / 127)))
    // A zero vector stays zero; the largest component comes back exact.
    expect(Array.from(storedVector(new Float32Array(3)))).toEqual([0, 0, 0])
    expect(Array.from(storedVector(Float32Array.from([0, 0.9, 0])))).toEqual([0, Math.fround(0.9), 0])
  })

  it("reads the older float32 bytes too, and nothing else", () => {
    const v = Float32Array.from([0.25, -0.5, 0.125, 1 / 3])
    expect(decodeVector(float32Bytes(v), 4)).toEqual(v)
    expect(decodeVector(Buffer.alloc(7), 4)).toBeNull()
    expect(decodeVector(Buffer.alloc(12), 4)).toBeNull()
  })

  it("storing a stored vector again changes nothing; each component is within scale / 254", () => {
    const rand = mulberry32(7)
    for (let i = 0; i < 200; i++) {
      const v = unit(rand, 384)
      const once = storedVector(v)
      expect(storedVector(once)).toEqual(once)
      expect(encodeVector(once).equals(encodeVector(v))).toBe(true)
      const scale = Math.max(...v.map(Math.abs))
      const worst = Math.max(...v.map((x, d) => Math.abs(x - once[d]!)))
      expect(worst).toBeLessThanOrEqual(scale / 254 + 1e-7)
    }
  })

  it("vectors read back rank as the float32 originals up to near ties (1,000 random unit vectors, 200 queries)", () => {
    const rand = mulberry32(384)
    const originals = new Map<string, Float32Array>()
    const exact = new VectorIndex(384)
    const compact = new VectorIndex(384)
    for (let i = 0; i < 1000; i++) {
      const v = unit(rand, 384)
      originals.set(`n${i}`, v)
      exact.add(`n${i}`, v)
      compact.add(`n${i}`, decodeVector(encodeVector(v), 384)!)
    }
    const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, d) => s + x * b[d]!, 0)
    let sameOrder = 0
    let sameSet = 0
    for (let q = 0; q < 200; q++) {
      const query = unit(rand, 384)
      const want = exact.search(query, 10)
      const got = compact.search(query, 10)
      if (got.map((h) => h.id).join() === want.map((h) => h.id).join()) sameOrder++
      if (got.map((h) => h.id).sort().join() === want.map((h) => h.id).sort().join()) sameSet++
      for (const h of got) {
        const truth = dot(originals.get(h.id)!, query)
        // Each score is within 0.001 of the exact one, so a hit is at worst a near tie of the exact 10th.
        expect(Math.abs(h.score - truth)).toBeLessThan(0.001)
        expect(truth).toBeGreaterThan(want[9]!.score - 0.002)
      }
    }
    // Random unit vectors crowd together (top-10 gaps ~0.005); real embeddings are less dense.
    expect({ sameOrder, sameSet }).toEqual({ sameOrder: 148, sameSet: 191 })
  })
})
