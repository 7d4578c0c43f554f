import { createHmac } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, expectTypeOf, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { CorruptFile, NodeNotFound, StorageError } from "../../src/domain/errors.js"
import { type Edge, makeNode, type MemoryNode } from "../../src/domain/Node.js"
import { ConfigFromValues } from "../../src/layers/ConfigLive.js"
import { openGraphStoreFile } from "../../src/layers/graph/openStore.js"
import { GraphStoreJson } from "../../src/layers/GraphStoreJson.js"
import { GraphStoreSqlite } from "../../src/layers/GraphStoreSqlite.js"
import { RawLogLive } from "../../src/layers/RawLogLive.js"
import { SessionBufferLive } from "../../src/layers/SessionBufferLive.js"
import { dataPaths } from "../../src/store/paths.js"
import { hardDelete } from "../../src/programs/hardDelete.js"
import { logMessage } from "../../src/programs/logMessage.js"
import { createSnapshot } from "../../src/programs/snapshot.js"
import { GraphStore } from "../../src/services/GraphStore.js"
import { RawLog } from "../../src/services/RawLog.js"
import { SessionBuffer } from "../../src/services/SessionBuffer.js"
import { UnusedGraphFileLive } from "../../src/layers/graph/UnusedGraphFileLive.js"
import { DeletionRecordsFile } from "../../src/layers/DeletionRecordsFile.js"
import { listFiles } from "../support/cli.js"
import { tempDir } from "../support/graphFixtures.js"

const SECRET = "alpha-123-secret"
const at = "2026-03-01T10:00:00.000Z"

const live = (dir: string, backend: "sqlite" | "json") =>
  Layer.mergeAll(RawLogLive, SessionBufferLive, backend === "sqlite" ? GraphStoreSqlite : GraphStoreJson, UnusedGraphFileLive, DeletionRecordsFile).pipe(
    Layer.provideMerge(ConfigFromValues(dir, { storage_backend: backend }))
  )

const node = (id: string, content: string, sessionId: string, index: number, extra: Partial<MemoryNode> = {}) =>
  makeNode({
    id,
    type: "semantic",
    content,
    createdAt: at,
    sourceSessions: [sessionId],
    sourceRefs: [{ sessionId, messageIndex: index }],
    embedding: Float32Array.from([0.1, 0.2]),
    ...extra
  })
const edge = (source: string, target: string, type: Edge["type"] = "association"): Edge => ({ source, target, type, weight: 0.8, createdAt: at })

/** Files under `dir` whose bytes contain `text`. */
const filesHolding = (dir: string, text: string) =>
  listFiles(dir).filter((f) => fs.readFileSync(path.join(dir, f)).includes(Buffer.from(text, "utf8")))

/**
 * Two sessions; message s1:1 carries the secret and gave two nodes (the correction "T" and the fact
 * "S", its sibling). The graph, a snapshot, the WALs and the other backend's file all hold copies.
 */
const seed = (dir: string, backend: "sqlite" | "json") =>
  Effect.gen(function* () {
    yield* logMessage({ sessionId: "s1", role: "user", content: "My name is Alice", timestamp: at })
    yield* logMessage({ sessionId: "s1", role: "user", content: `Actually, my token is ${SECRET}`, timestamp: at })
    yield* logMessage({ sessionId: "s1", role: "assistant", content: "Noted, I will keep it safe.", timestamp: at })
    yield* logMessage({ sessionId: "s2", role: "user", content: "I prefer dark mode", timestamp: at })
    const buffer = yield* SessionBuffer
    yield* buffer.flush()
    const store = yield* GraphStore
    const nodes = [
      node("T", `Actually, my token is ${SECRET}`, "s1", 1, { canonicalKey: "fact:my token" }),
      node("S", `my token is ${SECRET}`, "s1", 1),
      node("O", "My name is Alice", "s1", 0),
      node("P", "I prefer dark mode", "s2", 0, { type: "procedural" })
    ]
    const edges = [edge("T", "S"), edge("O", "T"), edge("O", "P"), edge("S", "O", "temporal")]
    yield* store.commit({ upsertNodes: nodes, addEdges: edges })
    yield* createSnapshot()
    // A graph file of the other backend (left by a backend switch) holds a copy too.
    const paths = dataPaths(dir)
    const other = openGraphStoreFile(backend === "sqlite" ? "json" : "sqlite", dir)
    yield* Effect.scoped(Effect.flatMap(other, (s) => s.replaceAll({ nodes: new Map(nodes.map((n) => [n.id, n])), edges })))
    // The retrieval cache, and a temp file a killed writer left behind.
    fs.mkdirSync(path.join(dir, "index"), { recursive: true })
    fs.writeFileSync(path.join(dir, "index", "rawlog.json"), JSON.stringify({ docs: [`Actually, my token is ${SECRET}`] }))
    fs.writeFileSync(path.join(paths.logs, ".s1.jsonl.999999999.1700000000000.0.tmp"), `{"content":"Actually, my token is ${SECRET}"}`)
    expect(filesHolding(dir, SECRET).length).toBeGreaterThanOrEqual(6)
  })

describe("hardDelete", () => {
  it("can fail only with NodeNotFound or a storage error", () => {
    expectTypeOf<Effect.Effect.Error<ReturnType<typeof hardDelete>>>().toEqualTypeOf<NodeNotFound | StorageError | CorruptFile>()
  })

  for (const backend of ["sqlite", "json"] as const) {
    it.scopedLive(`${backend}: removes the node, its siblings, source message, buffer entries and every copy of the text`, () =>
      Effect.gen(function* () {
        const dir = yield* tempDir()
        yield* Effect.scoped(
          Effect.gen(function* () {
            yield* seed(dir, backend)
            const { result, warnings } = yield* hardDelete("T")
            expect(result).toEqual({
              nodeDeleted: true,
              edgesRemoved: 3,
              logEntriesRemoved: 1,
              bufferEntriesRemoved: 2,
              affectedSessions: ["s1"],
              matchStrategy: "source_refs",
              exactMatchesRemoved: 0,
              snapshotsTouched: 1,
              tombstoneId: expect.stringMatching(/^[0-9a-f-]{36}$/),
              ledgerRecordId: expect.stringMatching(/^[0-9a-f-]{36}$/),
              siblingsRemoved: ["S"]
            })
            expect(warnings).toEqual([])
            // Right after delete returns, while this process still has the stores open.
            expect(filesHolding(dir, SECRET)).toEqual([])
            expect(filesHolding(dir, "token is")).toEqual([])

            const graph = yield* (yield* GraphStore).load()
            expect(Array.from(graph.nodes.keys())).toEqual(["O", "P"])
            expect(graph.edges).toEqual([edge("O", "P")])
            const log = yield* (yield* RawLog).read("s1")
            expect(log.map((e) => [e.index, e.content])).toEqual([
              [0, "My name is Alice"],
              [2, "Noted, I will keep it safe."]
            ])
            const buffer = yield* SessionBuffer
            expect((yield* buffer.entries("s1")).map((e) => e.content)).toEqual(["My name is Alice"])
            expect((yield* buffer.entries("s2")).map((e) => e.content)).toEqual(["I prefer dark mode"])
          }).pipe(Effect.provide(live(dir, backend)))
        )
        // And after the process's stores closed (final WAL flush, SQLite checkpoint on close).
        expect(filesHolding(dir, SECRET)).toEqual([])

        const paths = dataPaths(dir)
        const snapshotFile = listFiles(paths.snapshots)[0]!
        const snapshot = JSON.parse(fs.readFileSync(path.join(paths.snapshots, snapshotFile), "utf8")) as {
          graph: { nodes: Record<string, unknown>; edges: Array<{ source: string }> }
          wal_state: Array<{ content: string; session_id: string }>
        }
        expect(Object.keys(snapshot.graph.nodes)).toEqual(["O", "P"])
        expect(snapshot.wal_state.map((e) => [e.session_id, e.content])).toEqual([
          ["s1", "My name is Alice"],
          ["s2", "I prefer dark mode"]
        ])
        const other = backend === "sqlite" ? paths.graphJson : paths.graphSqlite
        expect(fs.existsSync(other)).toBe(true)
      })
    )
  }

  it.scopedLive("the tombstone keeps a salted hash (one salt per data dir) and the ledger the counts, never the text", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      const paths = dataPaths(dir)
      const [first, second] = yield* Effect.gen(function* () {
        yield* seed(dir, "sqlite")
        const a = yield* hardDelete("T")
        const b = yield* hardDelete("P")
        return [a.result, b.result] as const
      }).pipe(Effect.provide(live(dir, "sqlite")))
      const salt = fs.readFileSync(paths.salt, "utf8").trim()
      expect(salt).toMatch(/^[0-9a-f]{64}$/)
      const hash = (text: string) => "hmac-sha256:" + createHmac("sha256", salt).update(text).digest("hex")
      const tombstones = fs.readFileSync(paths.tombstones, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>)
      expect(tombstones).toEqual([
        {
          tombstone_id: first.tombstoneId,
          timestamp: expect.any(String),
          node_id: "T",
          content_hash: hash(`actually, my token is ${SECRET}`),
          affected_sessions: ["s1"],
          match_strategy: "source_refs",
          siblings_removed: ["S"]
        },
        {
          tombstone_id: second.tombstoneId,
          timestamp: expect.any(String),
          node_id: "P",
          content_hash: hash("i prefer dark mode"),
          affected_sessions: ["s2"],
          match_strategy: "source_refs",
          siblings_removed: []
        }
      ])
      const ledger = fs.readFileSync(paths.ledger, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>)
      expect(ledger[0]).toEqual({
        record_id: first.ledgerRecordId,
        timestamp: expect.any(String),
        node_id: "T",
        node_deleted: true,
        edges_removed: 3,
        log_entries_removed: 1,
        buffer_entries_removed: 2,
        snapshots_touched: 1,
        tombstone_id: first.tombstoneId,
        siblings_removed: ["S"]
      })
      expect(ledger).toHaveLength(2)
    })
  )

  it.scopedLive("a salt others can read is refused before anything is deleted: one error, the memory kept", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      const paths = dataPaths(dir)
      const { error, kept } = yield* Effect.gen(function* () {
        yield* seed(dir, "sqlite")
        yield* hardDelete("T")
        fs.chmodSync(paths.salt, 0o644)
        const error = yield* Effect.flip(hardDelete("P"))
        const kept = (yield* (yield* GraphStore).load()).nodes.has("P")
        return { error, kept }
      }).pipe(Effect.provide(live(dir, "sqlite")))
      expect(error._tag).toBe("StorageError")
      expect(error.message).toBe(
        `could not announce the delete in ${paths.meta}: Error: ${paths.salt} is not a private file of this user's (chmod 600 it)`
      )
      expect(kept).toBe(true)
    })
  )

  it.scopedLive("--keep-siblings keeps the other nodes of the message; the message and its buffer entries still go", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      yield* Effect.gen(function* () {
        yield* seed(dir, "sqlite")
        const { result } = yield* hardDelete("T", { keepSiblings: true })
        expect([result.siblingsRemoved, result.edgesRemoved, result.logEntriesRemoved, result.bufferEntriesRemoved]).toEqual([[], 2, 1, 2])
        const graph = yield* (yield* GraphStore).load()
        expect(Array.from(graph.nodes.keys())).toEqual(["S", "O", "P"])
        expect((yield* (yield* RawLog).read("s1")).map((e) => e.index)).toEqual([0, 2])
      }).pipe(Effect.provide(live(dir, "sqlite")))
      // The kept sibling is the only place the text remains.
      expect(filesHolding(dir, `Actually, my token is ${SECRET}`)).toEqual([])
    })
  )

  it.scopedLive("without source refs, log entries whose normalized text equals the node's are removed (exact_content)", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      yield* Effect.gen(function* () {
        yield* seed(dir, "sqlite")
        const store = yield* GraphStore
        yield* store.commit({ upsertNodes: [makeNode({ id: "X", type: "semantic", content: "  ACTUALLY, my token   is " + SECRET, createdAt: at, sourceSessions: ["s1", "s2"] })] })
        const { result } = yield* hardDelete("X")
        expect([result.matchStrategy, result.exactMatchesRemoved, result.logEntriesRemoved, result.affectedSessions]).toEqual([
          "exact_content",
          1,
          1,
          ["s1"]
        ])
        // Same text: T goes with it; S (a different text, no shared ref) stays.
        expect(result.siblingsRemoved).toEqual(["T"])
        expect(Array.from((yield* store.load()).nodes.keys())).toEqual(["S", "O", "P"])
      }).pipe(Effect.provide(live(dir, "sqlite")))
    })
  )

  it.scopedLive("an unknown node fails with NodeNotFound and changes nothing", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      yield* Effect.gen(function* () {
        yield* seed(dir, "json")
        const before = listFiles(dir).map((f) => [f, fs.readFileSync(path.join(dir, f), "utf8")])
        const error = yield* Effect.flip(hardDelete("nope"))
        expect(error).toMatchObject({ _tag: "NodeNotFound", nodeId: "nope", message: "node nope not found" })
        expect(listFiles(dir).map((f) => [f, fs.readFileSync(path.join(dir, f), "utf8")])).toEqual(before)
      }).pipe(Effect.provide(live(dir, "json")))
    })
  )
})
