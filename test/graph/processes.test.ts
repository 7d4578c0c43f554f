import { type ChildProcess, spawn } from "node:child_process"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { openGraphStoreFile } from "../../src/layers/graph/openStore.js"
import { plainNode, tempDir } from "../support/graphFixtures.js"
import { bundleWorker, workerBundlePath } from "../support/bundledWorker.js"

const workerFile = workerBundlePath("worker")
const buildWorker = bundleWorker("test/graph/worker.ts", workerFile, { external: ["better-sqlite3"] })

const run = (args: ReadonlyArray<string>) => spawn(process.execPath, [workerFile, ...args], { stdio: ["ignore", "pipe", "pipe"] })

const finished = (child: ChildProcess) =>
  Effect.async<{ code: number | null; stderr: string }>((resume) => {
    let stderr = ""
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()))
    child.on("exit", (code) => resume(Effect.succeed({ code, stderr })))
  })

/** Resolves once the child printed `line` on stdout. */
const printed = (child: ChildProcess, line: string) =>
  Effect.async<void>((resume) => {
    let out = ""
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString()
      if (out.split("\n").includes(line)) resume(Effect.void)
    })
  })

const openStore = openGraphStoreFile

describe("GraphStore across processes", () => {
  for (const backend of ["sqlite", "json"] as const) {
    it.scopedLive(`${backend}: two processes updating the same store lose nothing`, () =>
      Effect.gen(function* () {
        yield* buildWorker
        const dir = yield* tempDir()
        yield* Effect.scoped(
          Effect.flatMap(openStore(backend, dir), (s) => s.commit({ upsertNodes: [{ ...plainNode("counter"), accessCount: 0 }] }))
        )
        const results = yield* Effect.all(
          [finished(run([backend, dir, "increment", "40", "p"])), finished(run([backend, dir, "increment", "40", "q"]))],
          { concurrency: 2 }
        )
        expect(results).toEqual([
          { code: 0, stderr: "" },
          { code: 0, stderr: "" }
        ])
        const graph = yield* Effect.scoped(Effect.flatMap(openStore(backend, dir), (s) => s.load()))
        expect(graph.nodes.get("counter")?.accessCount).toBe(80)
        expect(graph.nodes.size).toBe(81)
      })
    )

    it.scopedLive(`${backend}: a process killed (SIGKILL) during a large save leaves the old or the new graph`, () =>
      Effect.gen(function* () {
        yield* buildWorker
        const dir = yield* tempDir()
        const nodes = backend === "sqlite" ? 10_000 : 6_000
        const outcomes: Array<string> = []
        for (const delayMs of [5, 100]) {
          const child = run([backend, dir, "churn", String(nodes)])
          const exit = finished(child)
          yield* printed(child, "saving 2")
          yield* Effect.sleep(delayMs)
          child.kill("SIGKILL")
          const { code } = yield* exit
          expect(code).toBe(null)
          const graph = yield* Effect.scoped(Effect.flatMap(openStore(backend, dir), (s) => s.load()))
          const ids = Array.from(graph.nodes.keys())
          const prefixes = new Set(ids.map((id) => id[0]))
          expect(prefixes.size).toBe(1)
          expect(ids.length).toBe(prefixes.has("a") ? nodes : nodes + 1)
          outcomes.push(prefixes.has("a") ? "a" : "b")
        }
        // Save 2 writes the "a" graph; killed 5 ms in, it cannot have finished: the "b" graph of save 1 stands.
        expect(outcomes[0]).toBe("b")
      }),
      120_000
    )
  }
})
