import { spawn } from "node:child_process"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { makeNode } from "../../src/domain/Node.js"
import { BIN, makeTempDir, ROOT } from "../support/cli.js"
import { graphOf, seedGraph } from "../support/graphSeed.js"

let tmp: ReturnType<typeof makeTempDir>
beforeEach(() => {
  tmp = makeTempDir("awhm-cli-")
})
afterEach(() => tmp.cleanup())

/** Runs the bin with a reader that takes nothing for the first `pauseMs`, so the pipe fills and the writer waits. */
const runSlowlyRead = (args: ReadonlyArray<string>, dataDir: string, pauseMs: number) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, AWHM_DATA_DIR: dataDir, AWHM_EMBEDDER: "mock", AWHM_HOOK_SERVER: "0" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    const out: Array<Buffer> = []
    let stderr = ""
    child.stdout.pause()
    setTimeout(() => child.stdout.on("data", (d: Buffer) => out.push(d)).resume(), pauseMs)
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout: Buffer.concat(out).toString("utf8"), stderr }))
  })

describe("a command's output", () => {
  it("reaches a slow reader whole: 400 results (~700 KB of JSON, ten times a pipe's buffer) before the process ends", async () => {
    const at = "2026-03-01T10:00:00.000Z"
    const filler = "the orchard by the river had rows of old apple trees and a stone wall ".repeat(24)
    const nodes = Array.from({ length: 400 }, (_, i) =>
      makeNode({ id: `n${String(i).padStart(3, "0")}`, type: "semantic", content: `Note ${i}: ${filler}`, createdAt: at })
    )
    await seedGraph(tmp.dir, graphOf(nodes))
    const r = await runSlowlyRead(["query", "orchard apple", "-k", "400", "--lexical-only", "--json"], tmp.dir, 1500)
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    expect(r.stdout.length).toBeGreaterThan(10 * 65_536)
    const results = (JSON.parse(r.stdout) as { results: Array<{ nodeId: string; content: string }> }).results
    expect(results.length).toBe(400)
    expect(new Set(results.map((x) => x.nodeId)).size).toBe(400)
    expect(results.find((x) => x.nodeId === "n399")?.content).toBe(`Note 399: ${filler}`)
  }, 60_000)
})
