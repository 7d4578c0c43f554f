import { type ChildProcess, spawn } from "node:child_process"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeGraphStorePostgres } from "../../src/layers/GraphStorePostgres.js"
import { makeRawLogPostgres } from "../../src/layers/RawLogPostgres.js"
import { freshNamespace, grantNamespace, openTestDatabase } from "../support/postgres.js"
import { isDeleted, messageText } from "./pgWorkerTexts.js"
import { bundleWorker, workerBundlePath } from "../support/bundledWorker.js"

const WORKERS = 4
const MESSAGES = 250
const SESSIONS = 5

const workerFile = workerBundlePath("pg-worker")
const buildWorker = bundleWorker("test/graph/pgWorker.ts", workerFile, { packages: "external" })

const finished = (child: ChildProcess) =>
  Effect.async<{ code: number | null; stdout: string; stderr: string }>((resume) => {
    let stdout = ""
    let stderr = ""
    child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()))
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()))
    child.on("exit", (code) => resume(Effect.succeed({ code, stdout, stderr })))
  })

describe("PostgreSQL: many processes into one namespace", () => {
  it.scopedLive(
    `${WORKERS} processes x ${MESSAGES} concurrent logs, consolidations and hard deletes: every message once, gap-free, one active memory per slot, the deleted gone`,
    () =>
      Effect.gen(function* () {
        yield* buildWorker
        const team = freshNamespace("team")
        const other = freshNamespace("team")
        yield* grantNamespace("awhm_alice", team, true)
        yield* grantNamespace("awhm_bob", other, true)
        const results = yield* Effect.all(
          Array.from({ length: WORKERS }, (_, w) =>
            finished(spawn(process.execPath, [workerFile, team, String(w), String(MESSAGES)], { stdio: ["ignore", "pipe", "pipe"] }))
          ),
          { concurrency: "unbounded" }
        )
        expect(results.map((r) => [r.code, r.stdout.split(" ")[0], r.stderr])).toEqual(Array.from({ length: WORKERS }, () => [0, "done", ""]))
        // Each worker hard-deleted 5 of its memories (and their messages) while the others went on.
        const deleted = results.flatMap((r) => JSON.parse(r.stdout.slice("done ".length)) as Array<[string, number]>)
        expect(deleted.length).toBe(WORKERS * 5)

        const db = yield* openTestDatabase("awhm_alice", team)
        const log = yield* makeRawLogPostgres(db)
        const all: Array<string> = []
        for (let s = 0; s < SESSIONS; s++) {
          const entries = yield* log.read(`shared-${s}`)
          // Indices were handed out once each, without gaps: the survivors and the deleted make up 0..n-1.
          const gone = deleted.filter(([sid]) => sid === `shared-${s}`).map(([, i]) => i)
          expect([...entries.map((e) => e.index), ...gone].sort((a, b) => a - b)).toEqual(
            Array.from({ length: (WORKERS * MESSAGES) / SESSIONS }, (_, i) => i)
          )
          all.push(...entries.map((e) => e.content))
        }
        const expected = Array.from({ length: WORKERS }, () => Array.from({ length: MESSAGES }, (_, i) => i))
          .flatMap((is, w) => is.filter((i) => !isDeleted(i)).map((i) => messageText(w, i)))
        expect(all.sort()).toEqual(expected.sort())

        const progress = yield* db.sql<{ session_id: string; last_msg_index: number }>`SELECT session_id, last_msg_index
          FROM awhm.consolidation_progress WHERE namespace = ${team} ORDER BY session_id`
        expect(progress).toEqual(Array.from({ length: SESSIONS }, (_, s) => ({ session_id: `shared-${s}`, last_msg_index: (WORKERS * MESSAGES) / SESSIONS - 1 })))

        const graph = yield* (yield* makeGraphStorePostgres(db)).load({ withEmbeddings: false })
        // No memory of a deleted message is left, and no row in any table holds its text.
        expect([...graph.nodes.values()].filter((n) => n.content.includes("backup host"))).toEqual([])
        const [left] = yield* db.sql<{ n: number }>`SELECT (SELECT count(*) FROM awhm.nodes WHERE data LIKE '%backup host%')
          + (SELECT count(*) FROM awhm.messages WHERE content LIKE '%backup host%') AS n`
        expect(Number(left?.n)).toBe(0)
        const activeBySlot = new Map<string, number>()
        for (const n of graph.nodes.values()) {
          if (n.canonicalKey !== null && n.status === "active") activeBySlot.set(n.canonicalKey, (activeBySlot.get(n.canonicalKey) ?? 0) + 1)
        }
        expect(activeBySlot.get("fact:i live in")).toBe(1)
        expect(activeBySlot.get("fact:the staging host")).toBe(1)
        expect([...activeBySlot.values()].every((n) => n === 1)).toBe(true)

        // The other namespace's client sees none of it.
        const otherDb = yield* openTestDatabase("awhm_bob", other)
        expect(yield* (yield* makeRawLogPostgres(otherDb)).stats).toEqual({ sessions: 0, messages: 0 })
        expect((yield* (yield* makeGraphStorePostgres(otherDb)).load()).nodes.size).toBe(0)
        const [visible] = yield* otherDb.sql<{ n: number }>`SELECT (SELECT count(*) FROM awhm.messages) + (SELECT count(*) FROM awhm.nodes)
          + (SELECT count(*) FROM awhm.consolidation_progress) AS n`
        expect(Number(visible?.n)).toBe(0)
      }),
    600_000
  )
})
