import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, expectTypeOf, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { CorruptFile, StorageError } from "../../src/domain/errors.js"
import { makeNode } from "../../src/domain/Node.js"
import { ConfigFromValues } from "../../src/layers/ConfigLive.js"
import { GraphStoreSqlite } from "../../src/layers/GraphStoreSqlite.js"
import { RawLogLive } from "../../src/layers/RawLogLive.js"
import { SessionBufferLive } from "../../src/layers/SessionBufferLive.js"
import { dataPaths } from "../../src/store/paths.js"
import { logMessage } from "../../src/programs/logMessage.js"
import { createSnapshot, listSnapshots, restoreSnapshot } from "../../src/programs/snapshot.js"
import { GraphStore } from "../../src/services/GraphStore.js"
import { SessionBuffer } from "../../src/services/SessionBuffer.js"
import { compactNode, FULL_NODE_COMPACT_EMBEDDING, fullNode, plainNode, tempDir } from "../support/graphFixtures.js"

const at = "2026-03-01T10:00:00.000Z"
const live = (dir: string) =>
  Layer.mergeAll(RawLogLive, SessionBufferLive, GraphStoreSqlite).pipe(Layer.provideMerge(ConfigFromValues(dir)))

const NAME = /^snapshot_\d{8}_\d{6}_\d{3}_\d{4}[0-9a-f]{6}\.json$/

describe("snapshots", () => {
  it("create and restore can fail only with a storage error or a damaged file", () => {
    expectTypeOf<Effect.Effect.Error<ReturnType<typeof createSnapshot>>>().toEqualTypeOf<StorageError | CorruptFile>()
    expectTypeOf<Effect.Effect.Error<ReturnType<typeof restoreSnapshot>>>().toEqualTypeOf<StorageError | CorruptFile>()
  })

  it.scopedLive("create writes the graph and every session's buffer in the reference's format", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      yield* Effect.gen(function* () {
        yield* logMessage({ sessionId: "s1", role: "user", content: "I prefer dark mode", timestamp: at })
        yield* logMessage({ sessionId: "s2", role: "user", content: "My city is Paris", timestamp: at })
        yield* (yield* GraphStore).commit({
          upsertNodes: [fullNode("a"), plainNode("b")],
          addEdges: [{ source: "a", target: "b", type: "temporal", weight: 1, createdAt: at }]
        })
        const { path: file, createdAt } = yield* createSnapshot()
        expect(path.dirname(file)).toBe(dataPaths(dir).snapshots)
        expect(path.basename(file)).toMatch(NAME)
        const written = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>
        expect(Object.keys(written)).toEqual(["version", "created_at", "graph", "wal_state", "consolidation_progress"])
        // Nothing consolidated yet: a restore of it makes the next consolidate start from the beginning.
        expect(written.consolidation_progress).toEqual({ version: 2, sessions: {} })
        expect(written.version).toBe("2.0")
        expect(written.created_at).toBe(createdAt)
        const graph = written.graph as { nodes: Record<string, Record<string, unknown>>; edges: Array<unknown> }
        expect(Object.keys(graph.nodes)).toEqual(["a", "b"])
        // The vector as the SQLite store keeps it (compact).
        expect(graph.nodes.a!.embedding).toEqual(FULL_NODE_COMPACT_EMBEDDING)
        expect(graph.edges).toEqual([{ source: "a", target: "b", type: "temporal", weight: 1, created_at: at }])
        expect(written.wal_state).toEqual([
          { type: "preference", content: "I prefer dark mode", timestamp: at, source_msg: 0, session_id: "s1" },
          { type: "fact", content: "My city is Paris", timestamp: at, source_msg: 0, session_id: "s2" }
        ])
      }).pipe(Effect.provide(live(dir)))
    })
  )

  it.scopedLive("snapshots made in the same millisecond never overwrite each other; list is newest first", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      yield* Effect.gen(function* () {
        const dirOf = dataPaths(dir).snapshots
        fs.mkdirSync(dirOf, { recursive: true })
        fs.writeFileSync(path.join(dirOf, "snapshot_20250101_120000.json"), JSON.stringify({ version: "2.0", graph: { nodes: {}, edges: [] } }))
        const made = yield* Effect.all(Array.from({ length: 25 }, () => createSnapshot()), { concurrency: "unbounded" })
        expect(new Set(made.map((m) => m.path)).size).toBe(25)
        const listed = yield* listSnapshots()
        expect(listed).toHaveLength(26)
        expect(listed[25]).toEqual({ path: path.join(dirOf, "snapshot_20250101_120000.json"), createdAt: "2025-01-01T12:00:00.000Z" })
        const times = listed.map((s) => s.createdAt)
        expect(times).toEqual([...times].sort().reverse())
      }).pipe(Effect.provide(live(dir)))
    })
  )

  it.scopedLive("restore brings back the graph and buffers, and can itself be undone from its backup", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      yield* Effect.gen(function* () {
        const store = yield* GraphStore
        const buffer = yield* SessionBuffer
        yield* logMessage({ sessionId: "s1", role: "user", content: "I prefer dark mode", timestamp: at })
        yield* store.commit({ upsertNodes: [fullNode("a"), plainNode("b")] })
        const snap = yield* createSnapshot()

        yield* store.commit({ deleteNodes: ["a"], upsertNodes: [plainNode("c")] })
        yield* logMessage({ sessionId: "s1", role: "user", content: "Never use tabs", timestamp: at })
        yield* buffer.flush()

        const result = yield* restoreSnapshot(snap.path)
        expect(result.restored).toBe(snap.path)
        expect(result.skippedBufferEntries).toBe(0)
        const restored = yield* store.load()
        expect(Array.from(restored.nodes.values())).toEqual([compactNode(fullNode("a")), plainNode("b")])
        expect((yield* buffer.entries("s1")).map((e) => e.content)).toEqual(["I prefer dark mode"])
        expect(JSON.parse(fs.readFileSync(dataPaths(dir).walFile("s1"), "utf8"))).toHaveLength(1)

        // Undo: the backup holds the state just before the restore.
        yield* restoreSnapshot(result.backup!)
        expect(Array.from((yield* store.load()).nodes.keys())).toEqual(["b", "c"])
        expect((yield* buffer.entries("s1")).map((e) => e.content)).toEqual(["I prefer dark mode", "Never use tabs"])
      }).pipe(Effect.provide(live(dir)))
    })
  )

  it.scopedLive("a snapshot the reference wrote restores (its buffer entries, lacking a session, are counted as skipped)", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      const file = path.join(dir, "snapshot_20250101_120000.json")
      fs.writeFileSync(
        file,
        JSON.stringify(
          {
            version: "2.0",
            created_at: "2025-01-01T12:00:00.123456+00:00",
            graph: {
              nodes: { old: { id: "old", type: "semantic", content: "My city is Paris", created_at: "2025-01-01T11:00:00+00:00" } },
              edges: []
            },
            wal_state: [{ type: "fact", content: "My city is Paris", timestamp: "2025-01-01T11:00:00+00:00", source_msg: 0 }]
          },
          null,
          2
        )
      )
      yield* Effect.gen(function* () {
        const result = yield* restoreSnapshot(file)
        expect(result.skippedBufferEntries).toBe(1)
        const graph = yield* (yield* GraphStore).load()
        expect(graph.nodes.get("old")).toEqual(
          makeNode({ id: "old", type: "semantic", content: "My city is Paris", createdAt: "2025-01-01T11:00:00.000Z", accessCount: 1 })
        )
      }).pipe(Effect.provide(live(dir)))
    })
  )

  it.scopedLive("a missing or damaged snapshot fails with one clear error and changes nothing", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      yield* Effect.gen(function* () {
        const store = yield* GraphStore
        yield* store.commit({ upsertNodes: [plainNode("a")] })
        const missing = path.join(dir, "nope.json")
        const notFound = yield* Effect.flip(restoreSnapshot(missing))
        expect(notFound).toMatchObject({ _tag: "StorageError", message: `snapshot ${missing} not found` })
        const damaged = path.join(dir, "damaged.json")
        fs.writeFileSync(damaged, '{"version":"2.0","graph":{"nodes":{"a":{"content":"secret wor')
        const corrupt = yield* Effect.flip(restoreSnapshot(damaged))
        expect(corrupt).toMatchObject({ _tag: "CorruptFile", message: `snapshot ${damaged} is damaged (not valid JSON, maybe truncated)` })
        expect(Array.from((yield* store.load()).nodes.keys())).toEqual(["a"])
        expect(yield* listSnapshots()).toEqual([])
      }).pipe(Effect.provide(live(dir)))
    })
  )
})
