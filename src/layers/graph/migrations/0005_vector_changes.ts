import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * Which node's vector each move of `vectors_version` was, so a reader holding the vectors of an older version
 * (in memory or in the saved vector image, GraphStoreSqlite) re-reads only the rows changed since. Kept by the
 * node_vectors triggers in the writer's own transaction; only the last VECTOR_CHANGES_KEPT are kept (a reader
 * older than that reads every vector again).
 */
export const VECTOR_CHANGES_KEPT = 20_000

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE vector_changes (version INTEGER PRIMARY KEY, node_id TEXT NOT NULL)`
  const version = `(SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'vectors_version')`
  for (const [name, event, row] of [["insert", "INSERT", "NEW"], ["update", "UPDATE", "NEW"], ["delete", "DELETE", "OLD"]] as const) {
    yield* sql.unsafe(`DROP TRIGGER IF EXISTS node_vectors_${name}`)
    yield* sql.unsafe(`CREATE TRIGGER node_vectors_${name} AFTER ${event} ON node_vectors BEGIN
      UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'vectors_version';
      INSERT INTO vector_changes (version, node_id) VALUES (${version}, ${row}.node_id);
      DELETE FROM vector_changes WHERE version <= ${version} - ${VECTOR_CHANGES_KEPT};
    END`)
  }
})
