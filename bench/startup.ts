// Whole-process time of the CLI (`node dist/awhm.cjs …`): what a user or a hook waits for on every call.
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { median } from "./stats.js"

const BIN = path.join(process.cwd(), "dist", "awhm.cjs")
const RUNS = 10
const BIG_LOG = 20_000

/** Median wall time (ms) of `runs` runs of the bin, after one warm-up run (file cache). */
const time = (args: ReadonlyArray<string>, dataDir: string, runs = RUNS): number => {
  const env = { ...process.env, AWHM_DATA_DIR: dataDir }
  const once = () => {
    const t0 = process.hrtime.bigint()
    const r = spawnSync(process.execPath, [BIN, ...args], { env, encoding: "utf8" })
    const ms = Number(process.hrtime.bigint() - t0) / 1e6
    if (r.status !== 0) throw new Error(`awhm ${args.join(" ")} exited ${r.status}: ${r.stderr.split("\n")[0]}`)
    return ms
  }
  once()
  return median(Array.from({ length: runs }, once))
}

/** A session log of `n` messages written directly (the format RawLogLive writes). */
const writeBigLog = (dataDir: string, n: number) => {
  fs.mkdirSync(path.join(dataDir, "logs"), { recursive: true })
  const lines: Array<string> = []
  for (let i = 0; i < n; i++) {
    lines.push(
      JSON.stringify({
        timestamp: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
        session_id: "big",
        role: i % 2 === 0 ? "user" : "assistant",
        content: `Message ${i}: the build server ${i % 37} runs on port ${8000 + (i % 500)} and deploys on Fridays`,
        metadata: {},
        index: i
      })
    )
  }
  fs.writeFileSync(path.join(dataDir, "logs", "big.jsonl"), lines.join("\n") + "\n")
}

export async function run(): Promise<string> {
  if (!fs.existsSync(BIN)) throw new Error("dist/awhm.cjs is missing: run `npm run build` first")
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), "awhm-bench-startup-"))
  const big = fs.mkdtempSync(path.join(os.tmpdir(), "awhm-bench-startup-big-"))
  try {
    writeBigLog(big, BIG_LOG)
    const bare = (() => {
      const once = () => {
        const t0 = process.hrtime.bigint()
        spawnSync(process.execPath, ["-e", "0"])
        return Number(process.hrtime.bigint() - t0) / 1e6
      }
      once()
      return median(Array.from({ length: RUNS }, once))
    })()
    const help = time(["--help"], empty)
    const status = time(["status"], empty)
    const statusBig = time(["status"], big)
    const log = time(["log", "--session", "bench", "--role", "user", "I prefer dark mode"], empty)
    const logBig = time(["log", "--session", "big", "--role", "user", "I prefer dark mode"], big)
    const load = os.loadavg()[0]!.toFixed(1)
    const row = (what: string, ms: number) => `| ${what} | ${ms.toFixed(0)} |`
    return [
      "## Startup",
      "",
      `Whole-process wall time of the bundled bin, median of ${RUNS} runs after one warm-up run, default`,
      "configuration (the embedding model is never loaded by these commands).",
      `1-minute load average at the end of the run: ${load} on ${os.cpus().length} cores (wall times grow with it).`,
      "",
      "| Command | ms |",
      "|---|---|",
      row("`node -e 0` (Node itself, for scale)", bare),
      row("`awhm --help`", help),
      row("`awhm status` (empty data dir)", status),
      row(`\`awhm status\` (one ${BIG_LOG.toLocaleString("en")}-message log)`, statusBig),
      row("`awhm log` (new session)", log),
      row(`\`awhm log\` (appending to the ${BIG_LOG.toLocaleString("en")}-message log)`, logBig),
      "",
      `<!-- figure: startup_help_ms = ${help.toFixed(0)} -->`,
      `<!-- figure: startup_status_ms = ${status.toFixed(0)} -->`,
      `<!-- figure: startup_log_ms = ${log.toFixed(0)} -->`,
      ""
    ].join("\n")
  } finally {
    fs.rmSync(empty, { recursive: true, force: true })
    fs.rmSync(big, { recursive: true, force: true })
  }
}
