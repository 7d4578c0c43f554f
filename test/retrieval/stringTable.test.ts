import { describe, expect, it } from "vitest"
import { type ImageSource, memorySource, StringTable } from "../../src/search/binaryImage.js"

// A table read from its file (as a one-shot process reads the raw log's index): every read counted.
const fileLike = (bytes: Uint8Array) => {
  const inner = memorySource(bytes)
  const counter = { reads: 0 }
  const source: ImageSource = {
    size: inner.size,
    inMemory: false,
    bytes: (at, length) => {
      counter.reads++
      const got = inner.bytes(at, length)
      return got === null ? null : got.slice()
    },
    ints: (at, count) => {
      counter.reads++
      const got = inner.ints(at, count)
      return got === null ? null : got.slice()
    },
    intsInto: (at, into) => {
      counter.reads++
      return inner.intsInto(at, into)
    }
  }
  return { source, counter }
}

const open = (strings: ReadonlyArray<string>, lookup: boolean) => {
  const encoded = StringTable.encode(strings, lookup)
  const { source, counter } = fileLike(encoded)
  const table = StringTable.decodeAt(source, 0, encoded.length)!
  counter.reads = 0
  return { table, counter }
}

// 20,000 sorted terms (as the raw log's term table), and 20,000 keys in arrival order (looked up through the order).
const terms = Array.from({ length: 20_000 }, (_, i) => `t${String(i * 7).padStart(6, "0")}é`).sort()
const keys = Array.from({ length: 20_000 }, (_, i) => `session-${(i * 7919) % 20_000}|${i % 20}`)

describe("StringTable read from a file", () => {
  it("finds every string and misses absent ones, sorted or through its lookup order", () => {
    const sorted = open(terms, false).table
    const byOrder = open(keys, true).table
    for (let i = 0; i < terms.length; i += 97) expect(sorted.indexOf(terms[i]!)).toBe(i)
    for (let i = 0; i < keys.length; i += 97) expect(byOrder.indexOf(keys[i]!)).toBe(i)
    for (const absent of ["", "a", "t", "t000001é", "zzz", terms[0]!.slice(0, -1), terms.at(-1)! + "x"]) expect(sorted.indexOf(absent)).toBe(-1)
    for (const absent of ["", "session-", "session-1|20", "zzz"]) expect(byOrder.indexOf(absent)).toBe(-1)
  })

  it("a sorted table looks a word up in a few reads: the last strings in range come in one read, compared ones are kept", () => {
    const { table, counter } = open(terms, false)
    expect(table.indexOf(terms[12_345]!)).toBe(12_345)
    const first = counter.reads
    // 14 reads before: a binary search over 20,000 read one string per step.
    expect(first).toBe(7)
    counter.reads = 0
    for (let i = 0; i < 200; i++) expect(table.indexOf(terms[(i * 101) % terms.length]!)).toBe((i * 101) % terms.length)
    expect(counter.reads).toBe(256)
  })

  it("a table looked up through its order keeps the strings it compared: later searches read only their new steps", () => {
    const { table, counter } = open(keys, true)
    for (let i = 0; i < 200; i++) expect(table.indexOf(keys[(i * 101) % keys.length]!)).toBe((i * 101) % keys.length)
    // 2,680 before: every step of every search read its string.
    expect(counter.reads).toBe(1_302)
  })
})
