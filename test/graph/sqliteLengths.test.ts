import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { createRequire } from "node:module"
import * as path from "node:path"
import { makeNode } from "../../src/domain/Node.js"
import { makeGraphStoreSqlite } from "../../src/layers/GraphStoreSqlite.js"
import type { LexicalQuery } from "../../src/services/GraphStore.js"
import { tempDir } from "../support/graphFixtures.js"

const open = (dir: string) =>
  makeGraphStoreSqlite({ file: path.join(dir, "graph", "memory_graph.sqlite"), importJson: null, snapshotsDir: path.join(dir, "snapshots") })

/**
 * Every read of BM25 document lengths by any connection of this process: the number of rowids asked, or
 * "all" for a read of the whole table.
 */
const lengthReads: Array<number | "all"> = []
// The driver the store's SQLite client loads (better-sqlite3 ships no types): its statements' prototype.
const Database = createRequire(import.meta.url)("better-sqlite3") as new (file: string) => { prepare: (sql: string) => object }
const statement = Object.getPrototypeOf(new Database(":memory:").prepare("SELECT 1")) as { all: (...args: Array<unknown>) => unknown }
const all = statement.all
statement.all = function (this: { source: string }, ...args: Array<unknown>) {
  if (this.source.includes("lex_len") && this.source.includes("group_concat")) {
    lengthReads.push(this.source.includes("json_each") ? (JSON.parse(String(args[0])) as Array<number>).length : "all")
  }
  return all.apply(this, args)
}
/** The length reads since the last call. */
const takeReads = () => lengthReads.splice(0)

const at = "2026-03-01T10:00:00.000Z"
const filter = { asOf: null, includeHistory: false, now: "2026-04-01T00:00:00.000Z", scope: null }
const query = (text: string) => ({ text, k: 5, filter, k1: 1.2, b: 0.75 })
// 800 nodes: 40 name apples (each with a different number of other words), 20 pears, the rest neither.
const content = (i: number, extra = 0) =>
  `${i < 40 ? "apple" : i < 60 ? "pear" : "plum"} ${Array.from({ length: 1 + (i % 7) + extra }, (_, j) => `word${j}`).join(" ")}`
const nodes = Array.from({ length: 800 }, (_, i) => makeNode({ id: `n${i}`, type: "semantic", content: content(i), createdAt: at }))

describe("SQLite lexical search: document lengths kept in a warm process", () => {
  it.scopedLive("reads each candidate's length once, again only for rows whose length changed, and all at once past 1/16 of the rows", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      const writer = yield* open(dir)
      yield* writer.commit({ upsertNodes: nodes })
      const reader = yield* open(dir)
      /** What a store opened now answers (no lengths held). */
      const fresh = (text: string) =>
        Effect.scoped(Effect.flatMap(open(dir), (s) => s.lexicalTopK(query(text)))).pipe(Effect.tap(() => takeReads()))
      takeReads()

      // First query: the 40 apples' lengths, one by one; the same query again reads none.
      const first = yield* reader.lexicalTopK(query("apple"))
      expect(takeReads()).toEqual([40])
      expect(first.map((h) => h.id)).toEqual(["n0", "n7", "n14", "n21", "n28"])
      expect(yield* reader.lexicalTopK(query("apple"))).toEqual(first)
      expect(takeReads()).toEqual([])

      // Another connection lengthens one apple: only its length is read again, and the answer is a fresh store's.
      yield* writer.commit({ upsertNodes: [makeNode({ id: "n0", type: "semantic", content: content(0, 9), createdAt: at })] })
      takeReads()
      const changed = yield* reader.lexicalTopK(query("apple"))
      expect(takeReads()).toEqual([1])
      expect(changed.map((h) => h.id)).toEqual(["n7", "n14", "n21", "n28", "n35"])
      expect(changed).toEqual(yield* fresh("apple"))

      // Reinforcement, or new words of the same count, move no length: nothing is read again.
      yield* writer.commit({ upsertNodes: [makeNode({ id: "n7", type: "semantic", content: "apple other0", createdAt: at, accessCount: 9 })] })
      takeReads()
      expect(yield* reader.lexicalTopK(query("apple"))).toEqual(changed)
      expect(takeReads()).toEqual([])

      // 20 pears read one by one make 61 rows (past 800 / 16 = 50): the next query reads every length at once,
      // and after it no query reads one.
      yield* reader.lexicalTopK(query("pear"))
      expect(takeReads()).toEqual([20])
      const plums = yield* reader.lexicalTopK(query("plum"))
      expect(takeReads()).toEqual(["all"])
      expect(plums).toEqual(yield* fresh("plum"))
      expect(yield* reader.lexicalTopK(query("plum word6"))).toEqual(yield* fresh("plum word6"))
      expect(takeReads()).toEqual([])

      // A new node takes a new rowid; a deleted one's rowid is forgotten: one length read, none for the deleted.
      yield* writer.commit({
        upsertNodes: [makeNode({ id: "n800", type: "semantic", content: "apple", createdAt: at })],
        deleteNodes: ["n14"]
      })
      takeReads()
      const added = yield* reader.lexicalTopK(query("apple"))
      expect(takeReads()).toEqual([1])
      expect(added.map((h) => h.id)).toEqual(["n800", "n7", "n21", "n28", "n35"])
      expect(added).toEqual(yield* fresh("apple"))
    })
  )

  it.scopedLive("a reader whose version the change log no longer reaches forgets every length", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      const writer = yield* open(dir)
      yield* writer.commit({ upsertNodes: nodes })
      const reader = yield* open(dir)
      yield* reader.lexicalTopK(query("apple"))
      takeReads()
      // As if more changes than the log keeps had come: the log lost the move of n21's length.
      yield* writer.commit({ upsertNodes: [makeNode({ id: "n21", type: "semantic", content: content(21, 9), createdAt: at })] })
      const sql = yield* SqliteClient.make({ filename: path.join(dir, "graph", "memory_graph.sqlite") }).pipe(Effect.provide(Reactivity.layer))
      yield* sql`DELETE FROM lexical_changes`
      const after = yield* reader.lexicalTopK(query("apple"))
      expect(takeReads()).toEqual([40])
      expect(after.map((h) => h.id)).toEqual(["n0", "n7", "n14", "n28", "n35"])
    })
  )

  it.scopedLive("a reader holding every length answers as a fresh store, also when the filter refuses the best matches", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      const writer = yield* open(dir)
      // 60 short kiwi nodes in scope "b" (the best "kiwi" matches), 30 longer ones in no scope, and "word0" in
      // every node of `nodes`: a common term whose postings a warm reader skips for most documents.
      const kiwis = Array.from({ length: 90 }, (_, i) =>
        makeNode({
          id: `k${i}`,
          type: "semantic",
          content: i < 60 ? `kiwi word0 ${i % 3 === 0 ? "kiwi" : ""}` : content(i, i % 5).replace(/^\w+/, "kiwi"),
          createdAt: at,
          ...(i < 60 ? { scope: "b" } : {})
        })
      )
      yield* writer.commit({ upsertNodes: [...nodes, ...kiwis] })
      const reader = yield* open(dir)
      for (const text of ["apple", "pear", "plum", "plum word1"]) yield* reader.lexicalTopK(query(text))
      expect(takeReads()).toContain("all")
      const fresh = (q: LexicalQuery) => Effect.scoped(Effect.flatMap(open(dir), (st) => st.lexicalTopK(q)))
      const inScope = (text: string, scope: string) => ({ ...query(text), filter: { ...filter, scope } })

      // The reader reads no length: its answers come from the lengths it holds.
      const all = yield* reader.lexicalTopK(query("kiwi word0"))
      const refused = yield* reader.lexicalTopK(inScope("kiwi word0", "a"))
      const many = yield* reader.lexicalTopK({ ...query("word0 word3 kiwi apple"), k: 40 })
      expect(takeReads()).toEqual([])
      expect(all.map((h) => h.id)).toEqual(["k0", "k3", "k6", "k9", "k12"])
      expect(all).toEqual(yield* fresh(query("kiwi word0")))
      // Scope "a" refuses the 60 best: the answer comes from below them, as a fresh store's does.
      expect(refused.map((h) => h.id)).toEqual(["k70", "k85", "k65", "k71", "k77"])
      expect(refused).toEqual(yield* fresh(inScope("kiwi word0", "a")))
      expect(many).toHaveLength(40)
      expect(many).toEqual(yield* fresh({ ...query("word0 word3 kiwi apple"), k: 40 }))
    })
  )
})
