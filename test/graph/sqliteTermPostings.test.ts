import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { createRequire } from "node:module"
import * as path from "node:path"
import { makeNode, type MemoryNode } from "../../src/domain/Node.js"
import { makeGraphStoreSqlite } from "../../src/layers/GraphStoreSqlite.js"
import { BLOCK_POSTINGS } from "../../src/layers/graph/termPostings.js"
import { LexicalIndex } from "../../src/search/LexicalIndex.js"
import { analyze } from "../../src/search/IndexAnalyzer.js"
import { indexedText } from "../../src/search/indexedText.js"
import { windowStart } from "../../src/domain/validity.js"
import { admits } from "../../src/domain/nodeFilter.js"
import { tempDir } from "../support/graphFixtures.js"

interface Db {
  exec: (sql: string) => void
  prepare: (sql: string) => { all: (...args: Array<unknown>) => Array<Record<string, unknown>>; run: (...args: Array<unknown>) => unknown }
  close: () => void
}
const Database = createRequire(import.meta.url)("better-sqlite3") as new (file: string) => Db

const fileOf = (dir: string) => path.join(dir, "graph", "memory_graph.sqlite")
const open = (dir: string) => makeGraphStoreSqlite({ file: fileOf(dir), importJson: null, snapshotsDir: path.join(dir, "snapshots") })

/**
 * The stored postings, term → rowids (one per occurrence), after checking the blocks' layout: each keyed by its
 * first rowid, at most BLOCK_POSTINGS, a term's blocks in ascending disjoint ranges, no rowid in two blocks.
 */
const stored = (dir: string): Record<string, Array<number>> => {
  const db = new Database(fileOf(dir))
  try {
    const out: Record<string, Array<number>> = {}
    for (const r of db.prepare("SELECT term, first, docs FROM term_postings ORDER BY term, first").all()) {
      const b = r.docs as Buffer
      const rids = Array.from({ length: b.length / 4 }, (_, i) => b.readInt32LE(4 * i))
      expect(rids.length).toBeGreaterThan(0)
      expect(rids.length).toBeLessThanOrEqual(BLOCK_POSTINGS)
      expect(rids[0]).toBe(Number(r.first))
      const list = (out[String(r.term)] ??= [])
      expect(list.length === 0 || list[list.length - 1]! < rids[0]!).toBe(true)
      list.push(...rids)
    }
    return out
  } finally {
    db.close()
  }
}

/** What a rebuild gives: the FTS5 index's own postings (its instance vocabulary). */
const rebuilt = (dir: string): Record<string, Array<number>> => {
  const db = new Database(fileOf(dir))
  try {
    db.exec("CREATE VIRTUAL TABLE temp.inst USING fts5vocab(main, node_terms, instance)")
    const out: Record<string, Array<number>> = {}
    for (const r of db.prepare("SELECT term, doc FROM temp.inst ORDER BY term, doc").all()) (out[String(r.term)] ??= []).push(Number(r.doc))
    return out
  } finally {
    db.close()
  }
}

/** How many blocks each term has. */
const blockCounts = (dir: string): Record<string, number> => {
  const db = new Database(fileOf(dir))
  try {
    return Object.fromEntries(db.prepare("SELECT term, count(*) AS n FROM term_postings GROUP BY term ORDER BY term").all().map((r) => [String(r.term), Number(r.n)]))
  } finally {
    db.close()
  }
}

/** Every term's postings as the nodes' text gives them: term → node id per occurrence. */
const fromText = (nodes: ReadonlyArray<MemoryNode>, rowid: (id: string) => number): Record<string, Array<number>> => {
  const out: Record<string, Array<number>> = {}
  for (const n of nodes) for (const t of analyze(indexedText(n.content, windowStart(n)))) (out[t] ??= []).push(rowid(n.id))
  for (const list of Object.values(out)) list.sort((a, b) => a - b)
  return out
}
const rowids = (dir: string) => {
  const db = new Database(fileOf(dir))
  try {
    const m = new Map(db.prepare("SELECT id, rowid AS rid FROM nodes").all().map((r) => [String(r.id), Number(r.rid)] as const))
    return (id: string) => m.get(id)!
  } finally {
    db.close()
  }
}
const at = "2026-03-01T10:00:00.000Z"
const mem = (id: string, content: string, extra: Partial<MemoryNode> = {}) => makeNode({ id, type: "semantic", content, createdAt: at, ...extra })
const words = ["apple", "pear", "plum", "staging", "server", "port", "lunch", "friday", "zebra", "river"]
// 1,500 nodes of 2-6 words, some words twice (a term frequency above 1): every node's date terms ("2026",
// "march") and the commonest words fill more than one block.
const nodes = Array.from({ length: 1500 }, (_, i) =>
  mem(`n${i}`, Array.from({ length: 2 + (i % 5) }, (_, j) => words[(i * 7 + j * (1 + (i % 3))) % words.length]).join(" "))
)
const filter = { asOf: null, includeHistory: false, now: "2026-04-01T00:00:00.000Z", scope: null }
/** The reference BM25 (LexicalIndex) over every node, the active ones returned: what a query must answer, to the last bit. */
const reference = (all: ReadonlyArray<MemoryNode>, text: string, k: number) => {
  const index = new LexicalIndex({ k1: 1.2, b: 0.75, analyzer: analyze })
  for (const n of all) index.add(n.id, indexedText(n.content, windowStart(n)))
  const byId = new Map(all.map((n) => [n.id, n]))
  return index.search(text, k, (id) => admits(byId.get(id)!, filter)).map((h) => ({ id: h.key, score: h.score }))
}

describe("SQLite term postings: compact blocks kept by the writers", () => {
  it.scopedLive("insert, supersede, rewrite, delete and restore leave the postings a rebuild gives; queries answer as the reference BM25", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      const store = yield* open(dir)
      const reader = yield* open(dir)
      let live = [...nodes]
      const check = (queries: ReadonlyArray<string>) =>
        Effect.gen(function* () {
          const postings = stored(dir)
          expect(postings).toEqual(rebuilt(dir))
          expect(postings).toEqual(fromText(live, rowids(dir)))
          for (const text of queries) {
            const hits = yield* reader.lexicalTopK({ text, k: 7, filter, k1: 1.2, b: 0.75 })
            expect(hits).toEqual(reference(live, text, 7))
          }
        })

      yield* store.commit({ upsertNodes: nodes })
      yield* check(["apple pear", "staging server port", "zebra river apple"])
      expect(blockCounts(dir)).toEqual({ 2026: 2, appl: 1, fridai: 1, lunch: 1, march: 2, pear: 1, plum: 1, port: 1, river: 1, server: 1, stage: 1, zebra: 1 })

      // Supersede: the old node stays indexed (the filter hides it), a new one comes.
      const old = { ...nodes[3]!, status: "superseded" as const, validTo: "2026-03-02T00:00:00.000Z" }
      const next = mem("n3b", "plum plum lunch friday")
      yield* store.commit({ upsertNodes: [old, next] })
      live = [...live.map((n) => (n.id === "n3" ? old : n)), next]
      yield* check(["plum lunch", "apple pear"])

      // A rewrite with new words (terms out and in), and reinforcement (terms untouched).
      const rewritten = mem("n10", "zebra zebra zebra harbour")
      yield* store.commit({ upsertNodes: [rewritten, { ...nodes[11]!, accessCount: 9 }] })
      live = live.map((n) => (n.id === "n10" ? rewritten : n.id === "n11" ? { ...nodes[11]!, accessCount: 9 } : n))
      yield* check(["zebra harbour", "river"])

      // Delete (the word "harbour" leaves the postings with its only node), in one commit with an upsert.
      const added = mem("x1", "river port harbourmaster")
      yield* store.commit({ deleteNodes: ["n10", "n20", "n21"], upsertNodes: [added] })
      live = [...live.filter((n) => !["n10", "n20", "n21"].includes(n.id)), added]
      yield* check(["zebra harbour", "river port"])
      expect(Object.keys(stored(dir))).not.toContain("harbour")

      // A row whose stored terms no longer match its text (an analyzer change): its delete rebuilds the postings.
      const db = new Database(fileOf(dir))
      db.prepare("UPDATE nodes SET lex_hash = 'x' WHERE id = 'n30'").run()
      db.close()
      yield* store.commit({ deleteNodes: ["n30"] })
      live = live.filter((n) => n.id !== "n30")
      yield* check(["apple pear"])

      // Restore: everything replaced.
      const restored = [mem("z1", "only the zebra remains"), mem("z2", "zebra and river")]
      yield* store.replaceAll({ nodes: new Map(restored.map((n) => [n.id, n])), edges: [] })
      live = restored
      yield* check(["zebra", "apple"])
      expect(Object.keys(stored(dir))).toEqual(["2026", "march", "remain", "river", "zebra"])
    })
  )
})
