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

  describe("as an image (toImage / fromImage)", () => {
    const build = (n: number, dim: number, seed: number) => {
      const rand = mulberry32(seed)
      const index = new VectorIndex(dim)
      for (let i = 0; i < n; i++) index.addCompact(`m${i}:s${i % 7}`, encodeVector(unit(rand, dim)))
      return { index, rand }
    }

    it("opens with the same answers: hits and scores bit for bit, lookups, sizes (2,000 rows past the first growth)", () => {
      const { index, rand } = build(2000, 384, 7)
      const image = index.toImage()!
      const opened = VectorIndex.fromImage(image)!
      expect(opened.size).toBe(2000)
      expect(opened.dim).toBe(384)
      for (let q = 0; q < 5; q++) {
        const query = unit(rand, 384)
        expect(opened.search(query, 10)).toEqual(index.search(query, 10))
        const few = (id: string) => id.endsWith(":s3")
        expect(opened.search(query, 10, few)).toEqual(index.search(query, 10, few))
        expect(opened.score("m17:s3", query)).toBe(index.score("m17:s3", query))
      }
      expect([opened.has("m1999:s4"), opened.has("m2000:s5"), opened.score("nope", unit(rand, 384))]).toEqual([true, false, undefined])
      expect([...opened.entries()].map(([id, v]) => [id, Array.from(v)])).toEqual([...index.entries()].map(([id, v]) => [id, Array.from(v)]))
      // The same image again from the opened index; and from a copy at an odd offset (read once more, aligned).
      expect(Buffer.from(opened.toImage()!).equals(Buffer.from(image))).toBe(true)
      const odd = new Uint8Array(image.length + 1)
      odd.set(image, 1)
      expect(VectorIndex.fromImage(odd.subarray(1))!.search(unit(mulberry32(1), 384), 5)).toEqual(index.search(unit(mulberry32(1), 384), 5))
    })

    it("reads an image from within a file straight into its memory (readImage), and refuses a cut or shifted one", () => {
      const { index, rand } = build(1500, 384, 5)
      const image = index.toImage()!
      const file = new Uint8Array(3 + image.length + 5)
      file.set(image, 3)
      const read = (into: Uint8Array, position: number) => {
        const part = file.subarray(position, position + into.length)
        into.set(part)
        return part.length
      }
      const opened = VectorIndex.readImage(read, 3, image.length)!
      const query = unit(rand, 384)
      expect(opened.search(query, 10)).toEqual(index.search(query, 10))
      expect([...opened.entries()].map(([id, v]) => [id, Array.from(v)])).toEqual([...index.entries()].map(([id, v]) => [id, Array.from(v)]))
      expect(Buffer.from(opened.toImage()!).equals(Buffer.from(image))).toBe(true)
      // A length other than the image's, a place that is not its start, a file cut inside its rows.
      expect(VectorIndex.readImage(read, 3, image.length - 1)).toBeNull()
      expect(VectorIndex.readImage(read, 4, image.length)).toBeNull()
      const cut = (into: Uint8Array, position: number) => read(into.subarray(0, Math.max(0, Math.min(into.length, 3 + image.length - 100 - position))), position)
      expect(VectorIndex.readImage(cut, 3, image.length)).toBeNull()
    })

    it("leaves an image's rows in its file (readImage with rows): searches read them in chunks with the same answers, until a warm process reads them in", () => {
      // 20,000 rows: the file is read in chunks of 8,192 (two whole, one part).
      const dim = 16
      const { index, rand } = build(20_000, dim, 9)
      const image = index.toImage()!
      const file = new Uint8Array(3 + image.length)
      file.set(image, 3)
      let bytesRead = 0
      let closed = 0
      const read = (into: Uint8Array, position: number) => {
        const part = file.subarray(position, position + into.length)
        into.set(part)
        bytesRead += part.length
        return part.length
      }
      const opened = VectorIndex.readImage(read, 3, image.length, { read, close: () => closed++ })!
      const rowBytes = 20_000 * dim
      // Opening reads everything but the rows (its 28-byte head twice).
      expect(bytesRead).toBe(image.length - rowBytes + 28)
      const opening = bytesRead
      const queries = Array.from({ length: 4 }, () => unit(rand, dim))
      const few = (id: string) => id.endsWith(":s3")
      // The first two searches stream the rows.
      expect(opened.search(queries[0]!, 10, few)).toEqual(index.search(queries[0]!, 10, few))
      expect(bytesRead - opening).toBe(rowBytes)
      // A row added after opening is held in memory and searched with the file's.
      for (const ix of [index, opened]) ix.addCompact("new:s3", encodeVector(queries[1]!))
      const hits = opened.search(queries[1]!, 100)
      expect(hits).toEqual(index.search(queries[1]!, 100))
      expect(hits[0]!.id).toBe("new:s3")
      expect(bytesRead - opening).toBe(2 * rowBytes)
      expect(closed).toBe(0)
      // A row in the file scores as it does in memory, read alone.
      expect(opened.score("m12345:s4", queries[2]!)).toBe(index.score("m12345:s4", queries[2]!))
      expect(opened.score("new:s3", queries[2]!)).toBe(index.score("new:s3", queries[2]!))
      // The third search reads the rows in once and lets the file go; later ones read nothing.
      const before = bytesRead
      expect(opened.search(queries[2]!, 10)).toEqual(index.search(queries[2]!, 10))
      expect(opened.search(queries[3]!, 10, few)).toEqual(index.search(queries[3]!, 10, few))
      expect([bytesRead - before, closed]).toEqual([rowBytes, 1])
      expect(Buffer.from(opened.toImage()!).equals(Buffer.from(index.toImage()!))).toBe(true)
    })

    it("reads an image's rows in when a row in its file changes, with the same answers after", () => {
      const { index, rand } = build(9_000, 16, 13)
      const image = index.toImage()!
      let closed = 0
      const read = (into: Uint8Array, position: number) => {
        const part = image.subarray(position, position + into.length)
        into.set(part)
        return part.length
      }
      const opened = VectorIndex.readImage(read, 0, image.length, { read, close: () => closed++ })!
      for (const ix of [index, opened]) {
        ix.addCompact("m8999:s4", encodeVector(unit(mulberry32(21), 16)))
        ix.addCompact("m2:s2", encodeVector(unit(mulberry32(22), 16)))
        ix.remove("m4:s4")
      }
      expect(closed).toBe(1)
      const query = unit(rand, 16)
      expect(opened.search(query, 50)).toEqual(index.search(query, 50))
      expect(opened.size).toBe(8_999)
    })

    it("takes changes after opening as the index it was made from does (many lookups move its ids into a map)", () => {
      const { index, rand } = build(600, 16, 11)
      const opened = VectorIndex.fromImage(index.toImage()!)!
      for (const ix of [index, opened]) {
        ix.remove("m5:s5")
        ix.addCompact("m7:s0", encodeVector(unit(mulberry32(3), 16)))
        ix.addCompact("new:s1", encodeVector(unit(mulberry32(4), 16)))
      }
      expect(opened.size).toBe(600)
      const query = unit(rand, 16)
      expect(opened.search(query, 600)).toEqual(index.search(query, 600))
      const lookedUp = VectorIndex.fromImage(index.toImage()!)!
      for (let i = 0; i < 600; i++) expect(lookedUp.has(`m${i}:s${i % 7}`)).toBe(i !== 5)
      expect(lookedUp.search(query, 3)).toEqual(index.search(query, 3))
    })

    it("adds rows after an image's own (its ids stay in the image), in row order, then removes as the index it was made from", () => {
      const { index, rand } = build(600, 16, 13)
      const opened = VectorIndex.fromImage(index.toImage()!)!
      const f = unit(mulberry32(7), 16)
      for (const ix of [index, opened]) {
        ix.addCompact("new1:s1", encodeVector(unit(mulberry32(5), 16)))
        ix.addCompact("m7:s0", encodeVector(unit(mulberry32(6), 16)))
        ix.add("f:s2", f)
      }
      const ids = (ix: VectorIndex) => [...ix.entries()].map(([id]) => id)
      expect([opened.size, ids(opened).slice(598), opened.has("new1:s1"), opened.has("m599:s4")]).toEqual([
        602,
        ["m598:s3", "m599:s4", "new1:s1", "f:s2"],
        true,
        true
      ])
      const query = unit(rand, 16)
      expect(opened.search(query, 602)).toEqual(index.search(query, 602))
      expect(opened.score("f:s2", query)).toBe(index.score("f:s2", query))
      expect(opened.toImage()).toBeNull()
      for (const ix of [index, opened]) ix.remove("m3:s3")
      expect(ids(opened).slice(0, 5)).toEqual(["m0:s0", "m1:s1", "m2:s2", "f:s2", "m4:s4"])
      expect(ids(opened)).toEqual(ids(index))
      for (const ix of [index, opened]) ix.remove("f:s2")
      const reopened = VectorIndex.fromImage(opened.toImage()!)!
      expect([reopened.size, reopened.search(query, 600)]).toEqual([600, index.search(query, 600)])
    })

    it("keeps only the rows asked for; refuses rows held as floats and bytes that are not an image", () => {
      const { index, rand } = build(50, 8, 5)
      const kept = VectorIndex.fromImage(index.toImage((id) => id.endsWith(":s0"))!)!
      expect([...kept.entries()].map(([id]) => id)).toEqual(["m0:s0", "m7:s0", "m14:s0", "m21:s0", "m28:s0", "m35:s0", "m42:s0", "m49:s0"])
      const query = unit(rand, 8)
      expect(kept.search(query, 3)).toEqual(index.search(query, 3, (id) => id.endsWith(":s0")))
      const floats = new VectorIndex(8)
      floats.add("f", unit(rand, 8))
      expect(floats.toImage()).toBeNull()
      const image = index.toImage()!
      expect(VectorIndex.fromImage(image.subarray(0, image.length - 4))).toBeNull()
      expect(VectorIndex.fromImage(new Uint8Array(64))).toBeNull()
      expect(VectorIndex.fromImage(Buffer.from("AVI1 not an image at all"))).toBeNull()
    })
  })
})
