import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { ConfigFromValues } from "../../src/layers/ConfigLive.js"
import { EmbedderMock } from "../../src/layers/EmbedderMock.js"
import { GraphStoreJson } from "../../src/layers/GraphStoreJson.js"
import { GraphStoreSqlite } from "../../src/layers/GraphStoreSqlite.js"
import { RawLogLive } from "../../src/layers/RawLogLive.js"
import { SessionBufferLive } from "../../src/layers/SessionBufferLive.js"
import { Stage2Mock } from "../../src/layers/Stage2Mock.js"
import { consolidatePending } from "../../src/programs/consolidate.js"
import { logMessage } from "../../src/programs/logMessage.js"
import { createSnapshot, restoreSnapshot } from "../../src/programs/snapshot.js"
import { GraphStore } from "../../src/services/GraphStore.js"
import { makeTempDir, runAwhm, scopedTempDir } from "../support/cli.js"
import { testCluster } from "../support/pgCluster.js"
import { freshNamespace, grantNamespace } from "../support/postgres.js"

// A restore leaves consolidation progress matching the restored graph: the next consolidate rebuilds
// what the snapshot lacks, so no logged message is lost for good.

const contents = async (dataDir: string, env: Record<string, string>): Promise<Array<string>> => {
  const r = await runAwhm(["nodes", "--json"], { dataDir, env })
  expect(r.code).toBe(0)
  return (JSON.parse(r.stdout) as { nodes: Array<{ content: string }> }).nodes.map((n) => n.content).sort()
}

const ok = async (args: ReadonlyArray<string>, dataDir: string, env: Record<string, string>) => {
  const r = await runAwhm(args, { dataDir, env })
  expect([r.code, r.stderr]).toEqual([0, ""])
  return r.stdout
}

/** The environment of a CLI run on `backend`; on PostgreSQL a client role in a namespace of its own. */
const envOf = async (backend: "sqlite" | "json" | "postgres"): Promise<Record<string, string>> => {
  if (backend !== "postgres") return { AWHM_STORAGE_BACKEND: backend }
  const ns = freshNamespace("team")
  await Effect.runPromise(grantNamespace("awhm_alice", ns, true))
  return { AWHM_STORAGE_BACKEND: "postgres", AWHM_POSTGRES_URL: testCluster().urls.awhm_alice, AWHM_WRITE_NAMESPACE: ns }
}

describe("snapshot restore and consolidation progress", () => {
  for (const backend of ["sqlite", "json", "postgres"] as const) {
    it(`${backend}: log A; snapshot; log B; consolidate; restore the first; consolidate: A and B are both memories`, async () => {
      const env = await envOf(backend)
      const { dir, cleanup } = makeTempDir()
      try {
        await ok(["log", "--session", "s1", "--role", "user", "I prefer the codename ALPHAWOLF"], dir, env)
        const first = (JSON.parse(await ok(["snapshot", "create", "--json"], dir, env)) as { path: string }).path
        await ok(["log", "--session", "s1", "--role", "user", "I prefer the codename BRAVOHAWK"], dir, env)
        await ok(["consolidate"], dir, env)
        const full = await contents(dir, env)
        expect(full.filter((c) => c.includes("ALPHAWOLF")).length).toBeGreaterThan(0)
        expect(full.filter((c) => c.includes("BRAVOHAWK")).length).toBeGreaterThan(0)
        await ok(["snapshot", "restore", "--path", first], dir, env)
        expect(await contents(dir, env)).toEqual([])
        await ok(["consolidate"], dir, env)
        expect(await contents(dir, env)).toEqual(full)
      } finally {
        cleanup()
      }
    })

    it(`${backend}: a snapshot taken after consolidating restores its progress too (nothing consolidated twice, nothing lost)`, async () => {
      const env = await envOf(backend)
      const { dir, cleanup } = makeTempDir()
      try {
        await ok(["log", "--session", "s1", "--role", "user", "I prefer the codename ALPHAWOLF"], dir, env)
        await ok(["log", "--session", "s2", "--role", "user", "I prefer the codename CHARLIEFOX"], dir, env)
        await ok(["consolidate"], dir, env)
        const atSnapshot = await contents(dir, env)
        const snap = (JSON.parse(await ok(["snapshot", "create", "--json"], dir, env)) as { path: string }).path
        await ok(["log", "--session", "s1", "--role", "user", "I prefer the codename BRAVOHAWK"], dir, env)
        await ok(["log", "--session", "s3", "--role", "user", "I prefer the codename DELTAOWL"], dir, env)
        await ok(["consolidate"], dir, env)
        const full = await contents(dir, env)
        await ok(["snapshot", "restore", "--path", snap], dir, env)
        expect(await contents(dir, env)).toEqual(atSnapshot)
        const again = JSON.parse(await ok(["consolidate", "--json"], dir, env)) as { sessions: Record<string, number> }
        // s2 was already in the snapshot: not pending; s1 from BRAVOHAWK on, and all of s3.
        expect(Object.keys(again.sessions).sort()).toEqual(["s1", "s3"])
        expect(await contents(dir, env)).toEqual(full)
      } finally {
        cleanup()
      }
    })
  }

  for (const backend of ["sqlite", "json"] as const) {
    it.scopedLive(`${backend}: a restore loop (snapshot, consolidate, restore an older one) loses no logged message`, () =>
      Effect.gen(function* () {
        const dir = yield* scopedTempDir()
        const layer = Layer.mergeAll(
          RawLogLive,
          SessionBufferLive,
          backend === "json" ? GraphStoreJson : GraphStoreSqlite,
          EmbedderMock,
          Stage2Mock([])
        ).pipe(Layer.provideMerge(ConfigFromValues(dir, { storage_backend: backend })))
        const missing = yield* Effect.gen(function* () {
          const snapshots: Array<string> = []
          for (let i = 0; i < 12; i++) {
            yield* logMessage({ sessionId: `s${i % 3}`, role: "user", content: `I prefer the codename LOOP${i}MARK` })
            if (i % 3 === 0) snapshots.push((yield* createSnapshot()).path)
            yield* consolidatePending()
            // Back to a snapshot from two rounds before, or the first one.
            if (i % 3 === 2) yield* restoreSnapshot(snapshots[Math.max(0, snapshots.length - 2)]!)
          }
          yield* consolidatePending()
          const contents = Array.from((yield* (yield* GraphStore).load()).nodes.values(), (n) => n.content).join("\n")
          return Array.from({ length: 12 }, (_, i) => `LOOP${i}MARK`).filter((mark) => !contents.includes(mark))
        }).pipe(Effect.provide(layer))
        expect(missing).toEqual([])
      })
    )
  }
})
