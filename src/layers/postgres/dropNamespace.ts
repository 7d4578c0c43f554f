import { Effect } from "effect"
import { NAMESPACED_TABLES } from "./migrations/namespacePolicies.js"
import type { PostgresDatabaseShape } from "./PostgresDatabase.js"

/**
 * Removes every row of the client's write namespace, in one transaction (an eval replay's scratch
 * namespace when it ends), and, for the schema owner, the namespace's grants.
 */
export const dropNamespace = (db: PostgresDatabaseShape) =>
  db.sql
    .withTransaction(
      Effect.gen(function* () {
        for (const table of NAMESPACED_TABLES) yield* db.sql.unsafe(`DELETE FROM awhm.${table} WHERE namespace = $1`, [db.writeNamespace])
        if (db.isOwner) yield* db.sql`DELETE FROM awhm.grants WHERE namespace = ${db.writeNamespace}`
      })
    )
    .pipe(Effect.mapError(db.fail("remove the namespace")))
