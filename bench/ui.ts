// How fast `awhm ui` shows its first page (Slots: the canonical keys and what each holds now) with 1k and
// 10k memories, as Chromium measures it: Navigation Timing for the document, and the mark the page sets
// once its first view is on screen with the server's data. Mock embedder; the browser is Debian's
// Chromium driven by playwright-core.
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { chromium } from "playwright-core"
import { makeNode, type MemoryNode } from "../src/domain/Node.js"
import { ConfigFromValues } from "../src/layers/ConfigLive.js"
import { GraphStoreSqlite } from "../src/layers/GraphStoreSqlite.js"
import { RawLogLive } from "../src/layers/RawLogLive.js"
import { SessionBufferLive } from "../src/layers/SessionBufferLive.js"
import { logMessage } from "../src/programs/logMessage.js"
import { GraphStore } from "../src/services/GraphStore.js"
import { median } from "./stats.js"

const BIN = path.join(process.cwd(), "dist", "awhm.cjs")
const CHROMIUM = process.env.AWHM_CHROMIUM ?? "/usr/bin/chromium"
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"]
const SIZES = [1_000, 10_000]
const STARTS = 5
const WARM = 10
const VERSIONS = 4
const PER_SESSION = 50
const DAY = 86_400_000

const SERVICES = ["billing", "search", "auth", "payments", "inventory", "reporting", "gateway", "mailer"]
const DBS = ["PostgreSQL", "MySQL", "Redis", "SQLite", "MongoDB", "Cassandra"]

/** n memories: n / 4 slots, each with 4 values over time (3 superseded, 1 current). */
const prepare = (dataDir: string, n: number) =>
  Effect.gen(function* () {
    const graph = yield* GraphStore
    const nodes: Array<MemoryNode> = []
    const t0 = Date.parse("2025-01-01T00:00:00Z")
    for (let slot = 0; slot < n / VERSIONS; slot++) {
      const service = `${SERVICES[slot % SERVICES.length]} ${slot}`
      for (let v = 0; v < VERSIONS; v++) {
        const from = new Date(t0 + (slot % 97) * DAY + v * 60 * DAY).toISOString()
        const to = v === VERSIONS - 1 ? null : new Date(t0 + (slot % 97) * DAY + (v + 1) * 60 * DAY).toISOString()
        const i = slot * VERSIONS + v
        nodes.push(
          makeNode({
            id: `bench-${i}`,
            type: "semantic",
            content: `The ${service} service runs on ${DBS[(slot + v) % DBS.length]}`,
            createdAt: from,
            validFrom: from,
            validTo: to,
            status: to === null ? "active" : "superseded",
            canonicalKey: `fact:the ${service} service runs on`,
            supersedes: v === 0 ? [] : [`bench-${i - 1}`],
            sourceSessions: [`bench-${Math.floor(i / PER_SESSION)}`],
            sourceRefs: [{ sessionId: `bench-${Math.floor(i / PER_SESSION)}`, messageIndex: i % PER_SESSION }]
          })
        )
      }
    }
    yield* graph.commit({ upsertNodes: nodes })
    for (const node of nodes) {
      yield* logMessage({ sessionId: node.sourceRefs[0]!.sessionId, role: "user", content: node.content, timestamp: node.createdAt })
    }
  }).pipe(
    Effect.provide(Layer.mergeAll(GraphStoreSqlite, RawLogLive, SessionBufferLive).pipe(Layer.provideMerge(ConfigFromValues(dataDir, { embedder: "mock" })))),
    Effect.scoped
  )

/** user+sys CPU milliseconds of a process so far (Linux /proc). */
const cpuMs = (pid: number): number => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
}

interface Server {
  readonly url: string
  readonly pid: number
  readonly startMs: number
  readonly stop: () => Promise<void>
}

const startServer = (dataDir: string): Promise<Server> =>
  new Promise((resolve, reject) => {
    const started = process.hrtime.bigint()
    const child = spawn(process.execPath, [BIN, "ui"], {
      env: { ...process.env, AWHM_DATA_DIR: dataDir, AWHM_EMBEDDER: "mock", AWHM_HOOK_SERVER: "0" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    let err = ""
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d))
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d
      const m = /http:\/\/127\.0\.0\.1:\d+\/\?s=[\w-]+/.exec(out)
      if (m === null) return
      const startMs = Number(process.hrtime.bigint() - started) / 1e6
      resolve({
        url: m[0],
        pid: child.pid!,
        startMs,
        stop: () =>
          new Promise((done) => {
            child.once("close", () => done())
            child.kill("SIGTERM")
          })
      })
    })
    child.on("close", (code) => reject(new Error(`awhm ui exited ${code}: ${err}`)))
  })

interface Sample {
  readonly rendered: number
  readonly fcp: number
  readonly domContentLoaded: number
  readonly responseEnd: number
  readonly serverCpu: number
  readonly browserCpu: number
}

type Browser = Awaited<ReturnType<typeof chromium.launch>>
type BrowserCdp = Awaited<ReturnType<Browser["newBrowserCDPSession"]>>

/** CPU seconds of every Chromium process (browser, renderers, utilities), from the browser itself. */
const browserCpuMs = async (cdp: BrowserCdp): Promise<number> => {
  const info = (await cdp.send("SystemInfo.getProcessInfo" as never)) as unknown as { processInfo: Array<{ cpuTime: number }> }
  return info.processInfo.reduce((sum, p) => sum + p.cpuTime, 0) * 1000
}

/** One first-page load in a fresh browser context (no cookie, no cache). */
const load = async (browser: Browser, cdp: BrowserCdp, server: Server): Promise<Sample> => {
  const context = await browser.newContext()
  const page = await context.newPage()
  const cpuBefore = cpuMs(server.pid)
  const browserBefore = await browserCpuMs(cdp)
  await page.goto(server.url)
  await page.waitForSelector('main[data-ready="slots"] table.slots tbody tr')
  const cpuAfter = cpuMs(server.pid)
  const browserAfter = await browserCpuMs(cdp)
  // Runs in the page (a string: this file is type-checked for Node, not the DOM).
  const timing = (await page.evaluate(`(() => {
    const nav = performance.getEntriesByType("navigation")[0]
    const fcp = performance.getEntriesByName("first-contentful-paint")[0]
    const mark = performance.getEntriesByName("awhm:first-render")[0]
    return { rendered: mark ? mark.startTime : NaN, fcp: fcp ? fcp.startTime : NaN, domContentLoaded: nav.domContentLoadedEventEnd, responseEnd: nav.responseEnd }
  })()`)) as Pick<Sample, "rendered" | "fcp" | "domContentLoaded" | "responseEnd">
  await context.close()
  return { ...timing, serverCpu: cpuAfter - cpuBefore, browserCpu: browserAfter - browserBefore }
}

const ms = (x: number) => `${x.toFixed(0)} ms`

/** Medians of `node dist/awhm.cjs --version`: wall and user+sys CPU (bash's `times`), the scale of any start. */
const versionRun = () => {
  const wall: Array<number> = []
  const cpu: Array<number> = []
  for (let i = 0; i < 6; i++) {
    const started = process.hrtime.bigint()
    const r = spawnSync("bash", ["-c", '"$@" >/dev/null; times', "bash", process.execPath, BIN, "--version"], { encoding: "utf8" })
    if (i === 0) continue
    wall.push(Number(process.hrtime.bigint() - started) / 1e6)
    const parts = [...(r.stdout.trim().split("\n").pop() ?? "").matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60_000 + Number(m[2]) * 1000)
    cpu.push(parts[0]! + parts[1]!)
  }
  return { wall: median(wall), cpu: median(cpu) }
}

export async function run(): Promise<string> {
  if (!fs.existsSync(BIN)) throw new Error("dist/awhm.cjs is missing: npm run build")
  const loadBefore = os.loadavg()[0]!
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS })
  const cdp = await browser.newBrowserCDPSession()
  const rows: Array<string> = []
  let tenK = NaN
  try {
    for (const n of SIZES) {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "awhm-bench-ui-"))
      try {
        await Effect.runPromise(prepare(dataDir, n))
        const cold: Array<Sample> = []
        const starts: Array<number> = []
        const warm: Array<Sample> = []
        for (let s = 0; s < STARTS; s++) {
          const server = await startServer(dataDir)
          try {
            starts.push(server.startMs)
            cold.push(await load(browser, cdp, server))
            if (s === STARTS - 1) for (let w = 0; w < WARM + 1; w++) warm.push(await load(browser, cdp, server))
          } finally {
            await server.stop()
          }
        }
        warm.shift() // the first warm load still compiles the page's script in a new context's cache
        const m = (xs: ReadonlyArray<Sample>, k: keyof Sample) => median(xs.map((x) => x[k]))
        if (n === 10_000) tenK = m(cold, "rendered")
        rows.push(
          `| ${n.toLocaleString("en-US")} | first after start | ${ms(m(cold, "rendered"))} | ${ms(m(cold, "fcp"))} | ${ms(m(cold, "responseEnd"))} | ${ms(m(cold, "serverCpu"))} | ${ms(m(cold, "browserCpu"))} | ${(median(starts) / 1000).toFixed(2)} s |`,
          `| ${n.toLocaleString("en-US")} | later loads | ${ms(m(warm, "rendered"))} | ${ms(m(warm, "fcp"))} | ${ms(m(warm, "responseEnd"))} | ${ms(m(warm, "serverCpu"))} | ${ms(m(warm, "browserCpu"))} | |`
        )
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true })
      }
    }
  } finally {
    await browser.close()
  }
  const version = versionRun()
  const loadAfter = os.loadavg()[0]!
  return [
    "## Web viewer",
    "",
    `\`awhm ui\`'s first page (Slots: the first 50 canonical keys with what each holds now, out of N/4 keys with 4 values each,`,
    `and N raw-log messages), loaded in a fresh Chromium context (no cookie, no cache) from the printed address, which`,
    `redirects once to set the cookie. "Rendered" is the page's own mark once the list is on screen (Navigation Timing`,
    `origin: the start of the navigation, redirect included); FCP is Chromium's first contentful paint; the document's`,
    `responseEnd shows the HTML's share. Server CPU is the \`awhm ui\` process's user+sys time during the load; browser`,
    `CPU is the CPU time of all Chromium's processes during it (CDP SystemInfo). "First after start": the first load after \`awhm ui\``,
    `started (median of ${STARTS} starts; the server reads the graph then); "later loads": median of ${WARM} further loads.`,
    "Target: under 1 s at 10k. Wall times on a shared machine move with its load (the 1-minute load average was",
    `${loadBefore.toFixed(1)} before this bench and ${loadAfter.toFixed(1)} after, on ${os.cpus().length} cores); the CPU columns much less. For scale, in the`,
    `same run \`node dist/awhm.cjs --version\` took ${ms(version.wall)} (${ms(version.cpu)} CPU).`,
    "",
    "| memories | load | rendered | FCP | HTML responseEnd | server CPU | browser CPU | server start |",
    "|---|---|---|---|---|---|---|---|",
    ...rows,
    "",
    `<!-- figure: ui_first_render_10k_ms = ${tenK.toFixed(1)} -->`
  ].join("\n")
}
