import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * The store answers queries itself: the columns a search filters on (window, scope, access count), a
 * contentless FTS5 index of each node's analyzed terms (secure-delete: a deleted node's entries leave the
 * index at once), and the collection statistics exact BM25 needs, kept by triggers. The rows are indexed by
 * the layer right after this migration (the analyzer runs in JavaScript).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE nodes ADD COLUMN window_start TEXT NOT NULL DEFAULT ''`
  yield* sql`ALTER TABLE nodes ADD COLUMN valid_to TEXT`
  yield* sql`ALTER TABLE nodes ADD COLUMN scope TEXT`
  yield* sql`ALTER TABLE nodes ADD COLUMN access_count INTEGER NOT NULL DEFAULT 1`
  // Terms in the lexical index (BM25 document length) and a hash of them (re-index only on change).
  yield* sql`ALTER TABLE nodes ADD COLUMN lex_len INTEGER NOT NULL DEFAULT 0`
  yield* sql`ALTER TABLE nodes ADD COLUMN lex_hash TEXT`
  yield* sql`CREATE INDEX nodes_access_count ON nodes (access_count)`
  yield* sql.unsafe(
    `CREATE VIRTUAL TABLE node_terms USING fts5(terms, content='', contentless_delete=1, tokenize="unicode61 remove_diacritics 0 tokenchars '_'")`
  )
  yield* sql.unsafe(`INSERT INTO node_terms (node_terms, rank) VALUES ('secure-delete', 1)`)
  yield* sql.unsafe(`CREATE VIRTUAL TABLE node_terms_df USING fts5vocab(node_terms, row)`)
  yield* sql`CREATE TABLE lexical_stats (id INTEGER PRIMARY KEY CHECK (id = 1), docs INTEGER NOT NULL, total INTEGER NOT NULL)`
  yield* sql`INSERT INTO lexical_stats (id, docs, total) SELECT 1, count(*), coalesce(sum(lex_len), 0) FROM nodes`
  yield* sql.unsafe(`CREATE TRIGGER nodes_stats_insert AFTER INSERT ON nodes BEGIN
    UPDATE lexical_stats SET docs = docs + 1, total = total + NEW.lex_len WHERE id = 1; END`)
  yield* sql.unsafe(`CREATE TRIGGER nodes_stats_delete AFTER DELETE ON nodes BEGIN
    UPDATE lexical_stats SET docs = docs - 1, total = total - OLD.lex_len WHERE id = 1; END`)
  yield* sql.unsafe(`CREATE TRIGGER nodes_stats_update AFTER UPDATE OF lex_len ON nodes BEGIN
    UPDATE lexical_stats SET total = total - OLD.lex_len + NEW.lex_len WHERE id = 1; END`)
  // Readers keep vectors in memory and reload them only when this moves.
  yield* sql`INSERT OR REPLACE INTO meta (key, value) VALUES ('vectors_version', '0')`
  for (const [name, event] of [["insert", "INSERT"], ["update", "UPDATE"], ["delete", "DELETE"]] as const) {
    yield* sql.unsafe(`CREATE TRIGGER node_vectors_${name} AFTER ${event} ON node_vectors BEGIN
      UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'vectors_version'; END`)
  }
  yield* sql`INSERT OR REPLACE INTO meta (key, value) VALUES ('search_index', 'pending')`
})
