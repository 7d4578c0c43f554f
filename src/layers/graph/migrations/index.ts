import * as Migrator from "@effect/sql/Migrator"
import createGraph from "./0001_create_graph.js"
import searchIndex from "./0002_search_index.js"
import compactVectors from "./0003_compact_vectors.js"
import lookupKeys from "./0004_lookup_keys.js"
import vectorChanges from "./0005_vector_changes.js"
import rowDefaults from "./0006_row_defaults.js"
import lexicalVersion from "./0007_lexical_version.js"
import termPostings from "./0008_term_postings.js"

// Statically imported so the esbuild bundle carries them (no directory scan at run time).
const migrations = {
  "0001_create_graph": createGraph,
  "0002_search_index": searchIndex,
  "0003_compact_vectors": compactVectors,
  "0004_lookup_keys": lookupKeys,
  "0005_vector_changes": vectorChanges,
  "0006_row_defaults": rowDefaults,
  "0007_lexical_version": lexicalVersion,
  "0008_term_postings": termPostings
}

export const graphMigrations = Migrator.fromRecord(migrations)

/** The id of the newest migration: a database at this id needs no write at open. */
export const latestGraphMigration = Math.max(...Object.keys(migrations).map((name) => Number(name.slice(0, 4))))
