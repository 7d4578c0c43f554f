import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * The embedding model a node row's JSON leaves out when the node has it (graph/sqliteRow): fixed for the
 * database once written, so every row written under it reads back with it. The project's default model at
 * the time, spelled out (not imported): it must not follow a later default.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`INSERT OR IGNORE INTO meta (key, value) VALUES ('row_embed_model', 'Xenova/all-MiniLM-L6-v2')`
})
