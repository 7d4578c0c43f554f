import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeGraphStoreJson } from "../../src/layers/GraphStoreJson.js"
import { makeGraphStoreSqlite } from "../../src/layers/GraphStoreSqlite.js"
import { compactNode, fullNode, plainNode, tempDir } from "../support/graphFixtures.js"
import { liteNode } from "../support/liteFixtures.js"

const paths = (dir: string) => ({
  file: path.join(dir, "graph", "memory_graph.json"),
  lockFile: path.join(dir, "locks", "graph.lock"),
  snapshotsDir: path.join(dir, "snapshots"),
  importSqlite: path.join(dir, "graph", "memory_graph.sqlite")
})
const open = (dir: string) => makeGraphStoreJson(paths(dir))

const writeGraphFile = (dir: string, body: unknown) => {
  fs.mkdirSync(path.join(dir, "graph"), { recursive: true })
  fs.writeFileSync(paths(dir).file, typeof body === "string" ? body : JSON.stringify(body, null, 2))
}

describe("GraphStoreJson", () => {
  it.scopedLive("writes the reference's one-file format: version 2.0, snake_case nodes by id, embedding as numbers", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      const store = yield* open(dir)
      yield* store.commit({
        upsertNodes: [fullNode("n1"), plainNode("n2")],
        addEdges: [{ source: "n1", target: "n2", type: "temporal", weight: 1, createdAt: "2026-03-01T10:00:00.000Z" }]
      })
      const written = JSON.parse(fs.readFileSync(paths(dir).file, "utf8")) as Record<string, unknown>
      expect(Object.keys(written)).toEqual(["version", "nodes", "edges"])
      expect(written.version).toBe("2.0")
      expect(written.edges).toEqual([
        { source: "n1", target: "n2", type: "temporal", weight: 1, created_at: "2026-03-01T10:00:00.000Z" }
      ])
      expect((written.nodes as Record<string, unknown>).n1).toEqual({
        id: "n1",
        type: "semantic",
        content: "content of n1",
        embedding: [0.25, -0.5, 0.125, Math.fround(1 / 3)],
        embed_model: "mock-4",
        strength: { recency: 0.75, frequency: 0.5, composite: 0.6 },
        created_at: "2026-03-01T10:00:00.000Z",
        last_accessed: "2026-03-02T11:00:00.000Z",
        source_sessions: ["s1", "s/2"],
        source_refs: [
          { session_id: "s1", message_index: 3 },
          { session_id: "s/2", message_index: 0 }
        ],
        access_count: 4,
        canonical_key: "fact:my city",
        status: "superseded",
        supersedes: ["older"],
        valid_from: "2026-02-01T00:00:00.000Z",
        valid_to: "2026-03-03T00:00:00.000Z",
        confidence: 0.8,
        entity_type: "GPE",
        aliases: ["NYC", "New York City"],
        mentioned_dates: ["2026-02-01T00:00:00.000Z"],
        scope: "/home/me/project"
      })
    })
  )

  it.scopedLive("reads a graph the reference wrote (Python timestamps become canonical UTC ISO)", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      writeGraphFile(dir, {
        version: "2.0",
        nodes: {
          // As the reference's JSON store writes a node: its to_dict() with the embedding inline.
          "9f1c": liteNode("9f1c", "I prefer dark mode", {
            type: "procedural",
            embedding: [0.5, -0.25],
            last_accessed: "2026-03-01T12:30:00.5+00:00",
            source_refs: [{ session_id: "s1", message_index: 2 }],
            access_count: 3,
            canonical_key: "preference:dark",
            confidence: 0.75
          })
        },
        edges: []
      })
      const node = (yield* (yield* open(dir)).load()).nodes.get("9f1c")
      expect(node).toEqual({
        id: "9f1c",
        type: "procedural",
        content: "I prefer dark mode",
        embedding: Float32Array.from([0.5, -0.25]),
        embedModel: "all-MiniLM-L6-v2",
        strength: { recency: 1, frequency: 1, composite: 1 },
        createdAt: "2026-03-01T10:00:00.123Z",
        lastAccessed: "2026-03-01T12:30:00.500Z",
        sourceSessions: ["s1"],
        sourceRefs: [{ sessionId: "s1", messageIndex: 2 }],
        accessCount: 3,
        canonicalKey: "preference:dark",
        status: "active",
        supersedes: [],
        validFrom: "2026-03-01T10:00:00.000Z",
        validTo: null,
        confidence: 0.75,
        entityType: null,
        aliases: [],
        mentionedDates: [],
        scope: null
      })
    })
  )

  it.scopedLive("an older file without lifecycle fields migrates on load as the reference did", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      writeGraphFile(dir, {
        nodes: {
          old: { id: "old", type: "semantic", content: "The API endpoint is v1", created_at: "2025-12-01T08:00:00" }
        },
        edges: [{ source: "old", target: "old", type: "association" }]
      })
      const graph = yield* (yield* open(dir)).load()
      const node = graph.nodes.get("old")!
      expect([node.validFrom, node.validTo, node.status, node.confidence, node.canonicalKey, node.lastAccessed]).toEqual([
        "2025-12-01T08:00:00.000Z",
        null,
        "active",
        0.6,
        null,
        "2025-12-01T08:00:00.000Z"
      ])
      expect([node.supersedes, node.aliases, node.mentionedDates, node.sourceRefs, node.embedding]).toEqual([[], [], [], [], null])
      expect(graph.edges).toEqual([
        { source: "old", target: "old", type: "association", weight: 1, createdAt: "1970-01-01T00:00:00.000Z" }
      ])
    })
  )

  it.scopedLive("with no JSON file yet, the SQLite graph beside it is imported (switching backend)", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      yield* Effect.scoped(
        Effect.flatMap(
          makeGraphStoreSqlite({ file: paths(dir).importSqlite, snapshotsDir: paths(dir).snapshotsDir }),
          (s) => s.commit({ upsertNodes: [fullNode("a"), plainNode("b")] })
        )
      )
      const graph = yield* (yield* open(dir)).load()
      // SQLite kept the vector compact: it comes over as it read back from there.
      expect(Array.from(graph.nodes.values())).toEqual([compactNode(fullNode("a")), plainNode("b")])
      expect(fs.existsSync(paths(dir).file)).toBe(true)
    })
  )

  for (const [what, body, reason] of [
    ["garbage", "\u0000\u0001 not json at all", "not valid JSON, maybe truncated"],
    ["truncated", JSON.stringify({ version: "2.0", nodes: { a: fullNode("a") }, edges: [] }).slice(0, 60), "not valid JSON, maybe truncated"],
    ["empty", "", "empty file"],
    ["wrong-shaped", JSON.stringify({ nodes: { a: { id: "a", type: "memory", content: "secret words", created_at: "x" } } }), "node a: bad field type"]
  ] as const) {
    it.scopedLive(`a ${what} graph file gives one CorruptFile (no content quoted) and is never overwritten`, () =>
      Effect.gen(function* () {
        const dir = yield* tempDir()
        writeGraphFile(dir, body)
        const store = yield* open(dir)
        const loadError = yield* Effect.flip(store.load())
        expect(loadError._tag).toBe("CorruptFile")
        expect(loadError.message).toBe(
          `the memory graph ${paths(dir).file} is damaged (${reason}); restore a snapshot with \`awhm snapshot restore --path FILE\`, or move the file away to start an empty graph`
        )
        expect(loadError.message).not.toContain("secret")
        const saveError = yield* Effect.flip(store.commit({ upsertNodes: [plainNode("new")] }))
        expect(saveError._tag).toBe("CorruptFile")
        expect(fs.readFileSync(paths(dir).file, "utf8")).toBe(body)
      })
    )
  }

  it.scopedLive("scrub removes temp files a killed writer left behind (they may hold deleted text)", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      const store = yield* open(dir)
      yield* store.commit({ upsertNodes: [plainNode("a")] })
      const stale = path.join(dir, "graph", ".memory_graph.json.999999999.1700000000000.0.tmp")
      fs.writeFileSync(stale, "half a graph with a secret")
      yield* store.scrub
      expect(fs.readdirSync(path.join(dir, "graph"))).toEqual(["memory_graph.json"])
    })
  )
})
