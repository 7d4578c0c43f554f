#!/usr/bin/env node
// Runs the benchmarks and writes docs/benchmarks.md.
//
//   node scripts/bench.mjs              every bench/*.ts
//   node scripts/bench.mjs eval locomo  only these; the other sections of docs/benchmarks.md are kept
//
// Each bench/<name>.ts exports `async function run(): Promise<string>` returning a markdown section
// (medians of repeated runs). It is bundled with esbuild into .tmp/bench/ and run in its own child
// process, so one bench's memory and JIT state never disturb another's; a bench that throws, exits or
// times out is reported as failed and the others still run. A section may carry hidden figures,
// `<!-- figure: <key> = <number> -->`, which fill the "against the reference" table.
// Environment: BENCH_TIMEOUT_S (per bench, default 7200).
import { spawn } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"
import { nodeBundle } from "./bundleOptions.mjs"

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const BENCH_DIR = join(ROOT, "bench")
const OUT_DIR = join(ROOT, ".tmp", "bench")
const DOC = join(ROOT, "docs", "benchmarks.md")
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_S ?? 7200) * 1000

// Sections appear in this order; unknown ones follow alphabetically.
const ORDER = ["install", "startup", "graph", "embedder", "consolidation", "retrieval", "eval", "locomo", "beam", "hooks", "mcp", "scale"]

// The reference's published figures (AWHM Lite 0.3.0) and the figure key a section reports for the same thing.
const REFERENCE = [
  { what: "Retrieval latency p50 (~60 nodes)", reference: "4.4 ms", key: "retrieval_p50_ms", unit: "ms" },
  {
    what: "Consolidation throughput, real model (10,960 messages in 753 s)",
    reference: "15 msg/s",
    key: "consolidation_msgs_per_s",
    unit: "msg/s"
  },
  { what: "LongMemEval Recall@5, Stage 1, oracle split", reference: "0.196", key: "longmemeval_recall_at_5", unit: "" },
  { what: "LoCoMo recall_any@10, plain BM25 over turns (anchor)", reference: "0.626", key: "locomo_recall_any_at_10", unit: "" }
]

const usage = () => {
  const names = available()
  console.error(`usage: node scripts/bench.mjs [name...]\navailable: ${names.join(", ") || "(none)"}`)
}

function available() {
  if (!existsSync(BENCH_DIR)) return []
  return readdirSync(BENCH_DIR)
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))
    .map((f) => f.slice(0, -3))
    .sort(byOrder)
}

function byOrder(a, b) {
  const ia = ORDER.indexOf(a)
  const ib = ORDER.indexOf(b)
  if (ia !== -1 || ib !== -1) return (ia === -1 ? ORDER.length : ia) - (ib === -1 ? ORDER.length : ib)
  return a < b ? -1 : a > b ? 1 : 0
}

const machine = () => {
  const cpus = os.cpus()
  return {
    cpu: (cpus[0]?.model ?? "unknown CPU").replace(/\s+/g, " ").trim(),
    cores: cpus.length,
    memoryGb: (os.totalmem() / 1024 ** 3).toFixed(1),
    node: process.version,
    os: `${os.platform()} ${os.release()} ${os.arch()}`
  }
}

// One bundle per bench, so a bench that does not build is reported as failed without stopping the others.
const bundle = async (name) => {
  try {
    await build({
      entryPoints: { [name]: join(BENCH_DIR, `${name}.ts`) },
      outdir: OUT_DIR,
      outExtension: { ".js": ".mjs" },
      ...nodeBundle,
      format: "esm",
      // Bundled CommonJS code calls require(); give it one.
      banner: { js: "import { createRequire as __benchCreateRequire } from 'node:module'; const require = __benchCreateRequire(import.meta.url);" },
      logLevel: "silent"
    })
    return null
  } catch (e) {
    const errors = e?.errors?.map((x) => `${x.location ? `${x.location.file}:${x.location.line}: ` : ""}${x.text}`) ?? [String(e)]
    return `bundling failed:\n${errors.slice(0, 5).join("\n")}`
  }
}

// The child: import the bundle, run it, write {ok, markdown | error, maxRssKb} to the result file.
const RUNNER = `
import { writeFileSync } from "node:fs"
import { pathToFileURL } from "node:url"
const [module, resultFile] = process.argv.slice(2)
const finish = (value) => {
  writeFileSync(resultFile, JSON.stringify({ ...value, maxRssKb: process.resourceUsage().maxRSS }))
  process.exit(0)
}
try {
  const m = await import(pathToFileURL(module).href)
  if (typeof m.run !== "function") throw new Error("bench module does not export run()")
  const markdown = await m.run()
  if (typeof markdown !== "string") throw new Error("run() must resolve to a markdown string")
  finish({ ok: true, markdown })
} catch (e) {
  finish({ ok: false, error: e instanceof Error ? (e.stack ?? e.message) : String(e) })
}
`

const runOne = (name) =>
  new Promise((resolveRun) => {
    const runner = join(OUT_DIR, "_runner.mjs")
    const resultFile = join(OUT_DIR, `${name}.result.json`)
    rmSync(resultFile, { force: true })
    const started = Date.now()
    const child = spawn(process.execPath, [runner, join(OUT_DIR, `${name}.mjs`), resultFile], {
      cwd: ROOT,
      stdio: ["ignore", "inherit", "inherit"],
      env: process.env
    })
    const timer = setTimeout(() => child.kill("SIGKILL"), TIMEOUT_MS)
    child.on("exit", (code, signal) => {
      clearTimeout(timer)
      const seconds = (Date.now() - started) / 1000
      let result = null
      try {
        result = JSON.parse(readFileSync(resultFile, "utf8"))
      } catch {
        result = null
      }
      if (result === null) {
        const why = signal === "SIGKILL" && Date.now() - started >= TIMEOUT_MS ? `timed out after ${TIMEOUT_MS / 1000} s` : `exited with ${signal ?? code} before reporting`
        resolveRun({ name, ok: false, error: why, seconds, maxRssKb: null })
      } else {
        resolveRun({ name, seconds, ...result })
      }
    })
  })

const sectionRe = /<!-- bench:([\w-]+) -->\n([\s\S]*?)<!-- \/bench:\1 -->\n?/g

const readSections = () => {
  const sections = new Map()
  if (!existsSync(DOC)) return sections
  const text = readFileSync(DOC, "utf8")
  for (const m of text.matchAll(sectionRe)) sections.set(m[1], m[2])
  return sections
}

const figuresOf = (markdown) => {
  const out = new Map()
  for (const m of markdown.matchAll(/<!--\s*figure:\s*([\w.-]+)\s*=\s*(-?[\d.eE+-]+)\s*-->/g)) out.set(m[1], Number(m[2]))
  return out
}

const title = (name) => name.charAt(0).toUpperCase() + name.slice(1)

const renderSection = (r, date) => {
  const rss = r.maxRssKb ? `, peak RSS ${(r.maxRssKb / 1024).toFixed(0)} MB` : ""
  const meta = `_Measured ${date} on ${machine().cpu} (${machine().cores} cores), Node ${process.version}; the bench took ${r.seconds.toFixed(1)} s${rss}._`
  if (r.ok) {
    const body = r.markdown.trim()
    // A section normally starts with its own "## " heading; give it one when it does not.
    const heading = /^#{1,3} /.test(body) ? "" : `## ${title(r.name)}\n\n`
    const [first, ...rest] = (heading + body).split("\n")
    return [first, "", meta, ...rest].join("\n").replace(/\n{3,}/g, "\n\n") + "\n"
  }
  const error = String(r.error).split("\n").slice(0, 12).join("\n")
  return `## ${title(r.name)}\n\n${meta}\n\n**Failed.**\n\n\`\`\`\n${error}\n\`\`\`\n`
}

const fmt = (v, unit) => (v === undefined ? "—" : `${Number.isInteger(v) ? v : v.toPrecision(3)}${unit ? " " + unit : ""}`)

const renderDoc = (sections, date) => {
  const m = machine()
  const figures = new Map()
  for (const body of sections.values()) for (const [k, v] of figuresOf(body)) figures.set(k, v)
  const names = [...sections.keys()].sort(byOrder)
  const lines = [
    "# Benchmarks",
    "",
    "Written by `npm run bench` (scripts/bench.mjs); rerun all of it, or some sections with",
    "`node scripts/bench.mjs <name>...` (the other sections are kept). Every figure is a median of repeated runs",
    "unless its section says otherwise. Each section notes when and where it was measured.",
    "",
    "## Machine (last run)",
    "",
    `- CPU: ${m.cpu}, ${m.cores} cores`,
    `- Memory: ${m.memoryGb} GB`,
    `- Node: ${m.node}`,
    `- OS: ${m.os}`,
    `- Date: ${date}`,
    "",
    "## Against the reference",
    "",
    "The reference (AWHM Lite 0.3.0, Python) published these; ours are from the sections below (— when not measured yet).",
    "",
    "| What | Reference | awhm |",
    "|---|---|---|",
    ...REFERENCE.map((r) => `| ${r.what} | ${r.reference} | ${fmt(figures.get(r.key), r.unit)} |`),
    ""
  ]
  for (const name of names) lines.push(`<!-- bench:${name} -->`, sections.get(name).trimEnd(), `<!-- /bench:${name} -->`, "")
  return lines.join("\n")
}

const main = async () => {
  const all = available()
  const wanted = process.argv.slice(2)
  if (wanted.includes("--help") || wanted.includes("-h")) return usage(), 0
  const unknown = wanted.filter((n) => !all.includes(n))
  if (unknown.length > 0) {
    console.error(`bench: no bench/${unknown[0]}.ts`)
    usage()
    return 2
  }
  const names = wanted.length > 0 ? [...new Set(wanted)].sort(byOrder) : all
  if (names.length === 0) {
    console.error("bench: nothing to run (no bench/*.ts)")
    return 2
  }
  rmSync(OUT_DIR, { recursive: true, force: true })
  mkdirSync(OUT_DIR, { recursive: true })
  writeFileSync(join(OUT_DIR, "_runner.mjs"), RUNNER)
  const date = new Date().toISOString().slice(0, 10)
  const sections = wanted.length > 0 ? readSections() : new Map()
  const results = []
  for (const name of names) {
    console.error(`bench: ${name}…`)
    const buildError = await bundle(name)
    const r = buildError === null ? await runOne(name) : { name, ok: false, error: buildError, seconds: 0, maxRssKb: null }
    results.push(r)
    console.error(`bench: ${name} ${r.ok ? "done" : "FAILED"} in ${r.seconds.toFixed(1)} s`)
    sections.set(name, renderSection(r, date))
    // Written after every bench, so an interrupted run keeps what it measured.
    mkdirSync(dirname(DOC), { recursive: true })
    writeFileSync(DOC, renderDoc(sections, date))
  }
  const failed = results.filter((r) => !r.ok)
  console.error(`bench: wrote ${DOC}${failed.length ? `; failed: ${failed.map((r) => r.name).join(", ")}` : ""}`)
  return failed.length > 0 ? 1 : 0
}

process.exitCode = await main()
