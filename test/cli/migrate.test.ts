import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { runAwhm, scopedTempDir } from "../support/cli.js"
import { testCluster } from "../support/pgCluster.js"
import { freshNamespace, grantNamespace, openTestDatabase } from "../support/postgres.js"

/** What a migrate of one session says on stderr, one line per step. */
const progressLines = (graph: { readonly nodes: number; readonly edges: number }, messages: number, deletes: number) =>
  [
    `awhm migrate: graph: ${graph.nodes} nodes, ${graph.edges} edges`,
    `awhm migrate: [1/1] session s/1: ${messages} messages`,
    "awhm migrate: consolidation progress: 1 sessions",
    `awhm migrate: deletion records: ${deletes} tombstones, ${deletes} ledger records`,
    ""
  ].join("\n")

const awhm = (args: ReadonlyArray<string>, dataDir: string, env: Record<string, string> = {}) =>
  Effect.promise(() => runAwhm(args, { dataDir, env }))

describe("awhm migrate --from postgres (the reverse)", () => {
  it.scopedLive("copies a namespace into a new data dir, a second run adds nothing, and awhm carries on there with the namespace's indices", () =>
    Effect.gen(function* () {
      const ns = freshNamespace("team")
      yield* grantNamespace("awhm_alice", ns, true)
      const url = testCluster().urls.awhm_alice
      const pgEnv = { AWHM_STORAGE_BACKEND: "postgres", AWHM_POSTGRES_URL: url, AWHM_WRITE_NAMESPACE: ns }
      const work = yield* scopedTempDir()
      for (const text of ["I live in Lisbon", "The staging host is stg2.example.com", "My PIN is 4417"]) {
        expect((yield* awhm(["log", "--session", "s/1", "--role", "user", text], work, pgEnv)).code).toBe(0)
      }
      expect(JSON.parse((yield* awhm(["consolidate", "--json"], work, pgEnv)).stdout)).toMatchObject({ sessions: { "s/1": 4 } })
      // The last message goes: its index (2) must never be handed out again, in the copy either.
      const pin = JSON.parse((yield* awhm(["query", "--json", "PIN"], work, pgEnv)).stdout) as { results: Array<{ content: string; nodeId: string }> }
      expect(pin.results[0]?.content).toBe("My PIN is 4417")
      expect(JSON.parse((yield* awhm(["delete", "--json", pin.results[0]!.nodeId], work, pgEnv)).stdout)).toMatchObject({ logEntriesRemoved: 1 })
      const pgStatus = JSON.parse((yield* awhm(["status", "--json"], work, pgEnv)).stdout) as { nodes: number; edges: number }

      const into = path.join(yield* scopedTempDir(), "copy")
      const args = ["migrate", "--from", "postgres", "--to", into, "--namespace", ns, "--json"]
      const first = yield* awhm(args, into, { AWHM_POSTGRES_URL: url })
      expect(first.code).toBe(0)
      const report = { namespace: ns, nodes: pgStatus.nodes, edges: pgStatus.edges, sessions: 1, messages: 2, tombstones: 1 }
      expect(JSON.parse(first.stdout)).toEqual(report)
      expect(first.stderr).toBe(progressLines(pgStatus, 2, 1))
      expect(fs.statSync(into).mode & 0o777).toBe(0o700)
      const again = yield* awhm(args, into, { AWHM_POSTGRES_URL: url })
      expect(JSON.parse(again.stdout)).toEqual(report)
      // The delete's tombstone and ledger record came along, once, without the text.
      const tombstones = fs.readFileSync(path.join(into, "meta", "deletion_tombstones.jsonl"), "utf8").trimEnd().split("\n")
      const ledger = fs.readFileSync(path.join(into, "meta", "deletion_ledger.jsonl"), "utf8").trimEnd().split("\n")
      expect([tombstones.length, ledger.length]).toEqual([1, 1])
      expect(JSON.parse(tombstones[0]!)).toMatchObject({ node_id: pin.results[0]!.nodeId, affected_sessions: ["s/1"] })
      expect(tombstones[0]! + ledger[0]!).not.toContain("4417")

      // The data dir now works as the namespace did: same counts, nothing to consolidate, the next index is 3.
      const local = JSON.parse((yield* awhm(["status", "--json"], into)).stdout) as Record<string, unknown>
      expect(local).toMatchObject({ nodes: pgStatus.nodes, edges: pgStatus.edges, sessions: 1, logMessages: 2, storageBackend: "sqlite" })
      expect(JSON.parse((yield* awhm(["consolidate", "--json"], into)).stdout)).toEqual({ newNodes: 0, sessions: {} })
      expect(JSON.parse((yield* awhm(["log", "--json", "--session", "s/1", "--role", "user", "ok"], into)).stdout)).toMatchObject({ messageIndex: 3 })
      const found = JSON.parse((yield* awhm(["query", "--json", "staging host"], into)).stdout) as { results: Array<{ content: string }> }
      expect(found.results[0]?.content).toBe("The staging host is stg2.example.com")
      expect((yield* awhm(["query", "--json", "PIN 4417"], into)).stdout).not.toContain("4417")
    })
  )

  it.scopedLive("both sides postgres, neither, or a --from dir that is not there: one line and exit 2, nothing created", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir()
      const env = { AWHM_POSTGRES_URL: testCluster().urls.awhm_alice }
      const usage = "awhm: awhm migrate copies between a data dir and PostgreSQL: --from DIR --to postgres, or --from postgres --to DIR\n"
      for (const [from, to] of [["postgres", "postgres"], [dir, path.join(dir, "b")]]) {
        const r = yield* awhm(["migrate", "--from", from!, "--to", to!, "--namespace", "user:x"], dir, env)
        expect([r.code, r.stderr]).toEqual([2, usage])
      }
      const missing = path.join(dir, "nothing-here")
      const r = yield* awhm(["migrate", "--from", missing, "--to", "postgres", "--namespace", "user:x"], dir, env)
      expect([r.code, r.stderr]).toEqual([2, `awhm: --from ${missing}: no such data dir\n`])
      const noUrl = yield* awhm(["migrate", "--from", "postgres", "--to", path.join(dir, "c"), "--namespace", "user:x"], dir)
      expect([noUrl.code, noUrl.stderr]).toEqual([2, "awhm: invalid configuration: awhm migrate --from postgres needs postgres_url (--postgres-url or AWHM_POSTGRES_URL)\n"])
      expect(fs.readdirSync(dir).sort()).toEqual([])
      // A --to that cannot be made: one line naming it, exit 2.
      const ns = freshNamespace("team")
      yield* grantNamespace("awhm_alice", ns, true)
      const file = path.join(yield* scopedTempDir(), "a-file")
      fs.writeFileSync(file, "")
      const blocked = yield* awhm(["migrate", "--from", "postgres", "--to", path.join(file, "copy"), "--namespace", ns], dir, env)
      expect([blocked.code, blocked.stderr]).toEqual([2, `awhm: cannot use ${path.join(file, "copy")}: ENOTDIR\n`])
    })
  )
})

describe("awhm migrate --to postgres", () => {
  it.scopedLive("copies a local data dir into a namespace, a second run adds nothing, and awhm carries on there", () =>
    Effect.gen(function* () {
      const local = yield* scopedTempDir()
      for (const text of ["I live in Lisbon", "The staging host is stg2.example.com", "I prefer Python for scripts"]) {
        expect((yield* awhm(["log", "--session", "s/1", "--role", "user", text], local)).code).toBe(0)
      }
      expect(JSON.parse((yield* awhm(["consolidate", "--json"], local)).stdout)).toMatchObject({ newNodes: 4 })
      const python = JSON.parse((yield* awhm(["query", "--json", "prefer Python"], local)).stdout) as { results: Array<{ content: string; nodeId: string }> }
      expect(python.results[0]?.content).toBe("I prefer Python for scripts")
      const deleted = JSON.parse((yield* awhm(["delete", "--json", python.results[0]!.nodeId], local)).stdout) as { tombstoneId: string; logEntriesRemoved: number }
      expect(deleted.logEntriesRemoved).toBe(1)
      const localStatus = JSON.parse((yield* awhm(["status", "--json"], local)).stdout) as { nodes: number; edges: number }

      const ns = freshNamespace("user")
      yield* grantNamespace("awhm_alice", ns, true)
      const env = { AWHM_POSTGRES_URL: testCluster().urls.awhm_alice }
      const args = ["migrate", "--from", local, "--to", "postgres", "--namespace", ns, "--json"]
      const first = yield* awhm(args, local, env)
      expect(first.code).toBe(0)
      const report = { namespace: ns, nodes: localStatus.nodes, edges: localStatus.edges, sessions: 1, messages: 2, tombstones: 1 }
      expect(JSON.parse(first.stdout)).toEqual(report)
      expect(first.stderr).toBe(progressLines(localStatus, 2, 1))
      const again = yield* awhm(args, local, env)
      expect(JSON.parse(again.stdout)).toEqual(report)

      const db = yield* openTestDatabase("awhm_alice", ns)
      const [rows] = yield* db.sql<{ nodes: number; messages: number; progress: number; tombstone: string }>`SELECT
        (SELECT count(*)::int FROM awhm.nodes) AS nodes, (SELECT count(*)::int FROM awhm.messages) AS messages,
        (SELECT max(last_msg_index)::int FROM awhm.consolidation_progress) AS progress,
        (SELECT string_agg(tombstone_id, ',') FROM awhm.tombstones) AS tombstone`
      expect(rows).toEqual({ nodes: localStatus.nodes, messages: 2, progress: 2, tombstone: deleted.tombstoneId })

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
