import * as fs from "node:fs"
import * as path from "node:path"
import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { makeNode, type MemoryNode } from "../../src/domain/Node.js"
import type { NodeFilter } from "../../src/domain/nodeFilter.js"
import { makeGraphStoreSqlite } from "../../src/layers/GraphStoreSqlite.js"
import { vectorImageFiles } from "../../src/layers/graph/sqliteVectors.js"
import { graphVectorsFile } from "../../src/store/indexFiles.js"
import { tempDir } from "../support/graphFixtures.js"

// Each store opened here is what another process would open: its own connection and caches.
const open = (dir: string) =>
  makeGraphStoreSqlite({
    file: path.join(dir, "graph", "memory_graph.sqlite"),
    snapshotsDir: path.join(dir, "snapshots"),
    vectorImage: vectorImageFiles(dir)
  })
const inspect = (dir: string) =>
  SqliteClient.make({ filename: path.join(dir, "graph", "memory_graph.sqlite") }).pipe(Effect.provide(Reactivity.layer))

const unit = (...xs: Array<number>) => {
  const n = Math.hypot(...xs)
  return Float32Array.from(xs.map((x) => x / n))
}
const node = (id: string, v: Float32Array): MemoryNode =>
  makeNode({ id, type: "semantic", content: `memory ${id}`, createdAt: "2026-03-01T10:00:00.000Z", embedding: v, embedModel: "m" })
const filter: NodeFilter = { asOf: null, includeHistory: false, now: "2026-06-01T00:00:00.000Z", scope: null }
const top = (store: Effect.Effect.Success<ReturnType<typeof open>>, v: Float32Array) =>
  Effect.map(store.vectorTopK({ vector: v, modelId: "m", k: 3, filter }), (hits) => hits?.map((h) => h.id) ?? null)

const savedVersion = (dir: string) => {
  const bytes = fs.readFileSync(graphVectorsFile(dir))
  // packSections: magic, count, two lengths, then the meta JSON.
  return (JSON.parse(bytes.subarray(16, 16 + bytes.readUInt32LE(8)).toString("utf8")) as { version: number }).version
}

describe("GraphStoreSqlite's vector image", () => {
  it.scopedLive("is saved by the first search; another process opens it and follows the writers' changes, deletions included", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      const writer = yield* open(dir)
      yield* writer.commit({
        upsertNodes: [node("east", unit(1, 0, 0, 0)), node("north", unit(0, 1, 0, 0)), node("private-key-note", unit(0.9, 0.1, 0, 0))]
      })
      expect(yield* top(writer, unit(1, 0, 0, 0))).toEqual(["east", "private-key-note", "north"])
      const sql = yield* inspect(dir)
      const version = async () => Number((await Effect.runPromise(sql<{ value: string }>`SELECT value FROM meta WHERE key = 'vectors_version'`))[0]!.value)
      expect(savedVersion(dir)).toBe(yield* Effect.promise(version))

      const reader = yield* open(dir)
      expect(yield* top(reader, unit(0, 1, 0, 0))).toEqual(["north", "private-key-note", "east"])
      // One vector changed, one node deleted, one added: the reader sees all three.
      yield* writer.commit({ upsertNodes: [node("north", unit(0, 0, 1, 0)), node("up", unit(0, 1, 0.1, 0))], deleteNodes: ["private-key-note"] })
      expect(yield* top(reader, unit(0, 1, 0, 0))).toEqual(["up", "east", "north"])
      expect(yield* top(reader, unit(0, 0, 1, 0))).toEqual(["north", "up", "east"])
      // The image it saved is of the new version, and the deleted node's vector is not in it.
      expect(savedVersion(dir)).toBe(yield* Effect.promise(version))
      expect(fs.readFileSync(graphVectorsFile(dir)).includes("private-key-note")).toBe(false)
      const third = yield* open(dir)
      expect(yield* top(third, unit(0, 1, 0, 0))).toEqual(["up", "east", "north"])
    })
  )

  it.scopedLive("a new process answers from the image, not the rows; an image of another history is read again from the rows", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      const writer = yield* open(dir)
      yield* writer.commit({ upsertNodes: [node("a", unit(1, 0, 0, 0)), node("b", unit(0, 1, 0, 0))] })
      expect(yield* top(writer, unit(1, 0, 0, 0))).toEqual(["a", "b"])
      // A change no writer logged (as no awhm writer makes): the image does not know it.
      const sql = yield* inspect(dir)
      yield* sql`DROP TRIGGER node_vectors_update`
      const b = (yield* sql<{ embedding: Uint8Array }>`SELECT embedding FROM node_vectors WHERE node_id = 'b'`)[0]!.embedding
      yield* sql`UPDATE node_vectors SET embedding = ${b} WHERE node_id = 'a'`
      expect(yield* top(yield* open(dir), unit(1, 0, 0, 0))).toEqual(["a", "b"])
      // The log's entry at the image's version names another node: another history, so the rows are read.
      yield* sql`UPDATE vector_changes SET node_id = 'someone-else' WHERE version = (SELECT max(version) FROM vector_changes)`
      const hits = yield* (yield* open(dir)).vectorTopK({ vector: unit(0, 1, 0, 0), modelId: "m", k: 2, filter })
      expect(hits?.map((h) => [h.id, Math.round(h.score * 1000) / 1000])).toEqual([["a", 1], ["b", 1]])
    })
  )

  it.scopedLive("a search inside a write (updatePart) leaves the image as it was; the next search outside saves it", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      const writer = yield* open(dir)
      yield* writer.commit({ upsertNodes: [node("a", unit(1, 0, 0, 0)), node("b", unit(0, 1, 0, 0))] })
      expect(yield* top(writer, unit(1, 0, 0, 0))).toEqual(["a", "b"])
      const saved = savedVersion(dir)
      yield* writer.commit({ upsertNodes: [node("c", unit(0, 0, 1, 0))] })
      // Another process's write: it follows the log from the saved image, finds "c", and adds "d".
      const seen = yield* (yield* open(dir)).updatePart((reader) =>
        Effect.map(reader.vectorTopK({ vector: unit(0, 0, 1, 0), modelId: "m", k: 1, filter }), (hits) =>
          [hits?.map((h) => h.id) ?? null, { upsertNodes: [node("d", unit(0, 0, 0, 1))] }] as const
        )
      )
      expect(seen).toEqual(["c"])
      expect(savedVersion(dir)).toBe(saved)
      const reader = yield* open(dir)
      expect(yield* top(reader, unit(0, 0, 0, 1))).toEqual(["d", "a", "b"])
      expect(savedVersion(dir)).toBeGreaterThan(saved)
      expect(yield* top(yield* open(dir), unit(0, 0, 1, 0))).toEqual(["c", "a", "b"])
    })
  )

  it.scopedLive("a write that found no image and read every row saves one after its commit, of the committed version", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      const writer = yield* open(dir)
      // Written, never searched: no image yet (as after a fresh import, or a hard delete that removed it).
      yield* writer.commit({ upsertNodes: [node("a", unit(1, 0, 0, 0)), node("b", unit(0, 1, 0, 0))] })
      expect(fs.existsSync(graphVectorsFile(dir))).toBe(false)
      const seen = yield* (yield* open(dir)).updatePart((reader) =>
        Effect.map(reader.vectorTopK({ vector: unit(0, 1, 0, 0), modelId: "m", k: 1, filter }), (hits) =>
          [hits?.map((h) => h.id) ?? null, { upsertNodes: [node("c", unit(0, 0, 1, 0))] }] as const
        )
      )
      expect(seen).toEqual(["b"])
      const sql = yield* inspect(dir)
      const [row] = yield* sql<{ value: string }>`SELECT value FROM meta WHERE key = 'vectors_version'`
      expect(savedVersion(dir)).toBe(Number(row!.value))
      // It holds the write's own vector too: a new process answers from it.
      expect(yield* top(yield* open(dir), unit(0, 0, 1, 0))).toEqual(["c", "a", "b"])
    })
  )

  it.scopedLive("letting go of the files during another fiber's search leaves that search whole; the file closes when it ends", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      const writer = yield* open(dir)
      // 300 memories nearest the query that the filter refuses (ended before "now"), then 3 it admits:
      // the search asks the filter, widens and reads the image's rows again after that SQL.
      const ended = Array.from({ length: 300 }, (_, i) => makeNode({ ...node(`old-${i}`, unit(1, 0.001 * i, 0, 0)), validTo: "2026-04-01T00:00:00.000Z" }))
      const kept = [node("kept-a", unit(0, 1, 0, 0)), node("kept-b", unit(0, 0, 1, 0)), node("kept-c", unit(0, 0, 0, 1))]
      yield* writer.commit({ upsertNodes: [...ended, ...kept] })
      expect(yield* top(writer, unit(1, 0, 0, 0))).toEqual(["kept-a", "kept-b", "kept-c"])
      const imageOpen = () =>
        fs.readdirSync("/proc/self/fd").some((fd) => {
          try {
            return fs.readlinkSync(`/proc/self/fd/${fd}`) === graphVectorsFile(dir)
          } catch {
            return false
          }
        })
      const reader = yield* open(dir)
      // Both fibers yield every 16 steps: the other one lets go of the files many times during the search
      // (before the fix the search died reading a closed image).
      const search = yield* Effect.fork(Effect.withMaxOpsBeforeYield(top(reader, unit(1, 0, 0, 0)), 16))
      const releases = yield* Effect.fork(
        Effect.withMaxOpsBeforeYield(Effect.forever(Effect.zipRight(Effect.sync(() => reader.releaseFiles!()), Effect.yieldNow())), 16)
      )
      expect(yield* Fiber.join(search)).toEqual(["kept-a", "kept-b", "kept-c"])
      yield* Fiber.interrupt(releases)
      reader.releaseFiles!()
      expect(imageOpen()).toBe(false)
    })
  )

  it.scopedLive("a damaged image is ignored and replaced", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      const writer = yield* open(dir)
      yield* writer.commit({ upsertNodes: [node("a", unit(1, 0, 0, 0)), node("b", unit(0, 1, 0, 0))] })
      fs.mkdirSync(path.dirname(graphVectorsFile(dir)), { recursive: true })
      fs.writeFileSync(graphVectorsFile(dir), "AGV1 and then nothing useful")
      expect(yield* top(yield* open(dir), unit(0, 1, 0, 0))).toEqual(["b", "a"])
      expect(fs.readFileSync(graphVectorsFile(dir)).includes("nothing useful")).toBe(false)
      expect(yield* top(yield* open(dir), unit(0, 1, 0, 0))).toEqual(["b", "a"])
    })
  )
})
