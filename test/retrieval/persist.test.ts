import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { ConfigFromValues } from "../../src/layers/ConfigLive.js"
import { makeGraphStoreMemory } from "../../src/layers/GraphStoreMemory.js"
import { RawLogLive } from "../../src/layers/RawLogLive.js"
import { makeRetrieverLayer } from "../../src/layers/RetrieverLive.js"
import { SessionBufferMemory } from "../../src/layers/SessionBufferMemory.js"
import { MOCK_MODEL_ID, mockEmbedding } from "../../src/layers/EmbedderMock.js"
import { refKey } from "../../src/layers/retriever/rank.js"
import { SAVE_AFTER, storedVectors, writeMessageVectors } from "../../src/layers/retriever/persist.js"
import { storedVector } from "../../src/store/compactVector.js"
import { indexDir, purgeRetrievalIndex } from "../../src/store/indexFiles.js"
import { GraphStore } from "../../src/services/GraphStore.js"
import { RawLog } from "../../src/services/RawLog.js"
import { Retriever } from "../../src/services/Retriever.js"
import { scopedTempDir } from "../support/cli.js"
import { countingEmbedder, graphOf, node } from "./support.js"

// A retriever over a file-backed raw log that keeps its index under <data-dir>/index/, as a CLI process does.
const processLayer = (dataDir: string, embedder = countingEmbedder()) => {
  const config = ConfigFromValues(dataDir)
  return makeRetrieverLayer({ persist: true, warn: () => {} }).pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        RawLogLive,
        SessionBufferMemory,
        Layer.effect(GraphStore, makeGraphStoreMemory(graphOf([node("g", "The backup job runs nightly at 2am")]))),
        embedder.layer
      )
    ),
    Layer.provideMerge(config)
  )
}

const ask = (query: string, options: { lexicalOnly?: boolean } = {}) =>
  Effect.flatMap(Retriever, (r) => r.retrieve(query, options)).pipe(Effect.map((rs) => rs.map((r) => r.content)))

describe("index kept between processes", () => {
  it.scoped("a second process reuses the saved index and message vectors, and still sees new messages", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir("awhm-retrieval-")
      const first = countingEmbedder()
      const before = yield* Effect.gen(function* () {
        const log = yield* RawLog
        yield* log.append({ sessionId: "s1", role: "user", content: "the backup bucket is s3://nightly-archive" })
        yield* log.append({ sessionId: "s1", role: "assistant", content: "restores take about an hour" })
        return yield* ask("backup bucket")
      }).pipe(Effect.provide(processLayer(dir, first)))
      expect(before).toContain("the backup bucket is s3://nightly-archive")
      // Embeddings are worth keeping at once; one graph node is cheaper to re-index than to save.
      expect(fs.readdirSync(indexDir(dir)).sort()).toEqual(["rawlog-positions", "rawlog-vectors.bin", "rawlog.bin"])
      // Both logged messages were embedded once (plus the query).
      expect(first.calls.flat().filter((t) => t !== "backup bucket").length).toBe(2)

      const second = countingEmbedder()
      const after = yield* Effect.gen(function* () {
        yield* (yield* RawLog).append({ sessionId: "s2", role: "user", content: "the backup window moved to 3am" })
        return yield* ask("backup window bucket")
      }).pipe(Effect.provide(processLayer(dir, second)))
      expect(after).toContain("the backup window moved to 3am")
      expect(after).toContain("the backup bucket is s3://nightly-archive")
      // Only the new message and the query were embedded by the second process.
      expect(second.calls.flat().sort()).toEqual(["backup window bucket", "the backup window moved to 3am"])
    })
  )

  it.scoped("message vectors are kept compact; a float32 vector file of an older version is read, not re-embedded, and rewritten as one compact image", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir("awhm-retrieval-")
      const texts = ["the backup bucket is s3://nightly-archive", "restores take about an hour"]
      yield* Effect.gen(function* () {
        const log = yield* RawLog
        for (const content of texts) yield* log.append({ sessionId: "s1", role: "user", content })
        return yield* ask("backup bucket")
      }).pipe(Effect.provide(processLayer(dir)))
      const file = path.join(indexDir(dir), "rawlog-vectors.bin")
      const saved = storedVectors(dir, MOCK_MODEL_ID)
      expect(saved.map(([, v]) => Array.from(v))).toEqual(texts.map((t) => Array.from(storedVector(mockEmbedding(t)))))
      // 8 bytes of magic, the model id (padded to 4 bytes), no image yet (a 0 length), then per record 8 bytes,
      // the key and 4 + dim bytes.
      const keyBytes = saved.reduce((n, [k]) => n + Buffer.byteLength(k), 0)
      const dim = mockEmbedding("x").length
      const idBytes = Math.ceil(Buffer.byteLength(MOCK_MODEL_ID) / 4) * 4
      expect(fs.statSync(file).size).toBe(12 + idBytes + 4 + keyBytes + 2 * (8 + 4 + dim))
      expect(fs.readFileSync(file).toString("latin1", 0, 8)).toBe("AWHMVEC3")

      // The same file as an older version wrote it: the exact float32 vectors.
      const id = Buffer.from(MOCK_MODEL_ID, "utf8")
      const parts: Array<Buffer> = [Buffer.from("AWHMVEC1", "latin1"), Buffer.alloc(4), id]
      parts[1]!.writeUInt32LE(id.length)
      saved.forEach(([key], i) => {
        const v = mockEmbedding(texts[i]!)
        const head = Buffer.alloc(8)
        head.writeUInt32LE(Buffer.byteLength(key), 0)
        head.writeUInt32LE(v.length, 4)
        parts.push(head, Buffer.from(key, "utf8"), Buffer.from(v.buffer, v.byteOffset, v.byteLength))
      })
      fs.writeFileSync(file, Buffer.concat(parts))
      const second = countingEmbedder()
      const found = yield* ask("nightly archive restores").pipe(Effect.provide(processLayer(dir, second)))
      expect(found).toContain("the backup bucket is s3://nightly-archive")
      expect(second.calls).toEqual([["nightly archive restores"]])
      // Rewritten as one image of the vectors, with no records after it.
      const rewritten = fs.readFileSync(file)
      expect(rewritten.toString("latin1", 0, 8)).toBe("AWHMVEC3")
      const imageLength = rewritten.readUInt32LE(12 + idBytes)
      // The image: its head (8 + 4 per section), dim and count, the two keys (count, lookup flag, two ends, the
      // sorted order, the text), two scales, two sums of squares, two int8 rows of 16-byte stride.
      const pad = (n: number) => Math.ceil(n / 4) * 4
      expect(imageLength).toBe(8 + 4 * 5 + 8 + pad(8 + 2 * 4 + 2 * 4 + keyBytes) + 2 * 4 + 2 * 4 + 2 * Math.ceil(dim / 16) * 16)
      expect(rewritten.length).toBe(12 + idBytes + 4 + imageLength)
      expect(storedVectors(dir, MOCK_MODEL_ID).map(([k, v]) => [k, Array.from(v)])).toEqual(saved.map(([k, v]) => [k, Array.from(v)]))
    })
  )

  it.scoped("a saved index whose messages all had vectors spares the check of every message, unless the vector file is gone", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir("awhm-retrieval-")
      const texts = ["the backup bucket is s3://nightly-archive", "restores take about an hour"]
      const embedded = (embedder: ReturnType<typeof countingEmbedder>) => embedder.calls.flat().sort()
      const first = countingEmbedder()
      yield* Effect.gen(function* () {
        const log = yield* RawLog
        for (const content of texts) yield* log.append({ sessionId: "s1", role: "user", content })
        return yield* ask("backup bucket")
      }).pipe(Effect.provide(processLayer(dir, first)))
      expect(embedded(first)).toEqual(["backup bucket", ...texts].sort())
      // The vectors as one image (as a rewrite leaves them), then a new message: only it and the query are embedded.
      writeMessageVectors({ dataDir: dir, modelId: MOCK_MODEL_ID, stamp: 0 }, storedVectors(dir, MOCK_MODEL_ID))
      const second = countingEmbedder()
      const found = yield* Effect.gen(function* () {
        yield* (yield* RawLog).append({ sessionId: "s2", role: "user", content: "the backup window moved to 3am" })
        return yield* ask("backup window")
      }).pipe(Effect.provide(processLayer(dir, second)))
      expect(found).toContain("the backup window moved to 3am")
      expect(embedded(second)).toEqual(["backup window", "the backup window moved to 3am"])
      // The vector file removed: the saved index cannot vouch any more, so every message is embedded again.
      fs.rmSync(path.join(indexDir(dir), "rawlog-vectors.bin"))
      const third = countingEmbedder()
      yield* ask("nightly archive").pipe(Effect.provide(processLayer(dir, third)))
      expect(embedded(third)).toEqual(["nightly archive", "the backup window moved to 3am", ...texts].sort())
    })
  )

  it.scoped("a view saved by lexical-only queries is not rewritten by the first semantic one: a note beside it says every message has a vector", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir("awhm-retrieval-")
      const texts = Array.from({ length: SAVE_AFTER + 10 }, (_, i) => `release checklist item ${i} is signed off`)
      yield* Effect.gen(function* () {
        const log = yield* RawLog
        for (const content of texts) yield* log.append({ sessionId: "s1", role: "user", content })
        return yield* ask("checklist item 7", { lexicalOnly: true })
      }).pipe(Effect.provide(processLayer(dir)))
      // Every message's vector in the file (as the bench's seeder writes them), the view saved without a word of them.
      writeMessageVectors({ dataDir: dir, modelId: MOCK_MODEL_ID, stamp: 0 }, texts.map((t, i) => [refKey("s1", i), mockEmbedding(t)] as const))
      const view = path.join(indexDir(dir), "rawlog.bin")
      const saved = `${fs.statSync(view).ino} ${fs.statSync(view).mtimeMs}`
      const semantic = countingEmbedder()
      expect(yield* ask("checklist item 7").pipe(Effect.provide(processLayer(dir, semantic)))).toContain("release checklist item 7 is signed off")
      expect(semantic.calls.flat()).toEqual(["checklist item 7"])
      expect(`${fs.statSync(view).ino} ${fs.statSync(view).mtimeMs}`).toBe(saved)
      expect(JSON.parse(fs.readFileSync(path.join(indexDir(dir), "rawlog-listed"), "utf8")).embeddedFor).toBe(MOCK_MODEL_ID)
      // The next process takes the note's word; a new message is embedded, and saved with the view once worth it.
      const next = countingEmbedder()
      const found = yield* Effect.gen(function* () {
        yield* (yield* RawLog).append({ sessionId: "s2", role: "user", content: "the checklist moved to the wiki" })
        return yield* ask("checklist wiki")
      }).pipe(Effect.provide(processLayer(dir, next)))
      expect(found).toContain("the checklist moved to the wiki")
      expect(next.calls.flat().sort()).toEqual(["checklist wiki", "the checklist moved to the wiki"])
      // The vector file removed: neither the view nor the note can vouch any more, so every message is embedded again.
      fs.rmSync(path.join(indexDir(dir), "rawlog-vectors.bin"))
      const third = countingEmbedder()
      yield* ask("checklist item 9").pipe(Effect.provide(processLayer(dir, third)))
      expect(third.calls.flat().length).toBe(texts.length + 2)
    })
  )

  it.scoped("a damaged index is ignored; purgeRetrievalIndex removes it", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir("awhm-retrieval-")
      fs.mkdirSync(indexDir(dir), { recursive: true })
      fs.writeFileSync(path.join(indexDir(dir), "rawlog.bin"), "AWIX{not json")
      fs.writeFileSync(path.join(indexDir(dir), "graph-lexical.bin"), "not an index at all")
      const found = yield* Effect.gen(function* () {
        yield* (yield* RawLog).append({ sessionId: "s1", role: "user", content: "the canary host is cn-4" })
        return yield* ask("canary host", { lexicalOnly: true })
      }).pipe(Effect.provide(processLayer(dir)))
      expect(found).toEqual(["the canary host is cn-4"])
      purgeRetrievalIndex(dir, "d1")
      expect(fs.existsSync(indexDir(dir))).toBe(false)
    })
  )

  it.scoped("the cache is rewritten after many new messages, not for each prompt; new messages are always seen", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir("awhm-retrieval-")
      const file = path.join(indexDir(dir), "rawlog.bin")
      yield* Effect.gen(function* () {
        const log = yield* RawLog
        for (let i = 0; i < SAVE_AFTER; i++) yield* log.append({ sessionId: `s${i % 7}`, role: "user", content: `note ${i} about topic${i}` })
        yield* ask("topic3", { lexicalOnly: true })
      }).pipe(Effect.provide(processLayer(dir)))
      const saved = fs.readFileSync(file, "latin1")
      expect(saved.startsWith("AWI3")).toBe(true)
      expect(saved).toContain("note 7 about topic7")
      const found = yield* Effect.gen(function* () {
        yield* (yield* RawLog).append({ sessionId: "s1", role: "user", content: "the pager rota is on the wiki" })
        return yield* ask("pager rota", { lexicalOnly: true })
      }).pipe(Effect.provide(processLayer(dir)))
      expect(found).toEqual(["the pager rota is on the wiki"])
      expect(fs.readFileSync(file, "latin1")).toBe(saved)
    })
  )

  it.scoped("a removed message leaves the saved index at the next query", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir("awhm-retrieval-")
      const file = path.join(indexDir(dir), "rawlog.bin")
      yield* Effect.gen(function* () {
        const log = yield* RawLog
        yield* log.append({ sessionId: "s1", role: "user", content: "my token is alpha-123-secret" })
        yield* log.append({ sessionId: "s1", role: "user", content: "the token expires in june" })
        yield* ask("token")
      }).pipe(Effect.provide(processLayer(dir)))
      expect(fs.readFileSync(file, "utf8")).toContain("alpha-123-secret")
      const after = yield* Effect.gen(function* () {
        yield* (yield* RawLog).removeEntries("s1", new Set([0]))
        return yield* ask("token", { lexicalOnly: true })
      }).pipe(Effect.provide(processLayer(dir)))
      expect(after).toEqual(["the token expires in june"])
      expect(fs.readFileSync(file, "utf8")).not.toContain("alpha-123-secret")
    })
  )
})
