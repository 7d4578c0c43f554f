import * as fs from "node:fs"
import * as path from "node:path"
import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import { EntityIndex } from "../../src/text/entities.js"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { ConfigFromValues } from "../../src/layers/ConfigLive.js"
import { GraphStoreSqlite, makeGraphStoreSqlite } from "../../src/layers/GraphStoreSqlite.js"
import createGraph from "../../src/layers/graph/migrations/0001_create_graph.js"
import searchIndex from "../../src/layers/graph/migrations/0002_search_index.js"
import { GraphStore } from "../../src/services/GraphStore.js"
import { makeNode } from "../../src/domain/Node.js"
import { nodeToRow, nodeToStored } from "../../src/store/graphSerialization.js"
import { compactNode, fullNode, plainNode, tempDir } from "../support/graphFixtures.js"

const open = (dir: string) =>
  makeGraphStoreSqlite({
    file: path.join(dir, "graph", "memory_graph.sqlite"),
    importJson: path.join(dir, "graph", "memory_graph.json"),
    snapshotsDir: path.join(dir, "snapshots")
  })

/** A second, independent connection for looking at the file the way any SQLite tool would. */
const inspect = (file: string) =>
  SqliteClient.make({ filename: file }).pipe(Effect.provide(Reactivity.layer))

const fileContains = (file: string, text: string) =>
  fs.existsSync(file) && fs.readFileSync(file).includes(Buffer.from(text, "utf8"))

describe("GraphStoreSqlite", () => {
  it.scopedLive("the layer keeps the graph in <data-dir>/graph/memory_graph.sqlite in WAL mode, with its indexes", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      const store = yield* Layer.build(GraphStoreSqlite.pipe(Layer.provide(ConfigFromValues(dir)))).pipe(
        Effect.map((ctx) => ctx.unsafeMap.get(GraphStore.key) as GraphStore["Type"])
      )
      expect(store.backend).toBe("sqlite")
      expect(store.location).toBe(path.join(dir, "graph", "memory_graph.sqlite"))
      yield* store.commit({ upsertNodes: [fullNode("n1")] })
      const sql = yield* inspect(store.location!)
      expect(yield* sql`PRAGMA journal_mode`).toEqual([{ journal_mode: "wal" }])
      expect((fs.statSync(store.location!).mode & 0o777).toString(8)).toBe("600")
      expect((fs.statSync(store.location! + "-wal").mode & 0o777).toString(8)).toBe("600")
      const indexes = yield* sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY name`
      expect(indexes.map((r) => r.name)).toEqual(["edges_target", "node_keys_key", "node_sources_node", "nodes_access_count", "nodes_canonical_key", "nodes_status"])
      const sources = yield* sql`SELECT session_id, message_index, node_id FROM node_sources ORDER BY session_id`
      expect(sources).toEqual([
        { session_id: "s/2", message_index: 0, node_id: "n1" },
        { session_id: "s1", message_index: 3, node_id: "n1" }
      ])
    })
  )

  it.scopedLive("embeddings are compact BLOBs (int8 with a scale; dimension and model beside) in their own table; node rows hold no vector", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      const store = yield* open(dir)
      yield* store.commit({ upsertNodes: [fullNode("n1"), plainNode("n2")] })
      const sql = yield* inspect(store.location!)
      const vectors = yield* sql<{ node_id: string; embedding: Uint8Array; embed_dim: number; embed_model: string }>`
        SELECT node_id, embedding, embed_dim, embed_model FROM node_vectors`
      expect(vectors.map((v) => [v.node_id, v.embed_dim, v.embed_model, v.embedding.byteLength])).toEqual([["n1", 4, "mock-4", 8]])
      // The largest magnitude as float32, then each component in steps of it / 127: [0.25, -0.5, 0.125, 1/3].
      const blob = Buffer.from(vectors[0]!.embedding)
      expect(blob.readFloatLE(0)).toBe(0.5)
      expect(Array.from(new Int8Array(Uint8Array.from(blob.subarray(4)).buffer))).toEqual([64, -127, 32, 85])
      const rows = yield* sql<{ id: string; data: string; status: string; canonical_key: string | null }>`
        SELECT id, data, status, canonical_key FROM nodes ORDER BY rowid`
      expect(rows.map((r) => [r.id, r.status, r.canonical_key])).toEqual([
        ["n1", "superseded", "fact:my city"],
        ["n2", "active", null]
      ])
      const data = JSON.parse(rows[0]!.data) as Record<string, unknown>
      expect(data.embedding).toBeUndefined()
      expect(data.valid_from).toBe("2026-02-01T00:00:00.000Z")
      // Dropping a vector removes its row.
      yield* store.commit({ upsertNodes: [fullNode("n1", { embedding: null })] })
      expect(yield* sql`SELECT count(*) AS n FROM node_vectors`).toEqual([{ n: 0 }])
    })
  )

  it.scopedLive("a node row's JSON leaves out what the row's columns and the database's row model hold; a row in the older full form reads as the same node", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      const store = yield* open(dir)
      const nodes = [
        fullNode("n1"),
        plainNode("n2"),
        // Source sessions that are not those of the source refs are kept as they are.
        fullNode("n3", { sourceSessions: ["other"], validFrom: null }),
        fullNode("n4", { sourceSessions: [], embedModel: "Xenova/all-MiniLM-L6-v2" })
      ]
      yield* store.commit({ upsertNodes: nodes })
      const sql = yield* inspect(store.location!)
      const data = new Map(
        (yield* sql<{ id: string; data: string }>`SELECT id, data FROM nodes`).map((r) => [r.id, JSON.parse(r.data) as Record<string, unknown>] as const)
      )
      // A node without a model says so: a row without embed_model has the row model (migration 0006).
      expect(data.get("n2")).toEqual({ type: "episodic", content: "memory n2", embed_model: null })
      expect(Object.keys(data.get("n1")!)).toEqual([
        "type", "content", "embed_model", "strength", "created_at", "last_accessed", "source_refs", "status", "supersedes",
        "valid_from", "valid_to", "confidence", "entity_type", "aliases", "mentioned_dates", "scope"
      ])
      expect(data.get("n1")!.source_refs).toEqual([["s1", 3], ["s/2", 0]])
      expect(data.get("n4")!.embed_model).toBeUndefined()
      // Without a valid_from the window starts at created_at, which the window_start column holds.
      expect(data.get("n3")).toMatchObject({ source_sessions: ["other"], valid_from: null })
      expect(data.get("n3")!.created_at).toBeUndefined()
      expect(data.get("n4")!.source_sessions).toEqual([])
      expect(yield* store.getNodes(["n1", "n2", "n3", "n4"])).toEqual(nodes.map(compactNode))
      // A row written before (the whole node in its JSON, id, access count and key included) reads the same.
      yield* sql`UPDATE nodes SET data = ${JSON.stringify(nodeToRow(fullNode("n1")))} WHERE id = 'n1'`
      const fresh = yield* open(dir)
      expect(yield* fresh.getNodes(["n1"])).toEqual([compactNode(fullNode("n1"))])
      expect((yield* fresh.load({ withEmbeddings: true })).nodes.get("n3")).toEqual(compactNode(nodes[2]!))
    })
  )

  it.scopedLive("reinforcement and a re-save with the same vector leave node_vectors alone; a new vector rewrites its row", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      const store = yield* open(dir)
      yield* store.commit({ upsertNodes: [fullNode("n1", { status: "active" }), fullNode("n2", { status: "active" })] })
      const sql = yield* inspect(store.location!)
      const version = Effect.map(sql<{ value: string }>`SELECT value FROM meta WHERE key = 'vectors_version'`, (r) => r[0]!.value)
      const start = yield* version
      const [n1] = yield* store.getNodes(["n1"])
      yield* store.reinforce([{ id: "n1", content: n1!.content, validTo: n1!.validTo, at: "2026-03-05T00:00:00.000Z", strength: n1!.strength }])
      yield* store.flushReinforcement
      // The node row took the reinforcement; its vector row was not written, so readers keep their vectors.
      expect((yield* store.getNodes(["n1"]))[0]!.accessCount).toBe(n1!.accessCount + 1)
      yield* store.commit({ upsertNodes: [{ ...(yield* store.getNodes(["n2"]))[0]!, content: "edited n2" }] })
      expect(yield* version).toBe(start)
      yield* store.commit({ upsertNodes: [fullNode("n2", { status: "active", embedding: Float32Array.from([1, 0, 0, 0]) })] })
      expect(Number(yield* version)).toBe(Number(start) + 1)
      expect(Array.from((yield* store.getNodes(["n2"]))[0]!.embedding!)).toEqual([1, 0, 0, 0])
    })
  )

  it.scopedLive("a database of float32 vectors (before compact storage) is converted at open and answers the same", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      const file = path.join(dir, "graph", "memory_graph.sqlite")
      fs.mkdirSync(path.dirname(file), { recursive: true })
      // Dense, deterministic 16-dim unit vectors.
      const dense = (seed: number) => {
        const v = Float32Array.from({ length: 16 }, (_, d) => Math.sin(seed * 7.1 + d * 3.7))
        const norm = Math.hypot(...v)
        return v.map((x) => x / norm)
      }
      const nodes = Array.from({ length: 24 }, (_, i) =>
        fullNode(`n${i}`, { content: `memory ${i}`, embedding: dense(i), embedModel: "m", status: "active", validTo: null, scope: null })
      )
      // The layout migrations 0001 and 0002 left, with the float32 BLOBs the store wrote then.
      yield* Effect.scoped(
        Effect.gen(function* () {
          const sql = yield* inspect(file)
          yield* Migrator.make({})({ loader: Migrator.fromRecord({ "0001_create_graph": createGraph, "0002_search_index": searchIndex }) }).pipe(
            Effect.provideService(SqlClient.SqlClient, sql)
          )
          for (const n of nodes) {
            yield* sql`INSERT INTO nodes ${sql.insert({ id: n.id, data: JSON.stringify(nodeToStored(n, false)), status: n.status, canonical_key: n.canonicalKey })}`
            const bytes = Buffer.from(n.embedding!.buffer, n.embedding!.byteOffset, n.embedding!.byteLength)
            yield* sql`INSERT INTO node_vectors ${sql.insert({ node_id: n.id, embedding: bytes, embed_dim: n.embedding!.length, embed_model: "m" })}`
          }
          yield* sql`INSERT OR REPLACE INTO meta (key, value) VALUES ('json_import_done', 'then')`
        })
      )
      const store = yield* open(dir)
      const sql = yield* inspect(file)
      expect(yield* sql`SELECT max(migration_id) AS m FROM effect_sql_migrations`).toEqual([{ m: 8 }])
      const blobs = yield* sql<{ node_id: string; n: number }>`SELECT node_id, length(embedding) AS n FROM node_vectors ORDER BY rowid`
      expect(blobs).toEqual(nodes.map((n) => ({ node_id: n.id, n: 4 + n.embedding!.length })))
      const graph = yield* store.load()
      for (const n of nodes) expect(graph.nodes.get(n.id)).toEqual(compactNode(n))
      // The rows got their lookup keys at open.
      expect(yield* sql<{ n: number }>`SELECT count(DISTINCT node_id) AS n FROM node_keys`).toEqual([{ n: 24 }])
      expect(yield* store.entityForms).toEqual(new EntityIndex(graph.nodes.values()).forms())
      expect((yield* store.entityForms).slice(0, 4).map((f) => f.form)).toEqual(["memory 0", "nyc", "new york city", "memory 1"])
      // The same ranking as the float32 vectors gave; each score within its proven bound (every component
      // within scale / 254 of the original).
      const query = dense(100)
      const exact = nodes
        .map((n) => ({ id: n.id, score: n.embedding!.reduce((s, x, d) => s + x * query[d]!, 0) }))
        .sort((x, y) => y.score - x.score)
        .slice(0, 5)
      const hits = yield* store.vectorTopK({ vector: query, modelId: "m", k: 5, filter: { asOf: null, includeHistory: false, now: "2026-12-01T00:00:00.000Z", scope: null } })
      expect(hits?.map((h) => h.id)).toEqual(exact.map((h) => h.id))
      const l1 = query.reduce((s, x) => s + Math.abs(x), 0)
      hits?.forEach((h, i) => {
        const scale = Math.max(...nodes.find((n) => n.id === h.id)!.embedding!.map(Math.abs))
        expect(Math.abs(h.score - exact[i]!.score)).toBeLessThanOrEqual((scale / 254) * l1 + 1e-6)
      })
    })
  )

  it.scopedLive("adding one node to a 3,000-node graph writes a few pages, not the graph", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      const store = yield* open(dir)
      const many = Array.from({ length: 3000 }, (_, i) => fullNode(`n${i}`, { content: `memory number ${i} `.repeat(5) }))
      yield* store.commit({ upsertNodes: many })
      const sql = yield* inspect(store.location!)
      yield* sql`PRAGMA wal_checkpoint(TRUNCATE)`
      const walFile = store.location! + "-wal"
      expect(fs.statSync(walFile).size).toBe(0)
      yield* store.commit({ upsertNodes: [plainNode("one-more")] })
      const dbSize = fs.statSync(store.location!).size
      expect(dbSize).toBeGreaterThan(1_000_000)
      // The WAL holds only the pages this commit touched (a handful of 4 KiB frames; 16 with the page of the
      // lexical change log, migration 0007; 25 with the last block of each of the node's terms' postings and the
      // pages they freed, migration 0008).
      expect(fs.statSync(walFile).size).toBeLessThan(26 * 4120)
      expect(yield* store.counts).toEqual({ nodes: 3001, edges: 0 })
    })
  )

  it.scopedLive("an up-to-date store opens and reads while another connection holds a write transaction", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      const writer = yield* open(dir)
      yield* writer.commit({ upsertNodes: [plainNode("a")] })
      const slow = yield* Effect.fork(
        writer.update(() => Effect.as(Effect.sleep(1500), [undefined, { upsertNodes: [plainNode("late")] }] as const))
      )
      yield* Effect.sleep(200)
      // A reader that would give up after 100 ms if it had to wait for the write lock.
      const reader = yield* makeGraphStoreSqlite({
        file: path.join(dir, "graph", "memory_graph.sqlite"),
        snapshotsDir: path.join(dir, "snapshots"),
        busyTimeoutMs: 100
      })
      expect(Array.from((yield* reader.load()).nodes.keys())).toEqual(["a"])
      // A second writer that cannot get the lock in time gets a typed error, not a crash.
      const busy = yield* Effect.flip(reader.commit({ upsertNodes: [plainNode("b")] }))
      expect(busy).toMatchObject({
        _tag: "StorageError",
        message: `the memory graph ${path.join(dir, "graph", "memory_graph.sqlite")} stayed locked by another process; try again`
      })
      yield* Fiber.join(slow)
      expect(Array.from((yield* reader.load()).nodes.keys())).toEqual(["a", "late"])
    })
  )

  it.scopedLive("a new, empty database imports the reference JSON graph found beside it, once", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      fs.mkdirSync(path.join(dir, "graph"), { recursive: true })
      fs.writeFileSync(
        path.join(dir, "graph", "memory_graph.json"),
        JSON.stringify({
          version: "2.0",
          nodes: {
            a: { id: "a", type: "semantic", content: "My city is Paris", embedding: [0.5, 0.25], created_at: "2026-01-01T09:00:00+00:00" },
            b: { id: "b", type: "episodic", content: "That worked", created_at: "2026-01-02T09:00:00.000Z" }
          },
          edges: [{ source: "a", target: "b", type: "association", weight: 0.8, created_at: "2026-01-02T09:00:00.000Z" }]
        })
      )
      const graph = yield* Effect.scoped(Effect.flatMap(open(dir), (s) => s.load()))
      expect(Array.from(graph.nodes.keys())).toEqual(["a", "b"])
      expect(graph.nodes.get("a")?.validFrom).toBe("2026-01-01T09:00:00.000Z")
      // Stored compact: 0.25 is the nearest int8 step of 0.5 / 127.
      expect(Array.from(graph.nodes.get("a")?.embedding ?? [])).toEqual([0.5, Math.fround((64 * 0.5) / 127)])
      expect(graph.edges.map((e) => [e.source, e.target, e.weight])).toEqual([["a", "b", 0.8]])
      // Emptied afterwards, the database stays empty: the JSON file is not imported again.
      yield* Effect.scoped(Effect.flatMap(open(dir), (s) => s.commit({ deleteNodes: ["a", "b"] })))
      expect(yield* Effect.scoped(Effect.flatMap(open(dir), (s) => s.counts))).toEqual({ nodes: 0, edges: 0 })
    })
  )

  it.scopedLive("a file that is not SQLite gives one CorruptFile naming it and the fix, and is left untouched", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      const file = path.join(dir, "graph", "memory_graph.sqlite")
      fs.mkdirSync(path.dirname(file), { recursive: true })
      const garbage = Buffer.from("this is not a database at all, just some text\n".repeat(40))
      fs.writeFileSync(file, garbage)
      const error = yield* Effect.flip(Effect.scoped(open(dir)))
      expect(error._tag).toBe("CorruptFile")
      expect(error.message).toBe(
        `the memory graph ${file} is damaged (not a SQLite database); restore a snapshot with \`awhm snapshot restore --path FILE\`, or move the file away to start an empty graph`
      )
      expect(fs.readFileSync(file).equals(garbage)).toBe(true)
    })
  )

  it.scopedLive("a truncated database gives CorruptFile when opened (naming the latest snapshot), never a crash", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      const file = path.join(dir, "graph", "memory_graph.sqlite")
      yield* Effect.scoped(
        Effect.gen(function* () {
          const store = yield* open(dir)
          yield* store.commit({ upsertNodes: Array.from({ length: 2000 }, (_, i) => fullNode(`n${i}`)) })
          yield* store.scrub
        })
      )
      fs.mkdirSync(path.join(dir, "snapshots"))
      fs.writeFileSync(path.join(dir, "snapshots", "snapshot_20260101_000000_000_0001abcdef.json"), "{}")
      const size = fs.statSync(file).size
      fs.truncateSync(file, Math.floor(size / 3))
      const truncated = fs.readFileSync(file)
      const error = yield* Effect.flip(Effect.scoped(open(dir)))
      expect(error._tag).toBe("CorruptFile")
      expect(error.message).toBe(
        `the memory graph ${file} is damaged (truncated); restore a snapshot, e.g. \`awhm snapshot restore --path ${path.join(dir, "snapshots", "snapshot_20260101_000000_000_0001abcdef.json")}\``
      )
      expect(fs.readFileSync(file).equals(truncated)).toBe(true)
    })
  )

  it.scopedLive("a database damaged inside (pages overwritten) gives CorruptFile on load, and is left as it is", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      const file = path.join(dir, "graph", "memory_graph.sqlite")
      yield* Effect.scoped(
        Effect.flatMap(open(dir), (s) => s.commit({ upsertNodes: Array.from({ length: 500 }, (_, i) => fullNode(`n${i}`)) }))
      )
      const bytes = fs.readFileSync(file)
      bytes.fill(0x5a, 4096 * 3, bytes.length - 4096)
      fs.writeFileSync(file, bytes)
      const error = yield* Effect.flip(Effect.scoped(Effect.flatMap(open(dir), (s) => s.load())))
      expect(error.message).toBe(
        `the memory graph ${file} is damaged (not a readable SQLite database); restore a snapshot with \`awhm snapshot restore --path FILE\`, or move the file away to start an empty graph`
      )
      expect(fs.readFileSync(file).equals(bytes)).toBe(true)
    })
  )

  it.scopedLive("after delete + scrub, no byte of the deleted text is left in the database or its WAL", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      const store = yield* open(dir)
      const secret = "my token is alpha-123-secret"
      yield* store.commit({ upsertNodes: [fullNode("keep"), fullNode("gone", { content: secret, aliases: [secret] })] })
      // Updates leave old row versions in the pages and the WAL too.
      yield* store.commit({ upsertNodes: [fullNode("gone", { content: secret, accessCount: 7 })] })
      expect(fileContains(store.location!, secret) || fileContains(store.location! + "-wal", secret)).toBe(true)
      yield* store.commit({ deleteNodes: ["gone"] })
      yield* store.scrub
      expect(fileContains(store.location!, secret)).toBe(false)
      expect(fileContains(store.location! + "-wal", secret)).toBe(false)
      expect(fileContains(store.location!, "content of keep")).toBe(true)
      expect(Array.from((yield* store.load()).nodes.keys())).toEqual(["keep"])
    })
  )
  it.scopedLive("a lexical search with more candidates than SQLite binds in one statement (k 9,000 over 33,000 matches) answers", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      const store = yield* open(dir)
      const at = "2026-03-01T10:00:00.000Z"
      const nodes = Array.from({ length: 33_000 }, (_, i) =>
        makeNode({ id: `n${i}`, type: "semantic", content: i % 2 === 0 ? `apple note ${i}` : `apple and pear note ${i}`, createdAt: at })
      )
      yield* store.commit({ upsertNodes: nodes })
      const filter = { asOf: null, includeHistory: false, now: "2026-04-01T00:00:00.000Z", scope: null }
      // 4k = 36,000 candidates: more than the 32,766 variables one statement may bind.
      const hits = yield* store.lexicalTopK({ text: "apple pear", k: 9_000, filter, k1: 1.5, b: 0.75 })
      expect(hits.length).toBe(9_000)
      // The notes naming both words come first; every one of them is there.
      expect(hits.slice(0, 16_500).every((h) => Number(h.id.slice(1)) % 2 === 1)).toBe(true)
      expect(new Set(hits.map((h) => h.id)).size).toBe(9_000)
    })
  )
})
