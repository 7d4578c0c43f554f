import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * Nodes keep the reference's JSON (without the vector) plus indexed columns. Vectors are float32 BLOBs in
 * their own table: a node row then stays small (several per page), so a lexical load reads a fraction of
 * the file, and a 384-dim vector does not leave half of each page empty.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE nodes (
    id TEXT PRIMARY KEY NOT NULL,
    data TEXT NOT NULL,
    status TEXT NOT NULL,
    canonical_key TEXT
  )`
  yield* sql`CREATE INDEX nodes_status ON nodes (status)`
  yield* sql`CREATE INDEX nodes_canonical_key ON nodes (canonical_key)`
  yield* sql`CREATE TABLE node_vectors (
    node_id TEXT PRIMARY KEY NOT NULL,
    embedding BLOB NOT NULL,
    embed_dim INTEGER NOT NULL,
    embed_model TEXT
  )`
  // Where each node came from: one row per source message (message_index -1: the session only).
  yield* sql`CREATE TABLE node_sources (
    session_id TEXT NOT NULL,
    message_index INTEGER NOT NULL,
    node_id TEXT NOT NULL,
    PRIMARY KEY (session_id, message_index, node_id)
  ) WITHOUT ROWID`
  yield* sql`CREATE INDEX node_sources_node ON node_sources (node_id)`
  yield* sql`CREATE TABLE edges (
    source TEXT NOT NULL,
    target TEXT NOT NULL,
    type TEXT NOT NULL,
    weight REAL NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (source, target, type)
  )`
  yield* sql`CREATE INDEX edges_target ON edges (target)`
  yield* sql`CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)`
  yield* sql`INSERT INTO meta (key, value) VALUES ('version', '2.0')`
})
