import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * Which BM25 document lengths (nodes.lex_len by rowid) changed, so a warm reader keeps the lengths it has read
 * and reads again only those: lexical_stats.version moves, in the writer's own transaction, when a node row is
 * inserted or deleted (a rowid may be taken again) or its length changes, and by nothing else (not by
 * reinforcement, nor by a rewrite of a node whose terms kept their count); lexical_changes holds the rowid of
 * each move, the last LEXICAL_CHANGES_KEPT of them (a reader older than that forgets every length).
 */
export const LEXICAL_CHANGES_KEPT = 20_000

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE lexical_stats ADD COLUMN version INTEGER NOT NULL DEFAULT 0`
  yield* sql`CREATE TABLE lexical_changes (version INTEGER PRIMARY KEY, rid INTEGER NOT NULL)`
  const log = (row: "NEW" | "OLD") => `INSERT INTO lexical_changes (version, rid) SELECT version, ${row}.rowid FROM lexical_stats WHERE id = 1;
    DELETE FROM lexical_changes WHERE version <= (SELECT version FROM lexical_stats WHERE id = 1) - ${LEXICAL_CHANGES_KEPT};`
  for (const name of ["insert", "delete", "update"]) yield* sql.unsafe(`DROP TRIGGER IF EXISTS nodes_stats_${name}`)
  yield* sql.unsafe(`CREATE TRIGGER nodes_stats_insert AFTER INSERT ON nodes BEGIN
    UPDATE lexical_stats SET docs = docs + 1, total = total + NEW.lex_len, version = version + 1 WHERE id = 1; ${log("NEW")} END`)
  yield* sql.unsafe(`CREATE TRIGGER nodes_stats_delete AFTER DELETE ON nodes BEGIN
    UPDATE lexical_stats SET docs = docs - 1, total = total - OLD.lex_len, version = version + 1 WHERE id = 1; ${log("OLD")} END`)
  yield* sql.unsafe(`CREATE TRIGGER nodes_stats_update AFTER UPDATE OF lex_len ON nodes WHEN OLD.lex_len IS NOT NEW.lex_len BEGIN
    UPDATE lexical_stats SET total = total - OLD.lex_len + NEW.lex_len, version = version + 1 WHERE id = 1; ${log("NEW")} END`)
})
