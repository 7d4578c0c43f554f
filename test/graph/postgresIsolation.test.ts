import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeGraphStorePostgres } from "../../src/layers/GraphStorePostgres.js"
import { makeRawLogPostgres } from "../../src/layers/RawLogPostgres.js"
import { compactNode, fullNode, plainNode } from "../support/graphFixtures.js"
import { freshNamespace, grantNamespace, openTestDatabase } from "../support/postgres.js"

/** Runs one statement on a reserved connection: its rows, or the database's error message. */
const attempt = (conn: { readonly executeUnprepared: (sql: string, params: ReadonlyArray<unknown>, t: undefined) => Effect.Effect<ReadonlyArray<unknown>, unknown> }, statement: string) =>
  conn.executeUnprepared(statement, [], undefined).pipe(
    Effect.map((rows) => ({ rows: rows as ReadonlyArray<Record<string, unknown>> })),
    Effect.catchAll((e) => Effect.succeed({ error: String((e as { cause?: { message?: string } }).cause?.message ?? e) }))
  )

describe("PostgreSQL namespaces: isolation by row-level security", () => {
  it.scopedLive("a client of one namespace cannot read, change or delete another's rows, even with its own SQL", () =>
    Effect.gen(function* () {
      const alice = freshNamespace("user")
      const bob = freshNamespace("user")
      yield* grantNamespace("awhm_alice", alice, true)
      yield* grantNamespace("awhm_bob", bob, true)

      const bobDb = yield* openTestDatabase("awhm_bob", bob)
      const bobGraph = yield* makeGraphStorePostgres(bobDb)
      const bobLog = yield* makeRawLogPostgres(bobDb)
      yield* bobGraph.commit({ upsertNodes: [fullNode("bob-secret")] })
      yield* bobLog.append({ sessionId: "bob-session", role: "user", content: "my salary is 100", timestamp: "2026-03-01" })

      const aliceDb = yield* openTestDatabase("awhm_alice", alice)
      const conn = yield* aliceDb.sql.reserve
      const run = (s: string) => attempt(conn, s)
      const tables = ["nodes", "node_sources", "edges", "messages", "log_sessions", "graph_versions"]
      for (const t of tables) expect(yield* run(`SELECT count(*)::int AS n FROM awhm.${t} WHERE namespace = '${bob}'`)).toEqual({ rows: [{ n: 0 }] })

      // Pointing its own settings at bob's namespace opens nothing: the grants decide.
      yield* run(`SET app.namespaces = '${bob}'`)
      yield* run(`SET app.write_namespace = '${bob}'`)
      expect(yield* run(`SELECT count(*)::int AS n FROM awhm.nodes`)).toEqual({ rows: [{ n: 0 }] })
      expect(yield* run(`SELECT count(*)::int AS n FROM awhm.messages`)).toEqual({ rows: [{ n: 0 }] })
      expect(yield* run(`UPDATE awhm.nodes SET data = '{}' WHERE namespace = '${bob}' RETURNING id`)).toEqual({ rows: [] })
      expect(yield* run(`UPDATE awhm.messages SET content = '"x"' RETURNING idx`)).toEqual({ rows: [] })
      expect(yield* run(`DELETE FROM awhm.messages WHERE namespace = '${bob}' RETURNING idx`)).toEqual({ rows: [] })
      expect(yield* run(`DELETE FROM awhm.nodes RETURNING id`)).toEqual({ rows: [] })
      expect(
        yield* run(`INSERT INTO awhm.messages (namespace, session_id, idx, timestamp, role, content, metadata)
          VALUES ('${bob}', 'bob-session', 1, '2026-03-01T00:00:00.000Z', 'user', '"forged"', '{}')`)
      ).toEqual({ error: 'new row violates row-level security policy for table "messages"' })
      // Nor can it grant itself, switch off the policies, become bob, or shadow the grants with a temp table.
      expect(yield* run(`INSERT INTO awhm.grants VALUES ('awhm_alice', '${bob}', true)`)).toEqual({ error: "permission denied for table grants" })
      expect(yield* run(`ALTER TABLE awhm.nodes DISABLE ROW LEVEL SECURITY`)).toEqual({ error: "must be owner of table nodes" })
      expect(yield* run(`TRUNCATE awhm.messages`)).toEqual({ error: "permission denied for table messages" })
      expect(yield* run(`SET ROLE awhm_bob`)).toEqual({ error: 'permission denied to set role "awhm_bob"' })
      yield* run(`CREATE TEMP TABLE grants (role_name text, namespace text, can_write boolean)`)
      yield* run(`INSERT INTO pg_temp.grants VALUES ('awhm_alice', '${bob}', true)`)
      yield* run(`SET search_path = pg_temp, awhm, public`)
      expect(yield* run(`SELECT count(*)::int AS n FROM awhm.nodes`)).toEqual({ rows: [{ n: 0 }] })

      // Bob's rows are exactly as he left them.
      const fresh = yield* makeGraphStorePostgres(yield* openTestDatabase("awhm_bob", bob))
      expect((yield* fresh.load()).nodes.get("bob-secret")).toEqual(compactNode(fullNode("bob-secret")))
      expect((yield* makeRawLogPostgres(yield* openTestDatabase("awhm_bob", bob)).pipe(Effect.flatMap((l) => l.read("bob-session")))).map((e) => e.content)).toEqual([
        "my salary is 100"
      ])
    })
  )

  it.scopedLive("configuring a namespace without a grant fails with a clear message, naming no password", () =>
    Effect.gen(function* () {
      const mine = freshNamespace("user")
      const theirs = freshNamespace("team")
      yield* grantNamespace("awhm_alice", mine, true)
      const read = yield* Effect.flip(openTestDatabase("awhm_alice", mine, [theirs]))
      expect(read.message).toMatch(new RegExp(`^the role awhm_alice may not read namespace ${theirs} on postgres://awhm_alice@127\\.0\\.0\\.1:\\d+/awhm; the schema owner grants it`))
      const write = yield* Effect.flip(openTestDatabase("awhm_alice", theirs))
      expect(write.message).toMatch(new RegExp(`^the role awhm_alice may not write namespace ${theirs} on `))
      const password = /:([0-9a-f]{24})@/.exec(process.env.AWHM_TEST_POSTGRES ?? "")?.[1] ?? "none"
      expect(read.message + write.message).not.toContain(password)
    })
  )

  it.scopedLive("a team namespace read by one client and written by another: the reader sees it, cannot change it", () =>
    Effect.gen(function* () {
      const team = freshNamespace("team")
      const bobOwn = freshNamespace("user")
      yield* grantNamespace("awhm_alice", team, true)
      yield* grantNamespace("awhm_bob", bobOwn, true)
      yield* grantNamespace("awhm_bob", team, false)
      const writer = yield* makeGraphStorePostgres(yield* openTestDatabase("awhm_alice", team))
      yield* writer.commit({ upsertNodes: [plainNode("staging-moved", "the staging host moved to stg2")] })

      const reader = yield* makeGraphStorePostgres(yield* openTestDatabase("awhm_bob", bobOwn, [team]))
      const seen = yield* reader.load()
      expect(Array.from(seen.nodes.values()).map((n) => n.content)).toEqual(["the staging host moved to stg2"])
      // An access-count bump on a team memory is not written; deleting it is refused.
      yield* reader.commit({ upsertNodes: [{ ...seen.nodes.get("staging-moved")!, accessCount: 7 }, plainNode("bob-note")] })
      const refused = yield* Effect.flip(reader.commit({ deleteNodes: ["staging-moved"] }))
      expect(refused.message).toBe(`node staging-moved belongs to namespace ${team}; this client writes only ${bobOwn}`)
      expect((yield* writer.load()).nodes.get("staging-moved")?.accessCount).toBe(1)
      expect(Array.from((yield* writer.load()).nodes.keys())).toEqual(["staging-moved"])
      expect(Array.from((yield* reader.load()).nodes.keys())).toEqual(["staging-moved", "bob-note"])
    })
  )
})
