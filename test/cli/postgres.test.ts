import { createHmac } from "node:crypto"
import * as fs from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { dataPaths } from "../../src/store/paths.js"
import { runAwhm, scopedTempDir } from "../support/cli.js"
import { startHookServer, waitFor } from "../support/hookServer.js"
import { testCluster } from "../support/pgCluster.js"
import { freshNamespace, grantNamespace, openTestDatabase } from "../support/postgres.js"

const awhm = (args: ReadonlyArray<string>, dataDir: string, env: Record<string, string>) =>
  Effect.promise(() => runAwhm(args, { dataDir, env }))

describe("awhm on storage_backend postgres (the built bin)", () => {
  it.scopedLive("log, consolidate, query, status and delete: the delete leaves no row of the memory in any table", () =>
    Effect.gen(function* () {
      const ns = freshNamespace("team")
      yield* grantNamespace("awhm_alice", ns, true)
      const env = { AWHM_STORAGE_BACKEND: "postgres", AWHM_POSTGRES_URL: testCluster().urls.awhm_alice, AWHM_WRITE_NAMESPACE: ns }
      const dir = yield* scopedTempDir()
      for (const text of ["I live in Lisbon", "The staging host is stg2.example.com"]) {
        expect((yield* awhm(["log", "--session", "s1", "--role", "user", text], dir, env)).code).toBe(0)
      }
      const consolidated = yield* awhm(["consolidate", "--json"], dir, env)
      expect(JSON.parse(consolidated.stdout)).toEqual({ newNodes: 3, sessions: { s1: 3 } })
      const query = JSON.parse((yield* awhm(["query", "--json", "where is staging"], dir, env)).stdout) as {
        results: Array<{ content: string; nodeId: string; canonicalKey: string }>
      }
      expect(query.results.map((r) => [r.content, r.canonicalKey])).toEqual([["The staging host is stg2.example.com", "fact:the staging host"]])
      const status = JSON.parse((yield* awhm(["status", "--json"], dir, env)).stdout) as Record<string, unknown>
      expect(status).toMatchObject({ nodes: 3, edges: 1, sessions: 1, logMessages: 2, storageBackend: "postgres" })

      const deleted = yield* awhm(["delete", "--json", query.results[0]!.nodeId], dir, env)
      expect(deleted.code).toBe(0)
      expect(JSON.parse(deleted.stdout)).toMatchObject({ nodeDeleted: true, logEntriesRemoved: 1, matchStrategy: "source_refs" })
      // Only the schema owner may VACUUM: a client role is told so, without the text.
      expect(deleted.stderr).toContain("VACUUM skipped: only the owner of the awhm schema")

      const db = yield* openTestDatabase("awhm_alice", ns)
      const [left] = yield* db.sql<{ nodes: number; sources: number; terms: number; messages: number }>`SELECT
        (SELECT count(*)::int FROM awhm.nodes WHERE data LIKE '%stg2%') AS nodes,
        (SELECT count(*)::int FROM awhm.node_sources WHERE node_id = ${query.results[0]!.nodeId}) AS sources,
        (SELECT count(*)::int FROM awhm.node_terms WHERE node_id = ${query.results[0]!.nodeId} OR term LIKE 'stg2%') AS terms,
        (SELECT count(*)::int FROM awhm.messages WHERE content LIKE '%stg2%') AS messages`
      expect(left).toEqual({ nodes: 0, sources: 0, terms: 0, messages: 0 })
      expect(JSON.parse((yield* awhm(["status", "--json"], dir, env)).stdout)).toMatchObject({ nodes: 2, logMessages: 1 })

      // The tombstone and the ledger record are the namespace's, hashed with its own salt; none is left locally.
      const result = JSON.parse(deleted.stdout) as { tombstoneId: string; ledgerRecordId: string }
      const tombstones = yield* db.sql<{ record: string }>`SELECT record FROM awhm.tombstones WHERE tombstone_id = ${result.tombstoneId}`
      const ledger = yield* db.sql<{ record: string }>`SELECT record FROM awhm.deletion_ledger WHERE record_id = ${result.ledgerRecordId}`
      const tombstone = JSON.parse(tombstones[0]!.record) as Record<string, unknown>
      expect(tombstone).toMatchObject({ node_id: query.results[0]!.nodeId, affected_sessions: ["s1"], match_strategy: "source_refs" })
      const [salt] = yield* db.sql<{ value: string }>`SELECT value FROM awhm.namespace_meta WHERE key = 'tombstone_salt'`
      const hash = createHmac("sha256", salt!.value).update("the staging host is stg2.example.com").digest("hex")
      expect(tombstone["content_hash"]).toBe(`hmac-sha256:${hash}`)
      expect(JSON.parse(ledger[0]!.record)).toMatchObject({ tombstone_id: result.tombstoneId, node_deleted: true, log_entries_removed: 1 })
      expect([tombstones[0]!.record + ledger[0]!.record].join("")).not.toContain("stg2")
      expect([fs.existsSync(dataPaths(dir).tombstones), fs.existsSync(dataPaths(dir).ledger)]).toEqual([false, false])

      // An AWHM Lite export of the namespace carries its tombstone and ledger record, as its meta files.
      const out = `${yield* scopedTempDir()}/lite`
      expect((yield* awhm(["export", "--format", "awhm-lite", out], dir, env)).code).toBe(0)
      const exported = dataPaths(out)
      expect(fs.readFileSync(exported.tombstones, "utf8")).toBe(tombstones[0]!.record + "\n")
      expect(fs.readFileSync(exported.ledger, "utf8")).toBe(ledger[0]!.record + "\n")
    })
  )

  it.scopedLive("the Claude Code hooks: prompt and stop log into the namespace, session-end consolidates (detached), the next prompt recalls", () =>
    Effect.gen(function* () {
      const ns = freshNamespace("team")
      yield* grantNamespace("awhm_alice", ns, true)
      const env = {
        AWHM_STORAGE_BACKEND: "postgres",
        AWHM_POSTGRES_URL: testCluster().urls.awhm_alice,
        AWHM_WRITE_NAMESPACE: ns,
        AWHM_HOOK_SERVER: "0"
      }
      const dir = yield* scopedTempDir()
      const hook = (event: string, payload: object) => Effect.promise(() => runAwhm(["hook", event], { dataDir: dir, env, input: JSON.stringify(payload) }))
      expect(yield* hook("prompt", { session_id: "s1", prompt: "The staging host is stg2.example.com" })).toEqual({ code: 0, stdout: "", stderr: "" })
      expect(yield* hook("stop", { session_id: "s1", last_assistant_message: "Noted." })).toEqual({ code: 0, stdout: "", stderr: "" })
      // session-end hands consolidation to a detached process, which writes its outcome line when done.
      expect(yield* hook("session-end", { session_id: "s1" })).toEqual({ code: 0, stdout: "", stderr: "" })
      const outcome = dataPaths(dir).sessionEndLog
      yield* Effect.promise(() => waitFor("the session-end outcome line", () => fs.existsSync(outcome) && fs.readFileSync(outcome, "utf8").includes("\n")))
      expect(fs.readFileSync(outcome, "utf8").replace(/^\S+Z /, "")).toBe("claude-s1 consolidated 1 new memory\n")
      const recalled = yield* hook("prompt", { session_id: "s2", prompt: "where is the staging host?" })
      expect([recalled.code, recalled.stderr]).toEqual([0, ""])
      expect(recalled.stdout).toContain("The staging host is stg2.example.com")

      const db = yield* openTestDatabase("awhm_alice", ns)
      const rows = yield* db.sql<{ session_id: string; idx: number; role: string }>`SELECT session_id, idx, role FROM awhm.messages
        WHERE namespace = ${ns} ORDER BY session_id, idx`
      expect(rows.map((r) => [r.session_id, r.idx, r.role])).toEqual([
        ["claude-s1", 0, "user"],
        ["claude-s1", 1, "assistant"],
        ["claude-s2", 0, "user"]
      ])
    })
  )

  it.scopedLive("a warm hook server recalls what another process consolidated into the namespace after it started", () =>
    Effect.gen(function* () {
      const ns = freshNamespace("team")
      yield* grantNamespace("awhm_alice", ns, true)
      const env = { AWHM_STORAGE_BACKEND: "postgres", AWHM_POSTGRES_URL: testCluster().urls.awhm_alice, AWHM_WRITE_NAMESPACE: ns }
      const dir = yield* scopedTempDir()
      yield* Effect.acquireRelease(
        Effect.promise(() => startHookServer(dir, { env })),
        (server) => Effect.promise(() => server.stop())
      )
      const prompt = (sessionId: string) =>
        Effect.promise(() =>
          runAwhm(["hook", "prompt"], {
            dataDir: dir,
            env: { ...env, AWHM_HOOK_SERVER: "1", AWHM_HOOK_DEBUG: "1" },
            input: JSON.stringify({ session_id: sessionId, prompt: "which host is staging on?" })
          })
        )
      expect(yield* prompt("s-a")).toEqual({ code: 0, stdout: "", stderr: "awhm hook: answered by the hook server\n" })
      // Another machine's process logs and consolidates into the same namespace (another data dir).
      const other = yield* scopedTempDir()
      expect((yield* awhm(["log", "--session", "s1", "--role", "user", "The staging host is stg2.example.com"], other, env)).code).toBe(0)
      expect((yield* awhm(["consolidate"], other, env)).code).toBe(0)
      const warm = yield* prompt("s-b")
      expect(warm.stderr).toBe("awhm hook: answered by the hook server\n")
      expect(warm.stdout).toContain("- The staging host is stg2.example.com")
    })
  )

  it.scopedLive("a wrong password or a missing URL is one line and an exit code, never the password", () =>
    Effect.gen(function* () {
      const ns = freshNamespace("user")
      const dir = yield* scopedTempDir()
      const url = testCluster().urls.awhm_alice.replace(/:([0-9a-f]+)@/, ":not-the-password@")
      const wrong = yield* awhm(["status"], dir, { AWHM_STORAGE_BACKEND: "postgres", AWHM_POSTGRES_URL: url, AWHM_WRITE_NAMESPACE: ns })
      expect(wrong.code).toBe(1)
      expect(wrong.stderr).toMatch(/^awhm: could not connect to postgres:\/\/awhm_alice@127\.0\.0\.1:\d+\/awhm: password authentication failed for user "awhm_alice"\n$/)
      const missing = yield* awhm(["status"], dir, { AWHM_STORAGE_BACKEND: "postgres", AWHM_WRITE_NAMESPACE: ns })
      expect(missing.code).toBe(2)
      expect(missing.stderr).toBe(
        "awhm: invalid configuration: storage_backend postgres needs postgres_url (--postgres-url, AWHM_POSTGRES_URL or config.json)\n"
      )
      const badNs = yield* awhm(["status"], dir, { AWHM_STORAGE_BACKEND: "postgres", AWHM_POSTGRES_URL: url, AWHM_WRITE_NAMESPACE: "no namespace" })
      expect(badNs.code).toBe(2)
      expect(badNs.stderr).toContain("write_namespace: must be a namespace such as user:alice")
    })
  )
})
