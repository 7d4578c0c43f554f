import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import { namespacePolicies } from "./namespacePolicies.js"

/**
 * Each node's lookup keys (text/lookupKeys: statement key, attribute heads, entity first tokens and forms),
 * so consolidation asks for the nodes a batch may touch instead of reading the namespace: a key's nodes are
 * one range of the primary key (byte order, so a prefix is a range too). Rows written before this are keyed
 * by the next client that writes their namespace (`keyed`).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE awhm.node_keys (
    namespace TEXT NOT NULL,
    key TEXT COLLATE "C" NOT NULL,
    node_id TEXT NOT NULL,
    pos INTEGER NOT NULL,
    PRIMARY KEY (namespace, key, node_id)
  )`
  yield* sql`CREATE INDEX node_keys_node ON awhm.node_keys (namespace, node_id)`
  yield* namespacePolicies("node_keys")
  yield* sql`ALTER TABLE awhm.nodes ADD COLUMN keyed BOOLEAN NOT NULL DEFAULT false`
  yield* sql`CREATE INDEX nodes_unkeyed ON awhm.nodes (namespace) WHERE NOT keyed`
})
