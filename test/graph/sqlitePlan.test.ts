import Database from "better-sqlite3"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { openGraphStoreFile } from "../../src/layers/graph/openStore.js"
import { filterSql } from "../../src/layers/graph/sqliteSearch.js"
import type { NodeFilter } from "../../src/domain/nodeFilter.js"
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
      const db = new Database(dataPaths(dir).graphSqlite, { readonly: true })
      try {
        const now = "2026-12-01T00:00:00.000Z"
        const plan = (filter: NodeFilter) => {
          const { where, params } = filterSql(filter)
          // As many ids as a query's candidates (preselect: 200).
          const ids = Array.from({ length: 200 }, (_, i) => `n${i}`)
          const rows = db.prepare(`EXPLAIN QUERY PLAN SELECT n.id FROM nodes n WHERE n.id IN (${ids.map(() => "?").join(", ")}) AND ${where}`).all(...ids, ...params)
          return (rows as Array<{ detail: string }>).map((r) => r.detail)
        }
        expect(plan({ asOf: null, includeHistory: false, now, scope: null })).toEqual(["SEARCH n USING INDEX sqlite_autoindex_nodes_1 (id=?)"])
        expect(plan({ asOf: null, includeHistory: false, now, scope: "team" })).toEqual(["SEARCH n USING INDEX sqlite_autoindex_nodes_1 (id=?)"])
        expect(plan({ asOf: now, includeHistory: false, now, scope: null })).toEqual(["SEARCH n USING INDEX sqlite_autoindex_nodes_1 (id=?)"])
      } finally {
        db.close()
      }
    })
  )
})
