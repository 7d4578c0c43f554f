// Embedder and vector search benchmark: a markdown section for docs/benchmarks.md.
// Standalone (the bundle must sit inside the repository so that it finds node_modules/@xenova/transformers):
//   npx esbuild bench/embedder.ts --bundle --platform=node --format=esm --external:@xenova/transformers \
//     --outfile=.tmp/bench-embedder.mjs && node .tmp/bench-embedder.mjs
// The model comes from AWHM_MODEL_DIR or ./.cache/models/all-MiniLM-L6-v2 (run `npm run setup:model`).
import { Effect } from "effect"
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { DEFAULT_MODEL_ID, EmbedderTransformers, modelFiles } from "../src/layers/EmbedderTransformers.js"
import { VectorIndex } from "../src/search/VectorIndex.js"
import { Embedder } from "../src/services/Embedder.js"
import { median } from "./stats.js"

const RUNS = 5
const DIM = 384

const modelDir = () => process.env["AWHM_MODEL_DIR"] ?? join(process.cwd(), ".cache", "models", "all-MiniLM-L6-v2")

const percentile = (xs: ReadonlyArray<number>, p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!
}
const fmt = (x: number, digits = 1) => x.toFixed(digits)

// Deterministic PRNG so every run searches the same data.
const mulberry32 = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const unitVector = (rand: () => number) => {
  const v = new Float32Array(DIM)
  let n = 0
  for (let d = 0; d < DIM; d++) {
    v[d] = rand() - 0.5
    n += v[d]! * v[d]!
  }
  for (let d = 0; d < DIM; d++) v[d]! /= Math.sqrt(n)
  return v
}

// Memory-like sentences of 6 to 40 words.
const SUBJECTS = ["The user", "Alice", "Our team", "The build server", "Bob's manager", "The new service", "My sister"]
const VERBS = ["prefers", "moved", "decided to use", "reported", "asked about", "scheduled", "forgot"]
const OBJECTS = ["dark mode in the editor", "the meeting to Thursday", "PostgreSQL for storage", "a flaky test in CI",
  "the quarterly budget", "a trip to Lisbon in May", "the password rotation policy"]
const sentences = (count: number) => {
  const rand = mulberry32(7)
  const pick = <A>(xs: ReadonlyArray<A>) => xs[Math.floor(rand() * xs.length)]!
  return Array.from({ length: count }, (_, i) => {
    const clauses = 1 + (i % 5)
    return Array.from({ length: clauses }, () => `${pick(SUBJECTS)} ${pick(VERBS)} ${pick(OBJECTS)}`).join(", and ") + "."
  })
}

const time = async <A>(f: () => Promise<A>) => {
  const t = performance.now()
  await f()
  return performance.now() - t
}

// Load time is per process (the model loads once), so each sample is a fresh process.
const LOAD_ONLY = "AWHM_BENCH_EMBEDDER_LOAD_ONLY"
const measureLoadHere = async (quantized: boolean) => {
  const t = performance.now()
  await embedWith(quantized, ["warm up"])
  return performance.now() - t
}
const embedWith = (quantized: boolean, texts: ReadonlyArray<string>) =>
  Effect.runPromise(
    Effect.flatMap(Embedder, (e) => e.embed(texts)).pipe(
      Effect.provide(EmbedderTransformers({ modelId: DEFAULT_MODEL_ID, modelDir: modelDir(), quantized }))
    )
  )
const loadTimes = (quantized: boolean) =>
  Array.from({ length: RUNS }, () => {
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url)], {
      env: { ...process.env, [LOAD_ONLY]: quantized ? "int8" : "fp32" },
      encoding: "utf8"
    })
    const ms = Number(child.stdout.trim())
    if (child.status !== 0 || !Number.isFinite(ms)) throw new Error(`load probe failed: ${child.stderr}`)
    return ms
  })

const modelRow = async (quantized: boolean) => {
  const load = median(loadTimes(quantized))
  await embedWith(quantized, ["warm up"])
  const one = "Alice moved the weekly sync to Thursday at 3pm because of the release."
  const singles: Array<number> = []
  for (let i = 0; i < 50; i++) singles.push(await time(() => embedWith(quantized, [one])))
  const batch = sentences(256)
  const rates: Array<number> = []
  for (let r = 0; r < RUNS; r++) rates.push(256 / ((await time(() => embedWith(quantized, batch))) / 1000))
  return { load, p50: median(singles), p95: percentile(singles, 95), rate: median(rates) }
}

const searchRow = (n: number) => {
  const rand = mulberry32(n)
  const index = new VectorIndex(DIM)
  for (let i = 0; i < n; i++) index.add(`n${i}`, unitVector(rand))
  const queries = Array.from({ length: 50 }, () => unitVector(rand))
  for (const q of queries.slice(0, 5)) index.search(q, 10)
  const p50s: Array<number> = []
  const p95s: Array<number> = []
  for (let r = 0; r < RUNS; r++) {
    const ts = queries.map((q) => {
      const t = performance.now()
      index.search(q, 10)
      return performance.now() - t
    })
    p50s.push(median(ts))
    p95s.push(percentile(ts, 95))
  }
  return { p50: median(p50s), p95: median(p95s) }
}

/** The "embedder" section of docs/benchmarks.md. */
export async function run(): Promise<string> {
  const dir = modelDir()
  const missing = [...new Set([...modelFiles(false), ...modelFiles(true)])].filter((f) => !existsSync(join(dir, f)))
  if (missing.length > 0) throw new Error(`no model in ${dir} (missing ${missing.join(", ")}): run \`npm run setup:model\``)
  const fp32 = await modelRow(false)
  const int8 = await modelRow(true)
  const s10k = searchRow(10_000)
  const s100k = searchRow(100_000)
  const row = (name: string, m: typeof fp32) =>
    `| ${name} | ${fmt(m.load, 0)} ms | ${fmt(m.p50)} ms | ${fmt(m.p95)} ms | ${fmt(m.rate, 0)} |`
  return [
    "## Embedder",
    "",
    `all-MiniLM-L6-v2 (384 dims): transformers.js' tokenizer and ONNX Runtime (one thread), CPU, ${process.platform}/${process.arch}, Node ${process.versions.node}.`,
    `Load: a fresh process loading the tokenizer and the model (weights in onnx/model.onnx_data) up to its first vector (median of ${RUNS}).`,
    "Single: one 13-word sentence, 50 calls after warm-up. Batch: 256 sentences of 6 to 40 words in one call" +
      ` (median of ${RUNS}).`,
    "",
    "| model | load | single p50 | single p95 | batch of 256 (sentences/s) |",
    "| --- | --- | --- | --- | --- |",
    row("fp32 (onnx/model.onnx, the default)", fp32),
    row("int8 (onnx/model_quantized.onnx)", int8),
    "",
    `Exact top-10 vector search (VectorIndex: int8 WebAssembly SIMD scan with proven error bounds, exact float64 rescoring of the rows that can make the top 10), random unit vectors; p50/p95 of 50 queries, median of ${RUNS} runs.`,
    "",
    "| vectors | p50 | p95 |",
    "| --- | --- | --- |",
    `| 10,000 x 384 | ${fmt(s10k.p50, 2)} ms | ${fmt(s10k.p95, 2)} ms |`,
    `| 100,000 x 384 | ${fmt(s100k.p50, 2)} ms | ${fmt(s100k.p95, 2)} ms |`,
    "",
    `<!-- figure: embedder_load_ms = ${fmt(fp32.load, 0)} -->`,
    `<!-- figure: embedder_single_p50_ms = ${fmt(fp32.p50, 2)} -->`,
    `<!-- figure: embedder_batch_sentences_per_s = ${fmt(fp32.rate, 1)} -->`,
    `<!-- figure: vector_search_100k_p95_ms = ${fmt(s100k.p95, 2)} -->`,
    ""
  ].join("\n")
}

if (process.env[LOAD_ONLY] !== undefined) {
  measureLoadHere(process.env[LOAD_ONLY] === "int8").then(
    (ms) => console.log(ms),
    (e) => {
      console.error(e)
      process.exit(1)
    }
  )
} else if (import.meta.url === `file://${process.argv[1]}`) {
  run().then(console.log, (e) => {
    console.error(e)
    process.exit(1)
  })
}
