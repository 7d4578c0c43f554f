import { spawn } from "node:child_process"
import * as fs from "node:fs"
import { describe, expect, it } from "vitest"
import { dataPaths } from "../../src/store/paths.js"
import { BIN, makeTempDir, ROOT, runAwhm } from "../support/cli.js"

// SIGKILL during consolidate, delete and restore (what held under adversarial testing, kept so): the store
// stays loadable, no logged message is lost, and no lock left by the killed process blocks the next command.

/** Starts `awhm ...args` and SIGKILLs it after `ms` (or lets it finish first). */
const killedAfter = (args: ReadonlyArray<string>, dataDir: string, ms: number, extra: Record<string, string>) =>
  new Promise<void>((resolve) => {
    const env: Record<string, string> = { AWHM_DATA_DIR: dataDir, AWHM_EMBEDDER: "mock", AWHM_HOOK_SERVER: "0", ...extra }
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("AWHM_")) env[k] = v
    const child = spawn(process.execPath, [BIN, ...args], { env, cwd: ROOT, stdio: "ignore" })
    const timer = setTimeout(() => child.kill("SIGKILL"), ms)
    child.on("exit", () => {
      clearTimeout(timer)
      resolve()
    })
  })

const messages = (dataDir: string): Array<string> =>
  fs
    .readdirSync(dataPaths(dataDir).logs)
    .filter((n) => n.endsWith(".jsonl") && !n.startsWith("."))
    .flatMap((n) => fs.readFileSync(`${dataPaths(dataDir).logs}/${n}`, "utf8").trim().split("\n"))
    .map((l) => (JSON.parse(l) as { content: string }).content)
    .sort()

describe("SIGKILL during consolidate, delete and restore", () => {
  for (const backend of ["sqlite", "json"] as const) {
    it(`${backend}: after each kill the next commands succeed, and every message not deleted is still logged`, async () => {
      const { dir, cleanup } = makeTempDir("awhm-crash-")
      const env = { AWHM_STORAGE_BACKEND: backend }
      const ok = async (args: ReadonlyArray<string>) => {
        const r = await runAwhm(args, { dataDir: dir, env, timeoutMs: 60_000 })
        expect([args[0], r.code, r.stderr]).toEqual([args[0], 0, ""])
        return r.stdout
      }
      try {
        const logged = Array.from({ length: 6 }, (_, i) => `I prefer the codename CRASH${i}TEST`)
        for (const [i, text] of logged.entries()) await ok(["log", "--session", `s${i % 2}`, "--role", "user", text])
        const snap = (JSON.parse(await ok(["snapshot", "create", "--json"])) as { path: string }).path
        await killedAfter(["consolidate"], dir, 900, env)
        await ok(["consolidate"])
        const nodes = JSON.parse(await ok(["nodes", "--json"])) as { nodes: Array<{ id: string; content: string }> }
        const victim = nodes.nodes.find((n) => n.content.includes("CRASH0TEST"))!
        expect(victim).toBeDefined()
        await killedAfter(["delete", victim.id], dir, 900, env)
        // Killed or not, a second delete finishes the job (or finds nothing left to delete).
        const again = await runAwhm(["delete", victim.id], { dataDir: dir, env })
        expect([0, 1]).toContain(again.code)
        await killedAfter(["snapshot", "restore", "--path", snap], dir, 900, env)
        await ok(["snapshot", "restore", "--path", snap])
        await ok(["consolidate"])
        expect(messages(dir)).toEqual(logged.slice(1).sort())
        const left = JSON.parse(await ok(["nodes", "--json"])) as { nodes: Array<{ content: string }> }
        const all = left.nodes.map((n) => n.content).join("\n")
        expect(logged.slice(1).filter((t) => !all.includes(t.split(" ").at(-1)!))).toEqual([])
        expect(all).not.toContain("CRASH0TEST")
      } finally {
        cleanup()
      }
    }, 300_000)
  }
})
