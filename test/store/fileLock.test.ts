import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { build } from "esbuild"
import { acquireLockSync } from "../../src/store/fileLock.js"
import { makeTempDir } from "../support/cli.js"

const workerFile = path.resolve(".cache", "test-store", `lock-worker-${process.pid}.mjs`)

const runWorker = (args: ReadonlyArray<string>) =>
  new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [workerFile, ...args], { stdio: ["ignore", "ignore", "pipe"] })
    let stderr = ""
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()))
    child.on("exit", (code) => resolve({ code, stderr }))
  })

describe("acquireLockSync", () => {
  it("breaks a lock whose holder is dead, honours a live one, and releases only its own", () => {
    const { dir, cleanup } = makeTempDir()
    try {
      const lock = path.join(dir, "locks", "x.lock")
      fs.mkdirSync(path.dirname(lock))
      fs.writeFileSync(lock, "999999999 0 gone")
      const release = acquireLockSync(lock)
      const mine = fs.readFileSync(lock, "utf8")
      expect(mine).toMatch(new RegExp(`^${process.pid} \\d+ ${process.pid}\\.[0-9a-f]{12}$`))
      // Someone judged us dead and took the lock: our release leaves theirs alone.
      fs.writeFileSync(lock, "1 9999999999999 theirs")
      release()
      expect(fs.readFileSync(lock, "utf8")).toBe("1 9999999999999 theirs")
      expect(fs.readdirSync(path.dirname(lock))).toEqual(["x.lock"])
    } finally {
      cleanup()
    }
  })

  it("two processes breaking one stale lock at once: only one gets in, 150 rounds", async () => {
    await build({
      entryPoints: [path.resolve("test/store/lockWorker.ts")],
      outfile: workerFile,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      logLevel: "warning"
    })
    const { dir, cleanup } = makeTempDir()
    try {
      const lock = path.join(dir, "locks", "graph.lock")
      const journal = path.join(dir, "journal")
      fs.mkdirSync(path.dirname(lock))
      fs.writeFileSync(lock, `${process.pid} 0 stale-at-start`)
      const rounds = 150
      // Both start the first round at the same moment, once both have loaded.
      const startAt = Date.now() + 1500
      const results = await Promise.all([0, 1].map(() => runWorker([lock, journal, String(rounds), String(startAt), "25"])))
      expect(results).toEqual([{ code: 0, stderr: "" }, { code: 0, stderr: "" }])
      const lines = fs.readFileSync(journal, "utf8").trim().split("\n")
      expect(lines.length).toBe(rounds * 2 * 2)
      // Never two inside: every "enter p" is followed by "exit p".
      const overlaps = lines.filter((line, i) => i % 2 === 0 && (!line.startsWith("enter ") || lines[i + 1] !== `exit ${line.slice(6)}`))
      expect(overlaps).toEqual([])
    } finally {
      cleanup()
      fs.rmSync(workerFile, { force: true })
    }
  })
})
