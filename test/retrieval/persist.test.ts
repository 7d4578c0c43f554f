import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { ConfigFromValues } from "../../src/layers/ConfigLive.js"
import { makeGraphStoreMemory } from "../../src/layers/GraphStoreMemory.js"
import { RawLogLive } from "../../src/layers/RawLogLive.js"
import { makeRetrieverLayer } from "../../src/layers/RetrieverLive.js"
import { SessionBufferMemory } from "../../src/layers/SessionBufferMemory.js"
import { clearRetrievalIndex, indexDir } from "../../src/programs/retrieve/persist.js"
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
      expect(fs.readdirSync(indexDir(dir)).sort()).toEqual(["graph-lexical.json", "rawlog-vectors.bin", "rawlog.json"])
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

  it.scoped("a damaged index is ignored and rebuilt; clearRetrievalIndex removes it", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir("awhm-retrieval-")
      fs.mkdirSync(indexDir(dir), { recursive: true })
      fs.writeFileSync(path.join(indexDir(dir), "rawlog.json"), "{not json")
      fs.writeFileSync(path.join(indexDir(dir), "graph-lexical.json"), JSON.stringify({ version: 1, analyzer: "other" }))
      const found = yield* Effect.gen(function* () {
        yield* (yield* RawLog).append({ sessionId: "s1", role: "user", content: "the canary host is cn-4" })
        return yield* ask("canary host", { lexicalOnly: true })
      }).pipe(Effect.provide(processLayer(dir)))
      expect(found).toEqual(["the canary host is cn-4"])
      expect(JSON.parse(fs.readFileSync(path.join(indexDir(dir), "rawlog.json"), "utf8")).version).toBe(1)
      clearRetrievalIndex(dir)
      expect(fs.existsSync(indexDir(dir))).toBe(false)
    })
  )
})
