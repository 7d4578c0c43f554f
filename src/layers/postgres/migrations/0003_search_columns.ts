import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import { namespacePolicies } from "./namespacePolicies.js"

/**
 * Candidate search in the database: each node row carries its analyzed terms (the same terms LexicalIndex
 * indexes; their postings in awhm.node_terms) and the columns a search filter reads, and each namespace its BM25 statistics, kept
 * by the writers in the transaction of the rows. Rows written before this are indexed by the next client
 * that writes their namespace (search/analyzer id in lexical_stats). The unused generated tsvector goes.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`DROP INDEX awhm.nodes_tsv`
  yield* sql`ALTER TABLE awhm.nodes DROP COLUMN tsv`
  yield* sql`ALTER TABLE awhm.nodes ADD COLUMN lex_terms TEXT[], ADD COLUMN lex_len INTEGER, ADD COLUMN window_start TEXT,
    ADD COLUMN valid_to TEXT, ADD COLUMN scope TEXT, ADD COLUMN access_count INTEGER NOT NULL DEFAULT 0`
  // The inverted index as rows: a term's postings are one range of the primary key. (A GIN index on
  // lex_terms cannot serve: row-level security evaluates the array operators, which are not leakproof,
  // only after its own checks, so the planner never uses such an index for a client.)
  yield* sql`CREATE TABLE awhm.node_terms (
    namespace TEXT NOT NULL,
    term TEXT NOT NULL,
    node_id TEXT NOT NULL,
    tf INTEGER NOT NULL,
    len INTEGER NOT NULL,
    PRIMARY KEY (namespace, term, node_id)
  )`
  yield* namespacePolicies("node_terms")
  yield* sql`CREATE INDEX nodes_unindexed ON awhm.nodes (namespace) WHERE lex_terms IS NULL`
  yield* sql`CREATE INDEX nodes_access ON awhm.nodes (namespace, access_count)`
  yield* sql`CREATE TABLE awhm.lexical_stats (
    namespace TEXT PRIMARY KEY,
    analyzer TEXT NOT NULL,
    docs BIGINT NOT NULL,
    total BIGINT NOT NULL
  )`
  yield* namespacePolicies("lexical_stats")
})
