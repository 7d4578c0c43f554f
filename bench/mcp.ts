// How soon the MCP server is ready: from spawning `node dist/awhm-mcp.mjs` to its answer to `initialize`,
// as a client (Claude Code) waits for it before it lists the tools. Wall time, and the server's CPU time
// up to that answer (user+sys from /proc, which other load on a shared machine disturbs much less).
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { median } from "./stats.js"

const MCP_BIN = path.join(process.cwd(), "dist", "awhm-mcp.mjs")
const CLI_BIN = path.join(process.cwd(), "dist", "awhm.cjs")
const RUNS = 10
const CLOCK_TICK_MS = 1000 / 100

const INITIALIZE =
  JSON.stringify({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } }
  }) + "\n"

/** CPU time (user+sys, ms) a live process has used so far. */
const cpuMs = (pid: number): number => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  return (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_MS
}

interface Ready {
  readonly wall: number
  readonly cpu: number
}

/** One server start: time to the initialize answer, then close stdin and wait for it to exit. */
const once = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv): Promise<Ready> =>
  new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint()
    const child = spawn(process.execPath, args, { env, stdio: ["pipe", "pipe", "ignore"] })
    let ready: Ready | null = null
    child.stdout.once("data", () => {
      ready = { wall: Number(process.hrtime.bigint() - t0) / 1e6, cpu: cpuMs(child.pid!) }
      child.stdin.end()
    })
    child.on("error", reject)
    child.on("exit", (code) => (ready !== null ? resolve(ready) : reject(new Error(`awhm-mcp exited ${code} before answering`))))
    child.stdin.write(INITIALIZE)
  })

const measure = async (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv) => {
  await once(args, env)
  const runs: Array<Ready> = []
  for (let i = 0; i < RUNS; i++) runs.push(await once(args, env))
  return { wall: median(runs.map((r) => r.wall)), cpu: median(runs.map((r) => r.cpu)) }
}

export async function run(): Promise<string> {
  if (!fs.existsSync(MCP_BIN)) throw new Error("dist/awhm-mcp.mjs is missing: run `npm run build` first")
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), "awhm-bench-mcp-"))
  const used = fs.mkdtempSync(path.join(os.tmpdir(), "awhm-bench-mcp-used-"))
  try {
    // A data dir with a consolidated graph: what the server does not touch until the first tool call.
    const base = { ...process.env, AWHM_EMBEDDER: "mock", AWHM_HOOK_SERVER: "0" }
    for (let i = 0; i < 40; i++) {
      spawnSync(process.execPath, [CLI_BIN, "log", "--session", `s${i % 4}`, "--role", "user", `My project ${i} deploys to server ${i % 7} on Fridays`], {
        env: { ...base, AWHM_DATA_DIR: used }
      })
    }
    spawnSync(process.execPath, [CLI_BIN, "consolidate"], { env: { ...base, AWHM_DATA_DIR: used } })
    const bare = await (async () => {
      const times: Array<number> = []
      for (let i = 0; i <= RUNS; i++) {
        const t0 = process.hrtime.bigint()
        spawnSync(process.execPath, ["-e", "0"])
        if (i > 0) times.push(Number(process.hrtime.bigint() - t0) / 1e6)
      }
      return median(times)
    })()
    // The default embedder (the real model): it must not load before a query needs it.
    const env = (dir: string) => ({ ...process.env, AWHM_DATA_DIR: dir, AWHM_EMBEDDER: "transformers" })
    const fresh = await measure([MCP_BIN], env(empty))
    const full = await measure([MCP_BIN], env(used))
    const viaCli = await measure([CLI_BIN, "mcp"], env(used))
    const load = os.loadavg()[0]!.toFixed(1)
    const row = (what: string, t: Ready) => `| ${what} | ${t.wall.toFixed(0)} | ${t.cpu.toFixed(0)} |`
    return [
      "## MCP server",
      "",
      `Time from spawning the server to its answer to \`initialize\` (what a client such as Claude Code waits`,
      `for before it lists the tools), median of ${RUNS} runs after one warm-up; CPU is the server's user+sys`,
      "time up to that answer. Default embedder (the real model, loaded only by the first query that needs it);",
      "the stores open on the first tool call.",
      `1-minute load average at the end of the run: ${load} on ${os.cpus().length} cores (wall times grow with it).`,
      "",
      "| Server | wall ms | CPU ms |",
      "|---|---|---|",
      `| \`node -e 0\` (Node itself, for scale) | ${bare.toFixed(0)} | |`,
      row("`awhm-mcp`, empty data dir", fresh),
      row("`awhm-mcp`, 40 messages in 4 sessions, consolidated", full),
      row("`awhm mcp` (through the full CLI), same data dir", viaCli),
      "",
      `<!-- figure: mcp_ready_ms = ${full.wall.toFixed(0)} -->`,
      `<!-- figure: mcp_ready_cpu_ms = ${full.cpu.toFixed(0)} -->`,
      ""
    ].join("\n")
  } finally {
    fs.rmSync(empty, { recursive: true, force: true })
    fs.rmSync(used, { recursive: true, force: true })
  }
}
