import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { runAwhm, scopedTempDir } from "../support/cli.js"
import { testCluster } from "../support/pgCluster.js"
import { freshNamespace, grantNamespace, openTestDatabase } from "../support/postgres.js"

const awhm = (args: ReadonlyArray<string>, dataDir: string, env: Record<string, string> = {}) =>
  Effect.promise(() => runAwhm(args, { dataDir, env }))

describe("awhm migrate --to postgres", () => {
  it.scopedLive("copies a local data dir into a namespace, a second run adds nothing, and awhm carries on there", () =>
    Effect.gen(function* () {
      const local = yield* scopedTempDir()
      for (const text of ["I live in Lisbon", "The staging host is stg2.example.com", "I prefer Python for scripts"]) {
        expect((yield* awhm(["log", "--session", "s/1", "--role", "user", text], local)).code).toBe(0)
      }
      expect(JSON.parse((yield* awhm(["consolidate", "--json"], local)).stdout)).toMatchObject({ newNodes: 4 })
      const localStatus = JSON.parse((yield* awhm(["status", "--json"], local)).stdout) as { nodes: number; edges: number }

      const ns = freshNamespace("user")
      yield* grantNamespace("awhm_alice", ns, true)
      const env = { AWHM_POSTGRES_URL: testCluster().urls.awhm_alice }
      const args = ["migrate", "--from", local, "--to", "postgres", "--namespace", ns, "--json"]
      const first = yield* awhm(args, local, env)
      expect(first.code).toBe(0)
      const report = { namespace: ns, nodes: localStatus.nodes, edges: localStatus.edges, sessions: 1, messages: 3 }
      expect(JSON.parse(first.stdout)).toEqual(report)
      expect(first.stderr).toBe(
        [
          `awhm migrate: graph: ${localStatus.nodes} nodes, ${localStatus.edges} edges`,
          "awhm migrate: [1/1] session s/1: 3 messages",
          "awhm migrate: consolidation progress: 1 sessions",
          ""
        ].join("\n")
      )
      const again = yield* awhm(args, local, env)
      expect(JSON.parse(again.stdout)).toEqual(report)

      const db = yield* openTestDatabase("awhm_alice", ns)
      const [rows] = yield* db.sql<{ nodes: number; messages: number; progress: number }>`SELECT
        (SELECT count(*)::int FROM awhm.nodes) AS nodes, (SELECT count(*)::int FROM awhm.messages) AS messages,
        (SELECT max(last_msg_index)::int FROM awhm.consolidation_progress) AS progress`
      expect(rows).toEqual({ nodes: localStatus.nodes, messages: 3, progress: 2 })

      // The namespace now works as the data dir did: nothing left to consolidate, the next index is 3.
      const pg = yield* scopedTempDir()
      const pgEnv = { ...env, AWHM_STORAGE_BACKEND: "postgres", AWHM_WRITE_NAMESPACE: ns }
      expect(JSON.parse((yield* awhm(["consolidate", "--json"], pg, pgEnv)).stdout)).toEqual({ newNodes: 0, sessions: {} })
      expect(JSON.parse((yield* awhm(["log", "--json", "--session", "s/1", "--role", "user", "ok"], pg, pgEnv)).stdout)).toMatchObject({ messageIndex: 3 })
      const found = JSON.parse((yield* awhm(["query", "--json", "staging host"], pg, pgEnv)).stdout) as { results: Array<{ content: string }> }
      expect(found.results[0]?.content).toBe("The staging host is stg2.example.com")
    })
  )

  it.scopedLive("a bad namespace or a missing URL is one line and exit 2", () =>
    Effect.gen(function* () {
      const local = yield* scopedTempDir()
      const bad = yield* awhm(["migrate", "--from", local, "--to", "postgres", "--namespace", "alice"], local, { AWHM_POSTGRES_URL: testCluster().urls.awhm_alice })
      expect(bad.code).toBe(2)
      expect(bad.stderr).toContain("write_namespace: must be a namespace such as user:alice")
      const missing = yield* awhm(["migrate", "--from", local, "--to", "postgres", "--namespace", "user:x"], local)
      expect(missing.code).toBe(2)
      expect(missing.stderr).toBe("awhm: invalid configuration: awhm migrate --to postgres needs postgres_url (--postgres-url or AWHM_POSTGRES_URL)\n")
    })
  )
})
