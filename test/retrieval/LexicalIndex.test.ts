import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { FileImage, type ImageSource, memorySource } from "../../src/search/binaryImage.js"
import { Bm25Index } from "../support/referenceBm25.js"
import { analyze, porterStem } from "../../src/search/IndexAnalyzer.js"
import { LexicalIndex } from "../../src/search/LexicalIndex.js"

const docs = [
  "My preferred language is Python",
  "The API endpoint is https://api.v1.example.com",
  "Actually, my preferred language is Rust",
  "I live in Cape Town and work on the Orion project",
  "The build server runs on port 9000",
  "Python scripts deploy the Orion build"
]

describe("Porter stemmer", () => {
  it("stems as Porter (1980) does", () => {
    const cases: Record<string, string> = {
      caresses: "caress", ponies: "poni", cats: "cat", agreed: "agre", plastered: "plaster", motoring: "motor",
      hopping: "hop", filing: "file", happy: "happi", relational: "relat", conditional: "condit",
      generalization: "gener", hopefulness: "hope", electrical: "electr", adjustment: "adjust",
      adoption: "adopt", controll: "control", camping: "camp", researching: "research", running: "run"
    }
    for (const [w, stem] of Object.entries(cases)) expect([w, porterStem(w)]).toEqual([w, stem])
    expect(analyze("Camping and campers camped in 2023")).toEqual(["camp", "camper", "camp", "2023"])
  })
})

describe("LexicalIndex", () => {
  it("scores exactly like the reference BM25 over the same documents", () => {
    const ref = new Bm25Index(docs)
    const idx = new LexicalIndex()
    docs.forEach((d, i) => idx.add(`d${i}`, d))
    for (const q of ["preferred language", "orion build python", "port", "what is the endpoint?"]) {
      const expected = ref.search(q, 10).map((h) => ({ key: `d${h.index}`, score: h.score }))
      const got = idx.search(q, 10)
      expect(got.map((h) => h.key)).toEqual(expected.map((h) => h.key))
      got.forEach((h, i) => expect(h.score).toBeCloseTo(expected[i]!.score, 12))
    }
  })

  it("after removals and replacements scores like a fresh index over the live documents", () => {
    const idx = new LexicalIndex()
    docs.forEach((d, i) => idx.add(`d${i}`, d))
    idx.remove("d0")
    idx.add("d4", "The build server runs on port 8080")
    expect(idx.remove("missing")).toBe(false)
    const live = [docs[1]!, docs[2]!, docs[3]!, docs[5]!, "The build server runs on port 8080"]
    const ref = new Bm25Index(live)
    const keys = ["d1", "d2", "d3", "d5", "d4"]
    for (const q of ["preferred language python", "port 8080 server", "9000"]) {
      const expected = ref.search(q, 10).map((h) => [keys[h.index], h.score] as const)
      const got = idx.search(q, 10).map((h) => [h.key, h.score] as const)
      expect(got.length).toBe(expected.length)
      got.forEach(([k, s], i) => {
        expect(k).toBe(expected[i]![0])
        expect(s).toBeCloseTo(expected[i]![1], 12)
      })
    }
    expect(idx.size).toBe(5)
    expect(idx.search("9000", 10)).toEqual([])
  })

  it("keeps working through compaction of many removed documents", () => {
    const idx = new LexicalIndex()
    for (let i = 0; i < 300; i++) idx.add(`k${i}`, `note number${i} about topic${i % 7}`)
    for (let i = 0; i < 290; i++) idx.remove(`k${i}`)
    expect(idx.size).toBe(10)
    const hits = idx.search("topic3", 10)
    expect(hits.map((h) => h.key)).toEqual(["k290", "k297"])
    expect(idx.search("number295", 5).map((h) => h.key)).toEqual(["k295"])
  })

  it("returns the top k of the accepted documents only, and [] for stopword-only queries", () => {
    const idx = new LexicalIndex()
    docs.forEach((d, i) => idx.add(`d${i}`, d))
    expect(idx.search("preferred language", 1, (k) => k !== "d0").map((h) => h.key)).toEqual(["d2"])
    expect(idx.search("what is the", 10)).toEqual([])
    expect(new LexicalIndex().search("python", 10)).toEqual([])
  })

  it("asks accept about documents in rank order, only down to the k-th accepted one", () => {
    const idx = new LexicalIndex()
    for (let i = 0; i < 300; i++) idx.add(`d${i}`, i % 3 === 0 ? "orion orion build" : i % 3 === 1 ? "orion build server" : "orion")
    const asked: Array<string> = []
    const hits = idx.search("orion build", 2, (k) => (asked.push(k), k !== "d0"))
    expect(hits.map((h) => h.key)).toEqual(["d3", "d6"])
    expect(asked).toEqual(["d0", "d3", "d6"])
    // More refused than the first 2k looked at: it reads further down the ranking.
    const far: Array<string> = []
    expect(idx.search("orion build", 2, (k) => (far.push(k), Number(k.slice(1)) >= 290)).map((h) => h.key)).toEqual(["d291", "d294"])
    expect(far).toEqual(Array.from({ length: 99 }, (_, i) => `d${3 * i}`))
  })

  it("a ranking's take looks at no more than the `examined` best (a period question's deeper look stops there)", () => {
    const idx = new LexicalIndex()
    for (let i = 0; i < 300; i++) idx.add(`d${i}`, i % 3 === 0 ? "orion orion build" : i % 3 === 1 ? "orion build server" : "orion")
    const ranking = idx.ranking("orion build")
    const asked: Array<string> = []
    // Nothing passes: exactly the 60 best are asked about, in rank order, and none after them.
    expect(ranking.take(2, (k) => (asked.push(k), false), 60)).toEqual([])
    expect(asked).toEqual(Array.from({ length: 60 }, (_, i) => `d${3 * i}`))
    // d0 … d33 are the 12 best: d30 and d33 pass within 12, only d30 within 11.
    expect(ranking.take(2, (k) => Number(k.slice(1)) >= 30, 12).map((h) => h.key)).toEqual(["d30", "d33"])
    expect(ranking.take(2, (k) => Number(k.slice(1)) >= 30, 11).map((h) => h.key)).toEqual(["d30"])
    expect(ranking.take(2, (k) => Number(k.slice(1)) >= 30).map((h) => h.key)).toEqual(["d30", "d33"])
  })

  it("an index read from a file reads its keys whole once reading them one by one has cost about that much", () => {
    const original = new LexicalIndex()
    for (let i = 0; i < 5_000; i++) original.add(`session-${i}|${i % 20}`, i % 2 === 0 ? "orion build" : "orion")
    const image = original.toBinary()
    const inner = memorySource(image)
    const reads = { count: 0, bytes: 0 }
    const source: ImageSource = {
      size: inner.size,
      inMemory: false,
      bytes: (at, length) => {
        reads.count++
        reads.bytes += length
        return inner.bytes(at, length)?.slice() ?? null
      },
      ints: (at, count) => {
        reads.count++
        reads.bytes += 4 * count
        return inner.ints(at, count)?.slice() ?? null
      },
      intsInto: (at, into) => {
        reads.count++
        reads.bytes += 4 * into.length
        return inner.intsInto(at, into)
      }
    }
    const lazy = LexicalIndex.fromImage(source, 0, image.length)!
    const ranking = lazy.ranking("orion")
    reads.count = reads.bytes = 0
    const all = ranking.take(5_000)
    expect(all).toEqual(original.ranking("orion").take(5_000))
    // The keys' text is 71,390 bytes: four keys read one by one (4 × 16,384 < 71,390 ≤ 5 × 16,384), then all of it
    // once (before: 5,000 reads of one key each).
    expect(reads.count).toBe(5)
    expect(reads.bytes).toBe(71_390 + all.slice(0, 4).reduce((n, h) => n + Buffer.byteLength(h.key), 0))
    reads.count = 0
    expect(lazy.ranking("build").take(10).map((h) => h.key)).toEqual(original.ranking("build").take(10).map((h) => h.key))
    // Only the new term's postings are read now.
    expect(reads.count).toBe(1)
  })

  it("round-trips through its binary form with identical scores, and refuses other bytes", () => {
    const idx = new LexicalIndex({ analyzer: analyze })
    docs.forEach((d, i) => idx.add(`d\u0000${i}`, d))
    idx.remove("d\u00001")
    const copy = LexicalIndex.fromBinary(idx.toBinary(), { analyzer: analyze })
    expect(copy).not.toBeNull()
    expect(copy!.size).toBe(5)
    for (const q of ["python orion build", "preferred languages", "ports"]) expect(copy!.search(q, 10)).toEqual(idx.search(q, 10))
    expect(LexicalIndex.fromBinary(new Uint8Array([1, 2, 3]))).toBeNull()
    expect(LexicalIndex.fromBinary(idx.toBinary().subarray(0, 40))).toBeNull()
  })
  it("an image keeps how often a word occurs in a document: the reference BM25's scores before and after a removal", () => {
    const texts = ["python python python tips", "python once", "rust rust and python", "no match here", "rust tips tips"]
    const idx = new LexicalIndex()
    texts.forEach((t, i) => idx.add(`t${i}`, t))
    const scores = (ix: LexicalIndex, q: string) => ix.search(q, 10).map((h) => [h.key, Number(h.score.toFixed(9))])
    const expected = (keys: ReadonlyArray<number>, q: string) =>
      new Bm25Index(keys.map((i) => texts[i]!)).search(q, 10).map((h) => [`t${keys[h.index]}`, Number(h.score.toFixed(9))])
    const copy = LexicalIndex.fromBinary(idx.toBinary())!
    for (const q of ["python", "rust tips", "tips"]) expect(scores(copy, q)).toEqual(expected([0, 1, 2, 3, 4], q))
    copy.remove("t0")
    const again = LexicalIndex.fromBinary(copy.toBinary())!
    for (const q of ["python", "rust tips", "tips"]) {
      expect(scores(copy, q)).toEqual(expected([1, 2, 3, 4], q))
      expect(scores(again, q)).toEqual(expected([1, 2, 3, 4], q))
    }
    expect(scores(again, "python").map(([key]) => key)).toEqual(["t1", "t2"])
  })
  it("a ranking gives any one document's score, below the top as at it, in memory and from an image", () => {
    const texts = ["python python python tips", "python once", "rust rust and python", "no match here", "rust tips tips"]
    const idx = new LexicalIndex()
    texts.forEach((t, i) => idx.add(`t${i}`, t))
    const expected = new Bm25Index(texts).search("python", 10).map((h) => [`t${h.index}`, Number(h.score.toFixed(9))])
    for (const ix of [idx, LexicalIndex.fromBinary(idx.toBinary())!]) {
      const ranking = ix.ranking("python")
      // Only the best one is taken; the others' scores are still there.
      expect(ranking.take(1).map((h) => h.key)).toEqual(["t0"])
      expect(expected.map(([key]) => [key, Number(ranking.scoreOf(key as string).toFixed(9))])).toEqual(expected)
      expect([ranking.scoreOf("t3"), ranking.scoreOf("t4"), ranking.scoreOf("unknown")]).toEqual([0, 0, 0])
    }
    expect(idx.ranking("nothing matches").scoreOf("t0")).toBe(0)
  })
  it("an index read back from its binary form takes adds, replacements, removals and compaction like the original", () => {
    const texts = Array.from({ length: 300 }, (_, i) => `${docs[i % docs.length]} item${i % 17} extra${i % 5}`)
    const original = new LexicalIndex({ analyzer: analyze })
    texts.forEach((t, i) => original.add(`k${i}`, t))
    const copy = LexicalIndex.fromBinary(original.toBinary(), { analyzer: analyze })!
    for (const idx of [original, copy]) {
      idx.add("k3", "python ports replaced item99")
      idx.add("new1", "orion build item4 extra2")
      for (let i = 0; i < 300; i += 3) idx.remove(`k${i}`)
    }
    const queries = ["python orion build", "preferred languages", "ports item4", "item99 extra2", "extra0 item16"]
    for (const q of queries) expect(copy.search(q, 20)).toEqual(original.search(q, 20))
    // Past the point where holes outnumber live documents: both compact, and still agree.
    for (const idx of [original, copy]) for (let i = 1; i < 300; i += 3) idx.remove(`k${i}`)
    expect(copy.size).toBe(original.size)
    expect(copy.size).toBe(101)
    for (const q of queries) expect(copy.search(q, 20)).toEqual(original.search(q, 20))
    const again = LexicalIndex.fromBinary(copy.toBinary(), { analyzer: analyze })!
    for (const q of queries) expect(again.search(q, 20)).toEqual(original.search(q, 20))
  })

  it("an index read from an image answers has, keys and terms it never held, and reads an image at any byte offset", () => {
    const original = new LexicalIndex({ analyzer: analyze })
    docs.forEach((d, i) => original.add(`d${i}`, d))
    const image = original.toBinary()
    // A file read into a pooled buffer may start at an odd offset: the image is copied once then.
    const unaligned = Buffer.concat([Buffer.alloc(1), Buffer.from(image)]).subarray(1)
    const copy = LexicalIndex.fromBinary(unaligned, { analyzer: analyze })!
    expect([...copy.keys()]).toEqual(["d0", "d1", "d2", "d3", "d4", "d5"])
    expect(copy.has("d4")).toBe(true)
    expect(copy.has("d9")).toBe(false)
    expect(copy.remove("d4")).toBe(true)
    expect(copy.has("d4")).toBe(false)
    copy.add("d4", "zebra crossing near the python office")
    original.remove("d4")
    original.add("d4", "zebra crossing near the python office")
    expect([...copy.keys()].sort()).toEqual(["d0", "d1", "d2", "d3", "d4", "d5"])
    for (const q of ["zebra", "python office", "preferred languages"]) expect(copy.search(q, 10)).toEqual(original.search(q, 10))
    // Compacted past its base, it still knows the base's terms for new documents.
    for (let i = 0; i < 200; i++) copy.add(`x${i}`, `python filler${i}`)
    for (let i = 0; i < 200; i++) copy.remove(`x${i}`)
    copy.add("late", "python zebra")
    original.add("late", "python zebra")
    expect(copy.size).toBe(7)
    for (const q of ["zebra", "python", "preferred languages"]) expect(copy.search(q, 10)).toEqual(original.search(q, 10))
  })

  it("an index read from an image file where asked (at an offset in it) scores, adds, removes and compacts like one read whole", () => {
    const texts = Array.from({ length: 300 }, (_, i) => `${docs[i % docs.length]} item${i % 17} extra${i % 5}`)
    const original = new LexicalIndex({ analyzer: analyze })
    texts.forEach((t, i) => original.add(`k${i}`, t))
    const image = original.toBinary()
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "awhm-lexical-"))
    try {
      const file = path.join(dir, "image.bin")
      fs.writeFileSync(file, Buffer.concat([Buffer.alloc(12, 1), image]))
      const source = new FileImage(fs.openSync(file, "r"))
      const lazy = LexicalIndex.fromImage(source, 12, image.length, { analyzer: analyze })!
      const whole = LexicalIndex.fromBinary(image, { analyzer: analyze })!
      expect(LexicalIndex.fromImage(source, 8, image.length, { analyzer: analyze })).toBeNull()
      const queries = ["python orion build", "preferred languages", "ports item4", "item99 extra2", "extra0 item16"]
      for (const q of queries) {
        expect(lazy.search(q, 20)).toEqual(original.search(q, 20))
        expect(whole.search(q, 20)).toEqual(original.search(q, 20))
      }
      expect(source.bytesRead).toBeLessThan(image.length)
      for (const idx of [original, lazy]) {
        idx.add("k3", "python ports replaced item99")
        idx.add("new1", "orion build item4 extra2")
        for (let i = 0; i < 300; i += 3) idx.remove(`k${i}`)
      }
      for (const q of queries) expect(lazy.search(q, 20)).toEqual(original.search(q, 20))
      for (const idx of [original, lazy]) for (let i = 1; i < 300; i += 3) idx.remove(`k${i}`)
      expect(lazy.size).toBe(101)
      for (const q of queries) expect(lazy.search(q, 20)).toEqual(original.search(q, 20))
      expect(Buffer.from(lazy.toBinary()).equals(Buffer.from(original.toBinary()))).toBe(true)
      source.close()
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
