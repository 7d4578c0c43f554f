import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import { NAMESPACED_TABLES, namespacePolicies } from "./namespacePolicies.js"

/** The namespaced tables this migration creates (later ones add the rest): each gets the same four policies. */
const TABLES = NAMESPACED_TABLES.filter((t) => t !== "lexical_stats" && t !== "node_terms" && t !== "node_keys")

/**
 * The schema `awhm`. Isolation is the database's: every row names its namespace, and the policies
 * admit a row only when the connected role holds a grant for that namespace (`awhm.grants`, written by
 * the schema owner) and the connection's settings `app.namespaces` (read list) / `app.write_namespace`
 * name it. A client may SET those settings to anything; without a grant they open nothing.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE awhm.grants (
    role_name TEXT NOT NULL,
    namespace TEXT NOT NULL,
    can_write BOOLEAN NOT NULL DEFAULT false,
    PRIMARY KEY (role_name, namespace)
  )`
  // Each role sees its own grants (the owner, not forced, sees and manages all of them).
  yield* sql`ALTER TABLE awhm.grants ENABLE ROW LEVEL SECURITY`
  yield* sql`CREATE POLICY own_grants ON awhm.grants FOR SELECT USING (role_name = current_user)`
  yield* sql`GRANT USAGE ON SCHEMA awhm TO PUBLIC`
  // Every client checks the schema version at open.
  yield* sql`GRANT SELECT ON awhm.awhm_migrations TO PUBLIC`
  yield* sql`GRANT SELECT ON awhm.grants TO PUBLIC`
  // Schema-qualified: a temp table named "grants" cannot stand in for the real one.
  yield* sql`CREATE FUNCTION awhm.readable_namespaces() RETURNS text[] LANGUAGE sql STABLE AS $$
    SELECT coalesce(array_agg(g.namespace), '{}') FROM awhm.grants g
    WHERE g.role_name = current_user
      AND g.namespace = ANY (string_to_array(current_setting('app.namespaces', true), ','))
  $$`
  yield* sql`CREATE FUNCTION awhm.write_namespace() RETURNS text LANGUAGE sql STABLE AS $$
    SELECT g.namespace FROM awhm.grants g
    WHERE g.role_name = current_user AND g.can_write
      AND g.namespace = current_setting('app.write_namespace', true)
  $$`

  yield* sql`CREATE TABLE awhm.nodes (
    namespace TEXT NOT NULL,
    id TEXT NOT NULL,
    seq BIGINT GENERATED ALWAYS AS IDENTITY,
    changed_at BIGINT NOT NULL,
    data TEXT NOT NULL,
    status TEXT NOT NULL,
    canonical_key TEXT,
    embedding BYTEA,
    embed_dim INTEGER,
    embed_model TEXT,
    tsv TSVECTOR GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, (data::jsonb) ->> 'content')) STORED,
    PRIMARY KEY (namespace, id)
  )`
  yield* sql`CREATE INDEX nodes_order ON awhm.nodes (namespace, seq)`
  yield* sql`CREATE INDEX nodes_changed ON awhm.nodes (namespace, changed_at)`
  yield* sql`CREATE INDEX nodes_slot ON awhm.nodes (namespace, canonical_key, status)`
  yield* sql`CREATE INDEX nodes_tsv ON awhm.nodes USING GIN (tsv)`
  yield* sql`CREATE TABLE awhm.node_sources (
    namespace TEXT NOT NULL,
    session_id TEXT NOT NULL,
    message_index INTEGER NOT NULL,
    node_id TEXT NOT NULL,
    PRIMARY KEY (namespace, session_id, message_index, node_id)
  )`
  yield* sql`CREATE INDEX node_sources_node ON awhm.node_sources (namespace, node_id)`
  yield* sql`CREATE TABLE awhm.edges (
    namespace TEXT NOT NULL,
    source TEXT NOT NULL,
    target TEXT NOT NULL,
    type TEXT NOT NULL,
    weight DOUBLE PRECISION NOT NULL,
    created_at TEXT NOT NULL,
    seq BIGINT GENERATED ALWAYS AS IDENTITY,
    changed_at BIGINT NOT NULL,
    PRIMARY KEY (namespace, source, target, type)
  )`
  yield* sql`CREATE INDEX edges_target ON awhm.edges (namespace, target)`
  yield* sql`CREATE INDEX edges_changed ON awhm.edges (namespace, changed_at)`
  // Bumped by every graph write; rows carry the version that last wrote them (changed_at), deleted node
  // ids are listed with theirs, so a client refreshes its cached graph with only what changed since.
  // reset_at: the version of the last whole-graph replace (a snapshot restore), which needs a full read.
  yield* sql`CREATE TABLE awhm.graph_versions (
    namespace TEXT PRIMARY KEY,
    version BIGINT NOT NULL,
    reset_at BIGINT NOT NULL DEFAULT 0
  )`
  yield* sql`CREATE TABLE awhm.graph_deletions (
    namespace TEXT NOT NULL,
    version BIGINT NOT NULL,
    node_id TEXT NOT NULL
  )`
  yield* sql`CREATE INDEX graph_deletions_version ON awhm.graph_deletions (namespace, version)`

  // next_index is the session's high-water mark: an index is never handed out twice, even after a delete.
  yield* sql`CREATE TABLE awhm.log_sessions (
    namespace TEXT NOT NULL,
    session_id TEXT NOT NULL,
    next_index INTEGER NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (namespace, session_id)
  )`
  yield* sql`CREATE TABLE awhm.messages (
    namespace TEXT NOT NULL,
    session_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    timestamp TEXT NOT NULL,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    metadata TEXT NOT NULL,
    PRIMARY KEY (namespace, session_id, idx)
  )`
  yield* sql`CREATE TABLE awhm.consolidation_progress (
    namespace TEXT NOT NULL,
    session_id TEXT NOT NULL,
    last_msg_index INTEGER NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (namespace, session_id)
  )`
  yield* sql`CREATE TABLE awhm.tombstones (
    namespace TEXT NOT NULL,
    tombstone_id TEXT NOT NULL,
    timestamp TEXT NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (namespace, tombstone_id)
  )`
  yield* sql`CREATE TABLE awhm.deletion_ledger (
    namespace TEXT NOT NULL,
    record_id TEXT NOT NULL,
    timestamp TEXT NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (namespace, record_id)
  )`
  yield* sql`CREATE TABLE awhm.namespace_meta (
    namespace TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (namespace, key)
  )`

  for (const table of TABLES) yield* namespacePolicies(table)
})
