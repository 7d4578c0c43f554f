import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect } from "effect"
import { makeNode, type MemoryNode } from "../../src/domain/Node.js"
import { windowStart } from "../../src/domain/validity.js"
import { makeGraphStorePostgres } from "../../src/layers/GraphStorePostgres.js"
import { analyze } from "../../src/search/IndexAnalyzer.js"
import { indexedText } from "../../src/search/indexedText.js"
import { LexicalIndex } from "../../src/search/LexicalIndex.js"
import type { GraphStoreShape } from "../../src/services/GraphStore.js"
import { compactNode, fullNode } from "../support/graphFixtures.js"
import { freshNamespace, openTestDatabase } from "../support/postgres.js"
import { statementKey } from "../../src/text/canonical.js"
import { statementKeyLookup } from "../../src/text/lookupKeys.js"
import { graphStoreContract } from "./contract.js"

// Each temp dir is one namespace of the shared test database: opening the same dir again opens the same graph.
graphStoreContract(
  "postgres",
  (dir) => Effect.flatMap(openTestDatabase("awhm_owner", `test:${path.basename(dir).replace(/[^A-Za-z0-9._-]/g, "")}`), (db) => makeGraphStorePostgres(db)),
  { persistent: true, compactVectors: true, readsWithoutVectors: true }
)

describe("GraphStorePostgres vectors", () => {
  it.scopedLive("rows keep vectors compact (int8 with a scale); a float32 row an older version wrote reads as it was", () =>
    Effect.gen(function* () {
      const ns = freshNamespace()
      const db = yield* openTestDatabase("awhm_owner", ns)
      yield* (yield* makeGraphStorePostgres(db)).commit({ upsertNodes: [fullNode("a"), fullNode("b")] })
      const lengths = yield* db.sql<{ id: string; n: number }>`SELECT id, octet_length(embedding) AS n FROM awhm.nodes
        WHERE namespace = ${ns} ORDER BY seq`
      expect(lengths).toEqual([{ id: "a", n: 8 }, { id: "b", n: 8 }])
      const v = fullNode("b").embedding!
      yield* db.sql`UPDATE awhm.nodes SET embedding = ${Buffer.from(v.buffer, v.byteOffset, v.byteLength)} WHERE namespace = ${ns} AND id = 'b'`
      const graph = yield* (yield* makeGraphStorePostgres(yield* openTestDatabase("awhm_owner", ns))).load()
      expect(Array.from(graph.nodes.get("b")?.embedding ?? [])).toEqual([0.25, -0.5, 0.125, Math.fround(1 / 3)])
      expect(graph.nodes.get("a")).toEqual(compactNode(fullNode("a")))
    })
  )
})

describe("GraphStorePostgres search in the database", () => {
  const now = "2026-04-01T00:00:00.000Z"
  const current = { asOf: null, includeHistory: false, now, scope: null }
  const mem = (id: string, content: string) => makeNode({ id, type: "semantic", content, createdAt: "2026-03-01T10:00:00.000Z" })
  const lexical = (store: GraphStoreShape, text: string) => store.lexicalTopK({ text, k: 10, filter: current, k1: 1.5, b: 0.75 })
  const oracle = (nodes: ReadonlyArray<MemoryNode>, text: string) => {
    const index = new LexicalIndex({ k1: 1.5, b: 0.75, analyzer: analyze })
    for (const n of nodes) index.add(n.id, indexedText(n.content, windowStart(n)))
    return index.search(text, 10).map((h) => ({ id: h.key, score: h.score }))
  }
  const nodes = [
    mem("a", "The staging server runs on port 8080"),
    mem("b", "Lunch is at noon on Fridays"),
    mem("c", "The staging database moved to port 5433"),
    mem("d", "Priya reviews the payments service")
  ]

  it.scopedLive("a query reads only its candidates' rows: a damaged row elsewhere fails load, not the search", () =>
    Effect.gen(function* () {
      const ns = freshNamespace()
      const db = yield* openTestDatabase("awhm_owner", ns)
      yield* (yield* makeGraphStorePostgres(db)).commit({ upsertNodes: nodes, addEdges: [{ source: "a", target: "c", type: "association", weight: 0.5, createdAt: now }] })
      yield* db.sql`UPDATE awhm.nodes SET data = 'not json' WHERE namespace = ${ns} AND id = 'b'`
      const fresh = yield* makeGraphStorePostgres(yield* openTestDatabase("awhm_owner", ns))
      expect(yield* lexical(fresh, "staging port")).toEqual(oracle(nodes, "staging port"))
      expect((yield* fresh.bySlot(["fact:none"])).length).toBe(0)
      expect((yield* fresh.neighbours(["a"])).map((e) => `${e.source}>${e.target}`)).toEqual(["a>c"])
      expect((yield* fresh.getNodes(["c", "a"])).map((n) => n.id)).toEqual(["c", "a"])
      const exit = yield* Effect.exit(fresh.load())
      expect(exit._tag === "Failure" && Cause.squash(exit.cause)).toMatchObject({ _tag: "CorruptFile" })
    })
  )

  it.scopedLive("rows written before the search columns existed are indexed when a client opens their namespace", () =>
    Effect.gen(function* () {
      const ns = freshNamespace()
      const db = yield* openTestDatabase("awhm_owner", ns)
      yield* (yield* makeGraphStorePostgres(db)).commit({ upsertNodes: nodes })
      // As an older awhm left them: no terms, no statistics.
      yield* db.sql`UPDATE awhm.nodes SET lex_terms = NULL, lex_len = NULL WHERE namespace = ${ns}`
      yield* db.sql`DELETE FROM awhm.lexical_stats WHERE namespace = ${ns}`
      const reopened = yield* makeGraphStorePostgres(yield* openTestDatabase("awhm_owner", ns))
      expect(yield* lexical(reopened, "staging port")).toEqual(oracle(nodes, "staging port"))
      const [stats] = yield* db.sql<{ docs: string; total: string }>`SELECT docs::text, total::text FROM awhm.lexical_stats WHERE namespace = ${ns}`
      const terms = nodes.reduce((sum, n) => sum + analyze(indexedText(n.content, windowStart(n))).length, 0)
      expect(stats).toEqual({ docs: "4", total: String(terms) })
      // Statistics from another analyzer: every row is indexed again.
      yield* db.sql`UPDATE awhm.lexical_stats SET analyzer = 'older', docs = 1, total = 1 WHERE namespace = ${ns}`
      yield* db.sql`UPDATE awhm.nodes SET lex_terms = '{zzz}' WHERE namespace = ${ns}`
      const again = yield* makeGraphStorePostgres(yield* openTestDatabase("awhm_owner", ns))
      expect(yield* lexical(again, "staging port")).toEqual(oracle(nodes, "staging port"))
      expect(yield* lexical(again, "zzz")).toEqual([])
    })
  )

  it.scopedLive("rows written before lookup keys existed get them when a client opens their namespace", () =>
    Effect.gen(function* () {
      const ns = freshNamespace()
      const db = yield* openTestDatabase("awhm_owner", ns)
      const people = [...nodes, makeNode({ id: "p", type: "semantic", content: "PERSON: John Smith", entityType: "PERSON", createdAt: now, aliases: ["Johnny"] })]
      yield* (yield* makeGraphStorePostgres(db)).commit({ upsertNodes: people })
      // As an older awhm left them: no keys.
      yield* db.sql`DELETE FROM awhm.node_keys WHERE namespace = ${ns}`
      yield* db.sql`UPDATE awhm.nodes SET keyed = false WHERE namespace = ${ns}`
      const reopened = yield* makeGraphStorePostgres(yield* openTestDatabase("awhm_owner", ns))
      const found = yield* reopened.nodesByKeys({ ids: [], lookupKeys: ["t:johnny", statementKeyLookup(statementKey(nodes[1]!.content))], canonicalKeys: [], keyFamilies: [] })
      expect(found.map((n) => n.id)).toEqual([nodes[1]!.id, "p"])
      expect(yield* reopened.entityForms).toEqual([{ form: "john smith", label: "PERSON" }, { form: "johnny", label: "PERSON" }])
      const [left] = yield* db.sql<{ n: number }>`SELECT count(*)::int AS n FROM awhm.nodes WHERE namespace = ${ns} AND NOT keyed`
      expect(left).toEqual({ n: 0 })
    })
  )

  it.scopedLive("a client reading two namespaces searches both with one set of statistics, writes only its own", () =>
    Effect.gen(function* () {
      const team = freshNamespace("team")
      const own = freshNamespace("user")
      yield* (yield* makeGraphStorePostgres(yield* openTestDatabase("awhm_owner", team))).commit({ upsertNodes: nodes.slice(0, 2) })
      const store = yield* makeGraphStorePostgres(yield* openTestDatabase("awhm_owner", own, [team]))
      yield* store.commit({ upsertNodes: nodes.slice(2) })
      expect(yield* lexical(store, "staging port")).toEqual(oracle(nodes, "staging port"))
      const vectors = [mem("v1", "one"), mem("v2", "two")].map((n, i) => ({ ...n, embedding: Float32Array.from([1 - i, i, 0]), embedModel: "m" }))
      yield* store.commit({ upsertNodes: vectors })
      expect(yield* store.vectorTopK({ vector: Float32Array.from([0, 1, 0]), modelId: "m", k: 1, filter: current })).toEqual([{ id: "v2", score: 1 }])
      const exit = yield* Effect.exit(store.commit({ deleteNodes: ["a"] }))
      expect(exit._tag === "Failure" && String(Cause.squash(exit.cause))).toContain(`belongs to namespace ${team}`)
    })
  )
})
