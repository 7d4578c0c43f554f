import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import { rebuildTermPostings } from "../termPostings.js"

/**
 * Each term's postings as compact blobs (graph/termPostings.ts), built once from the FTS5 index; the writers
 * keep them in step from then on. About 3 s at 100k nodes, 30 s at 1M.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE term_postings (term TEXT NOT NULL, first INTEGER NOT NULL, docs BLOB NOT NULL, PRIMARY KEY (term, first)) WITHOUT ROWID`
  yield* rebuildTermPostings(sql)
})
