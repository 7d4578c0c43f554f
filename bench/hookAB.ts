// The prompt hook on one data dir, this build against an older one, runs interleaved (A B B A …) so that
// other load on the machine falls on both alike: `awhm hook prompt` in the process and through the hook
// server (its readiness from spawn to the first answer, then warm prompts). Client CPU from bash's `times`,
// the server's own CPU per prompt from /proc. HOOK_AB_DIR: the data dir (default: a 100k one seeded for the
// run; hooks write into it, so use a copy); BEFORE_BIN: the older dist/awhm.cjs (without it, this build
// alone); HOOK_AB_RUNS (in-process runs per build, default 10), HOOK_AB_ROUNDS (server starts per build, 3);
// HOOK_AB_SESSION_LINES (default 0): messages each bench session already holds (a long Claude Code session).
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { dataPaths } from "../src/store/paths.js"
import { QUERIES } from "./scale.js"
import { seedDataDir } from "./scaleSeed.js"
import { childCpuMs, median } from "./stats.js"

const BIN = path.join(process.cwd(), "dist", "awhm.cjs")
const RUNS = Number(process.env["HOOK_AB_RUNS"] ?? 10)
const ROUNDS = Number(process.env["HOOK_AB_ROUNDS"] ?? 3)
const SERVED_PER_ROUND = 10
const TICK_MS = 1000 / 100
const SESSION_LINES = Number(process.env["HOOK_AB_SESSION_LINES"] ?? 0)

/** Gives a bench session `n` earlier messages (written as awhm writes them), unless its log exists. */
const longSession = (dataDir: string, session: string, n: number) => {
  const file = dataPaths(dataDir).logFile(`claude-${session}`)
  if (n === 0 || fs.existsSync(file)) return
  const at = Date.parse("2025-06-01T09:00:00.000Z")
  const lines = Array.from({ length: n }, (_, i) =>
    JSON.stringify({ timestamp: new Date(at + i * 60_000).toISOString(), session_id: `claude-${session}`, role: i % 2 === 0 ? "user" : "assistant", content: `Step ${i}: we moved the ${QUERIES[i % QUERIES.length]!.split(" ").slice(2, 5).join(" ")} notes to the shared folder`, metadata: {}, index: i })
  )
  fs.writeFileSync(file, lines.join("\n") + "\n", { mode: 0o600 })
}

const env = (dataDir: string, server: boolean): NodeJS.ProcessEnv => {
  const e: NodeJS.ProcessEnv = { ...process.env, AWHM_DATA_DIR: dataDir, AWHM_EMBEDDER: "mock", AWHM_HOOK_SERVER: server ? "1" : "0" }
  if (server) e.AWHM_HOOK_DEBUG = "1"
  delete e.AWHM_HOOK_ACTIVE
  return e
}

const payload = (session: string, i: number) =>
  JSON.stringify({ session_id: session, cwd: "/bench/project", prompt: `${QUERIES[i % QUERIES.length]} (${i})` })

/** One `awhm hook prompt`: wall and the process's CPU (user+sys), ms. */
const once = (bin: string, dataDir: string, input: string, server: boolean) => {
  const t = process.hrtime.bigint()
  const r = spawnSync("bash", ["-c", '"$@"; s=$?; times >&3; exit $s', "bash", process.execPath, bin, "hook", "prompt"], {
    input,
    env: env(dataDir, server),
    encoding: "utf8",
    stdio: ["pipe", "pipe", "pipe", "pipe"]
  })
  const wall = Number(process.hrtime.bigint() - t) / 1e6
  if (r.status !== 0 || String(r.stderr).includes("error")) throw new Error(`hook failed (${r.status}): ${r.stderr}`)
  if (server && !String(r.stderr).includes("answered by the hook server")) throw new Error(`not answered by the server: ${r.stderr}`)
  return { wall, cpu: childCpuMs(String(r.output[3] ?? "")) }
}

/** User+sys CPU of a running process so far (ms, /proc; 10 ms ticks). */
const procCpuMs = (pid: number): number => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS
}

/** Starts the bin's hook server; ready = from spawn to its answer to the first prompt. */
const serve = (bin: string, dataDir: string, session: string) => {
  const t = Date.now()
  const child = spawn(process.execPath, [bin, "hook", "serve", "--data-dir", dataDir, "--idle-seconds", "600"], {
    detached: true,
    stdio: "ignore",
    env: env(dataDir, true)
  })
  child.unref()
  const socketDir = path.join(dataDir, "run")
  const sockets = () => (fs.existsSync(socketDir) ? fs.readdirSync(socketDir).filter((f) => f.endsWith(".sock")).length : 0)
  const before = sockets()
  while (sockets() === before) {
    if (Date.now() - t > 60_000) throw new Error("the hook server did not start")
    spawnSync("sleep", ["0.01"])
  }
  once(bin, dataDir, payload(session, 999), true)
  return { ready: Date.now() - t, pid: child.pid! }
}

const shutdown = (bin: string, dataDir: string) => {
  spawnSync(process.execPath, [bin, "hook", "shutdown"], { env: env(dataDir, false), encoding: "utf8" })
}

interface Samples {
  inProcess: Array<{ wall: number; cpu: number }>
  served: Array<{ wall: number; cpu: number }>
  serverCpu: Array<number>
  ready: Array<number>
}

const ms = (x: number) => `${x.toFixed(0)} ms`

export async function run(): Promise<string> {
  const given = process.env["HOOK_AB_DIR"]
  const dir = given ?? fs.mkdtempSync(path.join(os.tmpdir(), "awhm-hookab-"))
  if (given === undefined) await seedDataDir(dir, 100_000)
  const before = process.env["BEFORE_BIN"]
  const bins: Array<readonly [string, string]> = [["this build", BIN], ...(before ? [["before", before] as const] : [])]
  const samples = new Map<string, Samples>(bins.map(([label]) => [label, { inProcess: [], served: [], serverCpu: [], ready: [] }]))
  const order = (i: number) => (i % 2 === 0 ? bins : [...bins].reverse())
  const tag = (label: string) => label.replace(/\W+/g, "-")
  for (const [label] of bins) for (const session of [`ab-${tag(label)}`, `ab-served-${tag(label)}`]) longSession(dir, session, SESSION_LINES)
  try {
    // The first run of each build writes its code cache and settles the saved index: not timed.
    for (const [label, bin] of bins) once(bin, dir, payload(`ab-${tag(label)}`, 0), false)
    for (let i = 1; i <= RUNS; i++) {
      for (const [label, bin] of order(i)) samples.get(label)!.inProcess.push(once(bin, dir, payload(`ab-${tag(label)}`, i), false))
    }
    for (let r = 0; r < ROUNDS; r++) {
      for (const [label, bin] of order(r)) {
        const s = samples.get(label)!
        const server = serve(bin, dir, `ab-served-${tag(label)}`)
        try {
          s.ready.push(server.ready)
          for (let i = 0; i < SERVED_PER_ROUND; i++) {
            const c = procCpuMs(server.pid)
            s.served.push(once(bin, dir, payload(`ab-served-${tag(label)}`, r * SERVED_PER_ROUND + i), true))
            // The server finishes its deferred work after the answer: give it a moment before the next prompt.
            spawnSync("sleep", ["0.05"])
            s.serverCpu.push(procCpuMs(server.pid) - c)
          }
        } finally {
          shutdown(bin, dir)
        }
      }
    }
  } finally {
    if (given === undefined) fs.rmSync(dir, { recursive: true, force: true })
  }
  const mean = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0) / xs.length
  const rows = bins.map(([label]) => {
    const s = samples.get(label)!
    const med = (xs: ReadonlyArray<{ wall: number; cpu: number }>) => `${ms(median(xs.map((x) => x.wall)))} (${ms(median(xs.map((x) => x.cpu)))} CPU)`
    return `| ${label} | ${med(s.inProcess)} | ${med(s.served)} | ${ms(mean(s.serverCpu))} | ${ms(median(s.ready))} |`
  })
  return [
    "## Prompt hook, A/B",
    "",
    `\`awhm hook prompt\` on ${given === undefined ? "a seeded 100k data dir" : `\`${given}\``} (mock embedder, lexical), sessions of ${SESSION_LINES} earlier messages and up, builds interleaved:`,
    `in the process (median of ${RUNS}), through the hook server (median of ${ROUNDS * SERVED_PER_ROUND} warm prompts over ${ROUNDS} server starts;`,
    "client wall and CPU, then the server's own CPU per prompt, mean, /proc ticks), and the server's readiness (spawn to first answer, median).",
    `1-minute load average at the end: ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores.`,
    "",
    "| build | in the process | through the server | server CPU / prompt | server ready |",
    "|---|---|---|---|---|",
    ...rows
  ].join("\n")
}
