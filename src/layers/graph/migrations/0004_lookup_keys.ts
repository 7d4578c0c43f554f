import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * Each node's lookup keys (text/lookupKeys: statement key, attribute heads, entity first tokens and forms),
 * so consolidation asks for the nodes a batch may touch instead of reading the graph. The rows are keyed
 * by the layer right after this migration (the keys are computed in JavaScript).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE node_keys (
    node_id TEXT NOT NULL,
    pos INTEGER NOT NULL,
    key TEXT NOT NULL,
    PRIMARY KEY (node_id, pos)
  ) WITHOUT ROWID`
  yield* sql`CREATE INDEX node_keys_key ON node_keys (key)`
  yield* sql`INSERT OR REPLACE INTO meta (key, value) VALUES ('lookup_keys', 'pending')`
})
