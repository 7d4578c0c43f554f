import { type ChildProcess, spawn } from "node:child_process"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeGraphStorePostgres } from "../../src/layers/GraphStorePostgres.js"
import { makeRawLogPostgres } from "../../src/layers/RawLogPostgres.js"
import { freshNamespace, grantNamespace, openTestDatabase } from "../support/postgres.js"
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

const messageText = (w: number, i: number): string => (i % 2 === 0 ? `I live in Town${w}x${i}` : `The staging host is stg-${w}-${i}`)

describe("PostgreSQL: many processes into one namespace", () => {
  it.scopedLive(
    `${WORKERS} processes x ${MESSAGES} concurrent logs and consolidations: every message once, gap-free, one active memory per slot`,
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
        expect(results.map((r) => [r.code, r.stdout.trim(), r.stderr])).toEqual(Array.from({ length: WORKERS }, () => [0, "done", ""]))

        const db = yield* openTestDatabase("awhm_alice", team)
        const log = yield* makeRawLogPostgres(db)
        const all: Array<string> = []
        for (let s = 0; s < SESSIONS; s++) {
          const entries = yield* log.read(`shared-${s}`)
          expect(entries.map((e) => e.index)).toEqual(Array.from({ length: (WORKERS * MESSAGES) / SESSIONS }, (_, i) => i))
          all.push(...entries.map((e) => e.content))
        }
        const expected = Array.from({ length: WORKERS }, (_, w) => Array.from({ length: MESSAGES }, (_, i) => messageText(w, i))).flat()
        expect(all.sort()).toEqual(expected.sort())

        const progress = yield* db.sql<{ session_id: string; last_msg_index: number }>`SELECT session_id, last_msg_index
          FROM awhm.consolidation_progress WHERE namespace = ${team} ORDER BY session_id`
        expect(progress).toEqual(Array.from({ length: SESSIONS }, (_, s) => ({ session_id: `shared-${s}`, last_msg_index: (WORKERS * MESSAGES) / SESSIONS - 1 })))

        const graph = yield* (yield* makeGraphStorePostgres(db)).load({ withEmbeddings: false })
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
