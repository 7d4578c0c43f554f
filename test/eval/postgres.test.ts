import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { makePostgresDatabase } from "../../src/layers/postgres/PostgresDatabase.js"
import { ROOT, runAwhm, scopedTempDir } from "../support/cli.js"
import { testCluster } from "../support/pgCluster.js"
import { freshNamespace } from "../support/postgres.js"

// `awhm eval` on storage_backend postgres: each conversation replays into a scratch namespace of its own,
// removed afterwards; the figures are the SQLite replay's.

const LOCOMO = path.join(ROOT, "test", "fixtures", "locomo-mini.json")
const figures = (stdout: string) => {
  const { recall_any_at_10, recall_all_at_10, recall_at_k, answer_recall_at_k, by_category, cases } = JSON.parse(stdout) as Record<string, unknown>
  // Each case as ranked, without its time.
  const ranked = (cases as Array<Record<string, unknown>>).map(({ latency_ms: _, ...rest }) => rest)
  return { recall_any_at_10, recall_all_at_10, recall_at_k, answer_recall_at_k, by_category, cases: ranked }
}

describe("awhm eval on PostgreSQL", () => {
  it.scopedLive("gives the SQLite replay's figures and leaves no replay namespace behind, the user's own namespace untouched", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir()
      const args = ["eval", "--corpus", LOCOMO, "--format", "locomo", "--json"]
      const sqlite = yield* Effect.promise(() => runAwhm(args, { dataDir: dir }))
      expect(sqlite.code).toBe(0)
      const mine = freshNamespace("team")
      const env = { AWHM_STORAGE_BACKEND: "postgres", AWHM_POSTGRES_URL: testCluster().urls.awhm_owner, AWHM_WRITE_NAMESPACE: mine }
      const pg = yield* Effect.promise(() => runAwhm(args, { dataDir: dir, env }))
      expect([pg.code, pg.stderr]).toEqual([0, ""])
      expect(figures(pg.stdout)).toEqual(figures(sqlite.stdout))
      expect(figures(pg.stdout).recall_any_at_10).toBe(1)

      // A role that is not the schema's owner cannot make the scratch namespace: the replay really is on the server.
      const alice = yield* Effect.promise(() => runAwhm(args, { dataDir: dir, env: { ...env, AWHM_POSTGRES_URL: testCluster().urls.awhm_alice } }))
      expect(alice.code).toBe(1)
      expect(alice.stderr).toMatch(/^awhm: the role awhm_alice may not write namespace team:locomo-replay-[0-9a-f]{12} on postgres:\/\/awhm_alice@/)

      // The superuser sees past the row-level security: no row or grant of a replay namespace is left.
      const su = yield* makePostgresDatabase({ url: Redacted.make(testCluster().superuserUrl), writeNamespace: freshNamespace("check"), readNamespaces: [] })
      const [left] = yield* su.sql<{ rows: number; grants: number; mine: number }>`SELECT
        (SELECT count(*)::int FROM awhm.messages WHERE namespace LIKE 'team:locomo-replay-%')
          + (SELECT count(*)::int FROM awhm.nodes WHERE namespace LIKE 'team:locomo-replay-%')
          + (SELECT count(*)::int FROM awhm.log_sessions WHERE namespace LIKE 'team:locomo-replay-%') AS rows,
        (SELECT count(*)::int FROM awhm.grants WHERE namespace LIKE 'team:locomo-replay-%') AS grants,
        (SELECT count(*)::int FROM awhm.messages WHERE namespace = ${mine}) AS mine`
      expect(left).toEqual({ rows: 0, grants: 0, mine: 0 })
    })
  )
})
