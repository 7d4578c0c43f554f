// Cost by memory size, measured as a user pays it: whole `awhm` processes (wall and CPU time, peak RSS),
// a warm query in one library process, consolidating one new session, and the data dir's size, at 1k,
// 10k and 100k memories (N graph nodes + N raw-log messages of LoCoMo text, 384-dim vectors). 1M only with
// SCALE_BENCH_1M=1. BEFORE_BIN=<old dist/awhm.cjs> adds the same whole-process rows for an older build;
// SCALE_BENCH_SIZES, SCALE_BENCH_RUNS and SCALE_BENCH_QUICK=1 (lexical, warm and disk only) narrow a run.
// SCALE_BENCH_SEEDS=<folder> copies <folder>/<N> (a data dir the seeder wrote, kept untouched) instead of seeding
// again: a rerun of 1M then starts in about 30 s, not 7 minutes. Only for data dirs seeded by the same schema.
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { AwhmLive } from "../src/layers/Main.js"
import { loadConfig } from "../src/layers/ConfigLive.js"
import { Retriever } from "../src/services/Retriever.js"
import { fmt, rssMb, runAwhm, startServer, timeHook } from "./hooks.js"
import { seedDataDir } from "./scaleSeed.js"
import { median } from "./stats.js"

export const BIN = path.join(process.cwd(), "dist", "awhm.cjs")
export const RUNS = Number(process.env["SCALE_BENCH_RUNS"] ?? 5)
const CONSOLIDATE_RUNS = Number(process.env["SCALE_BENCH_CONSOLIDATE_RUNS"] ?? 3)
const SIZES = [...(process.env["SCALE_BENCH_SIZES"] ?? "1000,10000,100000").split(",").map(Number), ...(process.env["SCALE_BENCH_1M"] === "1" ? [1_000_000] : [])]
export const QUERIES = [
  "What did Caroline research about adoption agencies?",
  "When did Melanie paint a sunrise?",
  "What is Jon's favourite dance style?",
  "Where did Gina open her store?"
]

const p95 = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(0.95 * xs.length))]!

interface ProcessCost {
  readonly wall: number
  readonly cpu: number
  readonly rssMb: number
}

/** One whole process under /usr/bin/time: wall and user+sys seconds, peak RSS. */
export const timed = (bin: string, args: ReadonlyArray<string>, env: NodeJS.ProcessEnv, input = ""): ProcessCost => {
  const r = spawnSync("/usr/bin/time", ["-f", "AWHM_TIME %e %U %S %M", process.execPath, bin, ...args], { env, input, encoding: "utf8" })
  const line = r.stderr.split("\n").find((l) => l.startsWith("AWHM_TIME "))
  if (r.status !== 0 || line === undefined) throw new Error(`${args.join(" ")} failed (${r.status}): ${r.stderr.slice(-400)}`)
  const [, e, u, s, m] = line.split(" ").map(Number) as [number, number, number, number, number]
  return { wall: e, cpu: u + s, rssMb: m / 1024 }
}

export const medianCost = (runs: ReadonlyArray<ProcessCost>): ProcessCost => ({
  wall: median(runs.map((r) => r.wall)),
  cpu: median(runs.map((r) => r.cpu)),
  rssMb: median(runs.map((r) => r.rssMb))
})

export const envFor = (dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, AWHM_DATA_DIR: dataDir, AWHM_HOOK_SERVER: "0", ...extra }
  delete env.AWHM_HOOK_ACTIVE
  return env
}

const modelReady = () => fs.existsSync(path.join(process.cwd(), ".cache", "models"))

/** Median cost of RUNS whole processes after one that may build caches; run i gets args(i) and input(i) on stdin. */
export const whole = (
  bin: string,
  dataDir: string,
  args: (i: number) => ReadonlyArray<string>,
  extra: Record<string, string> = {},
  input: (i: number) => string = () => ""
) => {
  timed(bin, args(0), envFor(dataDir, extra), input(0))
  return medianCost(Array.from({ length: RUNS }, (_, i) => timed(bin, args(i + 1), envFor(dataDir, extra), input(i + 1))))
}

const duBytes = (dir: string): number => {
  let total = 0
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name)
    total += e.isDirectory() ? duBytes(p) : fs.statSync(p).size
  }
  return total
}

/** Warm queries in one library process (the composition the CLI uses), lexical only: CPU and wall per query. */
export const warm = async (dataDir: string, flags: Record<string, string> = {}) => {
  const config = await Effect.runPromise(loadConfig({ data_dir: dataDir, embedder: "none", ...flags }, {}))
  return Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const retriever = yield* Retriever
        const walls: Array<number> = []
        const cpus: Array<number> = []
        yield* retriever.retrieve(QUERIES[0]!, { lexicalOnly: true })
        for (let i = 0; i < 40; i++) {
          const c = process.cpuUsage()
          const t = performance.now()
          yield* retriever.retrieve(QUERIES[i % QUERIES.length]!, { lexicalOnly: true })
          walls.push(performance.now() - t)
          const d = process.cpuUsage(c)
          cpus.push((d.user + d.system) / 1000)
        }
        return { p50: median(walls), p95: p95(walls), cpu: median(cpus) }
      }).pipe(Effect.provide(Layer.fresh(AwhmLive(config))))
    )
  )
}

/** The prompt hook at this size: in the process, then through a hook server started for it. */
const hooksAt = (dir: string, n: number): string => {
  const prompt = (i: number) => JSON.stringify({ session_id: `scale-hook-${n}`, cwd: "/bench/project", prompt: `${QUERIES[Math.abs(i) % QUERIES.length]} (${i})` })
  const inProcess = timeHook(dir, ["hook", "prompt"], prompt)
  // A new Claude Code session's first prompt: its log is created (in the process, as after the server idled out).
  const first = timeHook(dir, ["hook", "prompt"], (i) => JSON.stringify({ session_id: `scale-new-${n}-${i}`, cwd: "/bench/project", prompt: QUERIES[Math.abs(i) % QUERIES.length] }))
  const server = startServer(dir, prompt(-1))
  try {
    const served = timeHook(dir, ["hook", "prompt"], prompt, true)
    return `| ${n.toLocaleString("en-US")} | ${fmt(inProcess)} | ${fmt(first)} | ${fmt(served)} | ${s(server.ms / 1000)} | ${Math.round(rssMb(server.pid))} MB |`
  } finally {
    runAwhm(dir, ["hook", "shutdown"])
  }
}

/** `awhm consolidate` after one new 20-message session (a fresh session each run). */
const consolidateOne = (bin: string, dataDir: string, runs: number, extra: Record<string, string>) =>
  medianCost(
    Array.from({ length: runs }, (_, r) => {
      const sid = `new-${bin === BIN ? "a" : "b"}-${r}-${Date.now()}`
      for (let i = 0; i < 20; i++) {
        const log = spawnSync(process.execPath, [bin, "log", "--session", sid, "--role", i % 2 === 0 ? "user" : "assistant", `I moved to Lisbon in ${2000 + i} and my dog is called Rex ${i}`], {
          env: envFor(dataDir, extra),
          encoding: "utf8"
        })
        if (log.status !== 0) throw new Error(`log failed: ${log.stderr}`)
      }
      return timed(bin, ["consolidate"], envFor(dataDir, extra))
    })
  )

export const s = (x: number) => (x < 1 ? `${Math.round(x * 1000)} ms` : `${x.toFixed(2)} s`)
export const cost = (c: ProcessCost) => `${s(c.wall)} / ${s(c.cpu)} CPU, ${Math.round(c.rssMb)} MB`

export async function run(): Promise<string> {
  const before = process.env["BEFORE_BIN"] ?? null
  // SCALE_BENCH_QUICK=1: only the lexical query, the warm query and the disk (a busy machine, a big size).
  const quick = process.env["SCALE_BENCH_QUICK"] === "1"
  const seedsDir = process.env["SCALE_BENCH_SEEDS"] ?? null
  const rows: Array<string> = []
  const hookRows: Array<string> = []
  const seedTimes: Array<string> = []
  // Other work on the machine stretches wall time (not CPU time): the 1-minute load average says how much.
  const loads: Array<number> = [os.loadavg()[0]!]
  for (const n of SIZES) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `awhm-scale-${n}-`))
    try {
      const t = performance.now()
      const seeded = seedsDir === null ? null : path.join(seedsDir, String(n))
      if (seeded !== null && fs.existsSync(seeded)) fs.cpSync(fs.realpathSync(seeded), dir, { recursive: true })
      else await seedDataDir(dir, n)
      seedTimes.push(`${n.toLocaleString("en-US")}: ${s((performance.now() - t) / 1000)}${seeded !== null && fs.existsSync(seeded) ? " (copied from an earlier seeding)" : ""}`)
      const q = (i: number) => ["query", QUERIES[i % QUERIES.length]!]
      const bins: Array<readonly [string, string]> = [["this build", BIN], ...(before === null ? [] : [["before", before] as const])]
      for (const [label, bin] of bins) {
        const lexical = whole(bin, dir, (i) => [...q(i), "--lexical-only"], { AWHM_EMBEDDER: "none" })
        const semantic = modelReady() && !quick ? whole(bin, dir, q) : null
        const consolidate = quick ? null : consolidateOne(bin, dir, CONSOLIDATE_RUNS, { AWHM_EMBEDDER: modelReady() ? "transformers" : "mock" })
        const w = label === "this build" ? await warm(dir) : null
        rows.push(
          `| ${n.toLocaleString("en-US")} | ${label} | ${cost(lexical)} | ${semantic === null ? "-" : cost(semantic)} | ` +
            `${w === null ? "-" : `${w.p50.toFixed(1)} / ${w.p95.toFixed(1)} ms (${w.cpu.toFixed(1)} ms CPU)`} | ${consolidate === null ? "-" : cost(consolidate)} | ` +
            `${label === "this build" ? `${(duBytes(dir) / n / 1024).toFixed(2)} KB` : "-"} |`
        )
        if (label === "this build" && !quick) hookRows.push(hooksAt(dir, n))
        loads.push(os.loadavg()[0]!)
        process.stderr.write(`scale: ${n} ${label} done\n`)
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }
  return [
    "## Scale (memory size)",
    "",
    `N memories = N graph nodes + N raw-log messages of LoCoMo text (20 per session), 384-dim vectors, SQLite.`,
    `Whole processes: \`node dist/awhm.cjs query "<LoCoMo question>"\` (\`--lexical-only\` with no embedder; "real model" loads`,
    `all-MiniLM-L6-v2) and \`awhm consolidate\` of one new 20-message session (model load included): wall / CPU time,`,
    `peak RSS, medians of ${RUNS} runs (${CONSOLIDATE_RUNS} for consolidate) after one run that may build caches. Warm = one library`,
    `process (AwhmLive), 40 lexical queries after the first: p50 / p95 wall, median CPU. Disk = the data dir / N.`,
    `Seeding (bulk inserts, vectors computed by the seeder): ${seedTimes.join(", ")}.`,
    `1-minute load average during the run: ${Math.min(...loads).toFixed(1)} to ${Math.max(...loads).toFixed(1)} (2 cores;` +
      ` above 1, wall time includes waiting for the CPU: compare CPU time).`,
    "",
    "| memories | build | query --lexical-only | query, real model | warm query p50 / p95 | consolidate one session | disk per memory |",
    "|---|---|---|---|---|---|---|",
    ...rows,
    ...(hookRows.length === 0
      ? []
      : [
          "",
          "The prompt hook on the same data dirs (`node dist/awhm.cjs hook prompt`, a LoCoMo question, mock embedder, lexical):",
          "in the process (`AWHM_HOOK_SERVER=0`), also as a new session's first prompt (its log created), and answered by the",
          "hook server (whole client process; in brackets its CPU), medians of 20 runs after one; the server's start until its",
          "first answer, and its memory after the runs.",
          "",
          "| memories | hook prompt, in the process | first prompt of a session, in the process | hook prompt, through the server | server ready | server RSS |",
          "|---|---|---|---|---|---|",
          ...hookRows
        ])
  ].join("\n")
}
