import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/** Every table that holds namespaced rows (what removing a namespace empties). */
export const NAMESPACED_TABLES = [
  "nodes",
  "node_sources",
  "edges",
  "graph_versions",
  "graph_deletions",
  "log_sessions",
  "messages",
  "consolidation_progress",
  "tombstones",
  "deletion_ledger",
  "namespace_meta",
  "lexical_stats",
  "node_terms",
  "node_keys"
] as const

/**
 * Row-level security of one namespaced table: a row is read only in a readable namespace and written only
 * in the write namespace (awhm.readable_namespaces / awhm.write_namespace, from the grants).
 */
export const namespacePolicies = (table: (typeof NAMESPACED_TABLES)[number]) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const t = `awhm.${table}`
    // FORCE: the owner is held to the policies too (only superusers and BYPASSRLS roles are not).
    yield* sql.unsafe(`ALTER TABLE ${t} ENABLE ROW LEVEL SECURITY`)
    yield* sql.unsafe(`ALTER TABLE ${t} FORCE ROW LEVEL SECURITY`)
    // The (SELECT ...) makes each an init plan: computed once per statement, not once per row.
    yield* sql.unsafe(`CREATE POLICY ns_select ON ${t} FOR SELECT USING (namespace = ANY ((SELECT awhm.readable_namespaces())::text[]))`)
    yield* sql.unsafe(`CREATE POLICY ns_insert ON ${t} FOR INSERT WITH CHECK (namespace = (SELECT awhm.write_namespace()))`)
    yield* sql.unsafe(
      `CREATE POLICY ns_update ON ${t} FOR UPDATE USING (namespace = (SELECT awhm.write_namespace())) WITH CHECK (namespace = (SELECT awhm.write_namespace()))`
    )
    yield* sql.unsafe(`CREATE POLICY ns_delete ON ${t} FOR DELETE USING (namespace = (SELECT awhm.write_namespace()))`)
    yield* sql.unsafe(`GRANT SELECT, INSERT, UPDATE, DELETE ON ${t} TO PUBLIC`)
  })
