// Whole-process latency of the Claude Code hooks (`node dist/awhm.cjs hook …`), the cost paid on every
// prompt, at 1k and 10k memories (graph nodes + raw-log messages), mock embedder.
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { makeNode, type MemoryNode } from "../src/domain/Node.js"
import { ConfigFromValues } from "../src/layers/ConfigLive.js"
import { mockEmbedding, MOCK_MODEL_ID } from "../src/layers/EmbedderMock.js"
import { GraphStoreSqlite } from "../src/layers/GraphStoreSqlite.js"
import { RawLogLive } from "../src/layers/RawLogLive.js"
import { SessionBufferLive } from "../src/layers/SessionBufferLive.js"
import { logMessage } from "../src/programs/logMessage.js"
import { GraphStore } from "../src/services/GraphStore.js"
import { childCpuMs, median } from "./stats.js"

const BIN = path.join(process.cwd(), "dist", "awhm.cjs")
const RUNS = 20
const SIZES = [1_000, 10_000]
const PER_SESSION = 50

const SERVICES = ["billing", "search", "auth", "payments", "inventory", "reporting", "gateway", "mailer"]
const DBS = ["PostgreSQL", "MySQL", "Redis", "SQLite", "MongoDB", "Cassandra"]
const PEOPLE = ["Alice", "Bob", "Chen", "Dara", "Emeka", "Farah"]

/** Varied, realistic sentences so BM25 has real work to do. */
const sentence = (i: number): string => {
  const s = SERVICES[i % SERVICES.length]!
  const d = DBS[(i >> 3) % DBS.length]!
  const p = PEOPLE[(i >> 5) % PEOPLE.length]!
  switch (i % 4) {
    case 0:
      return `The ${s} service ${i} uses ${d} on port ${5000 + (i % 900)}`
    case 1:
      return `${p} prefers to deploy ${s} build ${i} on Fridays`
    case 2:
      return `Actually, the ${s} endpoint ${i} is https://${s}.example.com/v${i % 7}`
    default:
      return `Ticket ${i}: ${s} latency went up after the ${d} upgrade`
  }
}

const prepare = (dataDir: string, n: number) =>
  Effect.gen(function* () {
    const graph = yield* GraphStore
    const now = new Date().toISOString()
    const nodes: Array<MemoryNode> = []
    for (let i = 0; i < n; i++) {
      const content = sentence(i)
      nodes.push(
        makeNode({
          id: `bench-${i}`,
          type: "semantic",
          content,
          createdAt: now,
          embedding: mockEmbedding(content),
          embedModel: MOCK_MODEL_ID,
          sourceSessions: [`bench-${Math.floor(i / PER_SESSION)}`],
          sourceRefs: [{ sessionId: `bench-${Math.floor(i / PER_SESSION)}`, messageIndex: i % PER_SESSION }]
        })
      )
    }
    yield* graph.commit({ upsertNodes: nodes })
    for (let i = 0; i < n; i++) {
      yield* logMessage({ sessionId: `bench-${Math.floor(i / PER_SESSION)}`, role: i % 2 === 0 ? "user" : "assistant", content: sentence(i + 7) })
    }
  }).pipe(
    Effect.provide(Layer.mergeAll(GraphStoreSqlite, RawLogLive, SessionBufferLive).pipe(Layer.provideMerge(ConfigFromValues(dataDir, { embedder: "mock" })))),
    Effect.scoped
  )

/** The environment every process of this bench runs with: its data dir, the mock embedder. */
const benchEnv = (dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  AWHM_DATA_DIR: dataDir,
  AWHM_EMBEDDER: "mock",
  ...extra
})

/**
 * Medians of `node dist/awhm.cjs <args>` fed `input`: whole-process wall time, and CPU time (user+sys),
 * which other load on a shared machine disturbs much less. Run under bash, whose `times` reports the CPU.
 */
export const timeHook = (dataDir: string, args: ReadonlyArray<string>, input: (i: number) => string, server = false, script: string | null = BIN) => {
  const wall: Array<number> = []
  const cpu: Array<number> = []
  // With the server, every timed hook must have been answered by it (else the row would time the fallback).
  const env: NodeJS.ProcessEnv = benchEnv(dataDir, { AWHM_HOOK_SERVER: server ? "1" : "0", ...(server ? { AWHM_HOOK_DEBUG: "1" } : {}) })
  delete env.AWHM_HOOK_ACTIVE
  for (let i = 0; i < RUNS + 1; i++) {
    const started = process.hrtime.bigint()
    // `times` writes to fd 3, so the hook's own stderr stays apart.
    const r = spawnSync("bash", ["-c", '"$@"; s=$?; times >&3; exit $s', "bash", process.execPath, ...(script === null ? [] : [script]), ...args], {
      input: input(i),
      env,
      encoding: "utf8",
      stdio: ["pipe", "pipe", "pipe", "pipe"]
    })
    const ms = Number(process.hrtime.bigint() - started) / 1e6
    if (r.status !== 0 || String(r.stderr).includes("error")) throw new Error(`hook failed (${r.status}): ${r.stderr}`)
    if (server && !String(r.stderr).includes("answered by the hook server")) throw new Error(`the hook server did not answer run ${i}: ${r.stderr}`)
    if (i === 0) continue // the first run warms the OS file cache (and writes the code cache)
    wall.push(ms)
    cpu.push(childCpuMs(String(r.output[3] ?? "")))
  }
  return { wall: median(wall), cpu: median(cpu) }
}

export const fmt = (t: { readonly wall: number; readonly cpu: number }) => `${t.wall.toFixed(0)} ms (${t.cpu.toFixed(0)} ms CPU)`

export const runAwhm = (dataDir: string, args: ReadonlyArray<string>) =>
  spawnSync(process.execPath, [BIN, ...args], { env: benchEnv(dataDir), encoding: "utf8" })

/** Resident memory of a process in MB (Linux /proc), NaN elsewhere. */
export const rssMb = (pid: number | undefined): number => {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]
    return kb === undefined ? NaN : Number(kb) / 1024
  } catch {
    return NaN
  }
}

/** Starts the data dir's hook server and waits until it has warmed up (its first answer), in ms. */
export const startServer = (dataDir: string, payload: string): { readonly ms: number; readonly pid: number | undefined } => {
  const started = Date.now()
  const child = spawn(process.execPath, [BIN, "hook", "serve", "--data-dir", dataDir, "--idle-seconds", "600"], {
    detached: true,
    stdio: "ignore",
    env: benchEnv(dataDir)
  })
  child.unref()
  for (;;) {
    const socketDir = path.join(dataDir, "run")
    if (fs.existsSync(socketDir) && fs.readdirSync(socketDir).some((f) => f.endsWith(".sock"))) break
    if (Date.now() - started > 30_000) throw new Error("the hook server did not start")
    spawnSync("sleep", ["0.02"])
  }
  // The first request waits for the warm-up.
  const r = spawnSync(process.execPath, [BIN, "hook", "prompt"], {
    input: payload,
    env: benchEnv(dataDir, { AWHM_HOOK_DEBUG: "1" }),
    encoding: "utf8"
  })
  if (!String(r.stderr).includes("answered by the hook server")) throw new Error(`the hook server did not answer: ${r.stderr}`)
  return { ms: Date.now() - started, pid: child.pid }
}

export async function run(): Promise<string> {
  if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: run npm run build first`)
  if (spawnSync("bash", ["-c", "true"]).status !== 0) throw new Error("this bench needs bash (for its `times` builtin)")
  const rows: Array<string> = []
  const serverRows: Array<string> = []
  let prompt10k = NaN
  let served10k = NaN
  for (const n of SIZES) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "awhm-bench-hooks-"))
    try {
      await Effect.runPromise(prepare(dir, n))
      const payload = (extra: object) => JSON.stringify({ session_id: `bench-live-${n}`, cwd: "/bench/project", ...extra })
      const promptInput = (i: number) => payload({ prompt: `Which database does the billing service use? (${i})` })
      const stopInput = (i: number) => payload({ last_assistant_message: `The billing service uses PostgreSQL (${i}).` })
      const prompt = timeHook(dir, ["hook", "prompt"], promptInput)
      const stop = timeHook(dir, ["hook", "stop"], stopInput)
      const settings = timeHook(dir, ["hook", "settings"], () => "")
      const warmUp = startServer(dir, promptInput(-1))
      const servedPrompt = timeHook(dir, ["hook", "prompt"], promptInput, true)
      const servedStop = timeHook(dir, ["hook", "stop"], stopInput, true)
      const rss = rssMb(warmUp.pid)
      runAwhm(dir, ["hook", "shutdown"])
      if (n === 10_000) {
        prompt10k = prompt.wall
        served10k = servedPrompt.wall
      }
      rows.push(`| ${n.toLocaleString("en-US")} | ${fmt(prompt)} | ${fmt(stop)} | ${fmt(settings)} |`)
      serverRows.push(`| ${n.toLocaleString("en-US")} | ${fmt(servedPrompt)} | ${fmt(servedStop)} | ${(warmUp.ms / 1000).toFixed(2)} s | ${rss.toFixed(0)} MB |`)
    } finally {
      runAwhm(dir, ["hook", "shutdown"])
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }
  const baseline = timeHook(os.tmpdir(), ["--version"], () => "")
  const bareNode = timeHook(os.tmpdir(), ["-e", "0"], () => "", false, null)
  const cached = fs.existsSync(path.join(path.dirname(BIN), "awhm-hook.cjs"))
  return [
    "## Hooks",
    "",
    `Whole-process wall time of \`node dist/awhm.cjs hook …\` (median of ${RUNS} runs after one warm-up; in brackets its CPU`,
    "time, user+sys, which load from other processes disturbs much less), with N graph nodes",
    `and N raw-log messages (${PER_SESSION} per session), mock embedder, lexical mode (the default). The prompt hook logs`,
    "the prompt and retrieves the top 5 memories; it is on the critical path of every Claude Code prompt (target: under 150 ms at 10k).",
    "",
    "With the hook server (the default: the first hook starts `awhm hook serve`, which keeps the graph and the",
    "indexes in memory; the hook itself only sends the payload over a Unix socket):",
    "",
    "| memories | hook prompt | hook stop | server start, until its first answer | server memory (RSS) after the runs |",
    "|---|---|---|---|---|",
    ...serverRows,
    "",
    "Without it (`AWHM_HOOK_SERVER=0`, and the first prompt of a data dir, which then starts the server): every",
    "hook opens the graph and restores the indexes itself.",
    "",
    "| memories | hook prompt | hook stop | hook settings |",
    "|---|---|---|---|",
    ...rows,
    "",
    `For scale: \`node -e 0\` (Node itself) takes ${fmt(bareNode)}, the floor of any hook; \`node dist/awhm.cjs --version\``,
    `(the full CLI doing nothing) takes ${fmt(baseline)}. The hooks skip the`,
    `full CLI; ${cached ? "this build ships dist/awhm-hook.cjs, so they also run from V8's code cache" : "this build has no dist/awhm-hook.cjs, so they run without V8's code cache"}.`,
    "",
    `<!-- figure: hook_prompt_10k_ms = ${served10k.toFixed(1)} -->`,
    `<!-- figure: hook_prompt_10k_in_process_ms = ${prompt10k.toFixed(1)} -->`
  ].join("\n")
}
