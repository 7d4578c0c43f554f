import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { NodeFilter } from "../../src/domain/nodeFilter.js"
import { openGraphStoreFile } from "../../src/layers/graph/openStore.js"
import { filterSql } from "../../src/layers/graph/sqliteSearch.js"
import { dataPaths } from "../../src/store/paths.js"
import { scopedTempDir } from "../support/cli.js"
import { plainNode } from "../support/graphFixtures.js"

// The store's search filter narrows candidates found by id or rowid: SQLite must look them up by key, not
// walk the status index (every current node is 'active': at 100k nodes that walk took ~90 ms per query).
describe("SQLite store query plans", () => {
  it.scoped("the current-memory filter keeps candidate lookups on the primary key", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir("awhm-plan-")
      const store = yield* openGraphStoreFile("sqlite", dir)
      yield* store.commit({ upsertNodes: [plainNode("a"), plainNode("b")] })
      const sql = yield* SqliteClient.make({ filename: dataPaths(dir).graphSqlite }).pipe(Effect.provide(Reactivity.layer))
      const now = "2026-12-01T00:00:00.000Z"
      // As many ids as a query's candidates (preselect: 200).
      const ids = Array.from({ length: 200 }, (_, i) => `n${i}`)
      const plan = (filter: NodeFilter) => {
        const { where, params } = filterSql(filter)
        const query = `EXPLAIN QUERY PLAN SELECT n.id FROM nodes n WHERE n.id IN (${ids.map(() => "?").join(", ")}) AND ${where}`
        return Effect.map(sql.unsafe<{ detail: string }>(query, [...ids, ...params]), (rows) => rows.map((r) => r.detail))
      }
      const byKey = ["SEARCH n USING INDEX sqlite_autoindex_nodes_1 (id=?)"]
      expect(yield* plan({ asOf: null, includeHistory: false, now, scope: null })).toEqual(byKey)
      expect(yield* plan({ asOf: null, includeHistory: false, now, scope: "team" })).toEqual(byKey)
      expect(yield* plan({ asOf: now, includeHistory: false, now, scope: null })).toEqual(byKey)
    })
  )
})
