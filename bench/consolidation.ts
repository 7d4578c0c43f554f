// Stage 1 consolidation throughput on a LoCoMo conversation: a markdown section for docs/benchmarks.md.
// Reads ../shared/data/locomo/locomo10.json (beside the repo) in place (AWHM_LOCOMO_FILE overrides; never copied).
// The real model comes from AWHM_MODEL_DIR or ./.cache/models/all-MiniLM-L6-v2 (`npm run setup:model`).
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Layer, Logger, LogLevel } from "effect"
import type { RawLogEntry } from "../src/domain/Message.js"
import { ConfigFromValues } from "../src/layers/ConfigLive.js"
import { EmbedderMock } from "../src/layers/EmbedderMock.js"
import { DEFAULT_MODEL_ID, EmbedderTransformers, modelFiles } from "../src/layers/EmbedderTransformers.js"
import { GraphStoreMemory } from "../src/layers/GraphStoreMemory.js"
import { GraphStoreSqlite } from "../src/layers/GraphStoreSqlite.js"
import { RawLogMemory } from "../src/layers/RawLogMemory.js"
import { Stage2Mock } from "../src/layers/Stage2Mock.js"
import { extractCandidates } from "../src/text/extraction.js"
import { consolidatePending } from "../src/programs/consolidate.js"
import type { Embedder } from "../src/services/Embedder.js"
import { GraphStore } from "../src/services/GraphStore.js"
import { RawLog } from "../src/services/RawLog.js"
import { DEFAULT_NER_LABELS } from "../src/domain/Config.js"
import { median } from "./stats.js"

const RUNS = 3
const LOCOMO = process.env["AWHM_LOCOMO_FILE"] ?? `${process.cwd()}/../shared/data/locomo/locomo10.json`
const CONVERSATION = 0
const modelDir = () => process.env["AWHM_MODEL_DIR"] ?? path.join(process.cwd(), ".cache", "models", "all-MiniLM-L6-v2")

interface Turn {
  readonly sessionId: string
  readonly content: string
  readonly timestamp: string
}

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"]

/** "1:56 pm on 8 May, 2023" → canonical UTC ISO. */
const sessionTime = (text: string): string => {
  const m = /(\d+):(\d+)\s*(am|pm)\s+on\s+(\d+)\s+(\w+),?\s+(\d{4})/i.exec(text)
  if (m === null) throw new Error(`unreadable LoCoMo session date: ${text}`)
  const hour = (Number(m[1]) % 12) + (m[3]!.toLowerCase() === "pm" ? 12 : 0)
  return new Date(Date.UTC(Number(m[6]), MONTHS.indexOf(m[5]!.toLowerCase()), Number(m[4]), hour, Number(m[2]))).toISOString()
}

/** One LoCoMo conversation as messages: every turn is a user message (both speakers are people), one second apart. */
const loadConversation = (): { readonly turns: ReadonlyArray<Turn>; readonly sessions: number } => {
  const data = JSON.parse(fs.readFileSync(LOCOMO, "utf8")) as Array<{ conversation: Record<string, unknown> }>
  const conv = data[CONVERSATION]!.conversation
  const ids = Object.keys(conv)
    .map((k) => /^session_(\d+)$/.exec(k)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number)
    .sort((a, b) => a - b)
  const turns: Array<Turn> = []
  for (const n of ids) {
    const start = Date.parse(sessionTime(String(conv[`session_${n}_date_time`])))
    const list = conv[`session_${n}`] as Array<{ text: string; blip_caption?: string }>
    list.forEach((t, i) => {
      const content = t.blip_caption ? `${t.text} [shares a photo: ${t.blip_caption}]` : t.text
      turns.push({ sessionId: `locomo-${CONVERSATION}/session_${n}`, content, timestamp: new Date(start + i * 1000).toISOString() })
    })
  }
  return { turns, sessions: ids.length }
}

interface Sample {
  readonly seconds: number
  /** User + system CPU seconds of this process (all threads): steadier than wall time on a busy machine. */
  readonly cpuSeconds: number
  readonly nodes: number
  readonly edges: number
}

/** Logs the conversation into fresh stores, then times `consolidatePending` alone. */
const runOnce = (turns: ReadonlyArray<Turn>, embedder: Layer.Layer<Embedder>, store: "memory" | "sqlite") =>
  Effect.gen(function* () {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "awhm-bench-consolidation-"))
    try {
      const config = ConfigFromValues(dir)
      const graph = store === "memory" ? GraphStoreMemory : GraphStoreSqlite.pipe(Layer.provide(config))
      const layer = Layer.mergeAll(RawLogMemory, graph, embedder, Stage2Mock([]), config)
      return yield* Effect.scoped(
        Effect.gen(function* () {
          const log = yield* RawLog
          for (const t of turns) yield* log.append({ sessionId: t.sessionId, role: "user", content: t.content, timestamp: t.timestamp })
          const t0 = performance.now()
          const c0 = process.cpuUsage()
          yield* consolidatePending()
          const seconds = (performance.now() - t0) / 1000
          const cpu = process.cpuUsage(c0)
          const counts = yield* (yield* GraphStore).counts
          return { seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, nodes: counts.nodes, edges: counts.edges } satisfies Sample
        }).pipe(Effect.provide(layer))
      )
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }).pipe(Logger.withMinimumLogLevel(LogLevel.Error))

const measure = async (turns: ReadonlyArray<Turn>, embedder: Layer.Layer<Embedder>, store: "memory" | "sqlite") => {
  await Effect.runPromise(runOnce(turns.slice(0, 20), embedder, store)) // warm-up: JIT, model load
  const samples: Array<Sample> = []
  for (let i = 0; i < RUNS; i++) samples.push(await Effect.runPromise(runOnce(turns, embedder, store)))
  return {
    seconds: median(samples.map((s) => s.seconds)),
    cpuSeconds: median(samples.map((s) => s.cpuSeconds)),
    nodes: samples[0]!.nodes,
    edges: samples[0]!.edges
  }
}

/** Time of extraction alone (NER, dates, rules), per message. */
const extractionMs = (turns: ReadonlyArray<Turn>) => {
  const entries = turns.map((t, index) => ({ timestamp: t.timestamp, session_id: t.sessionId, role: "user", content: t.content, metadata: {}, index }) as unknown as RawLogEntry)
  const options = { nerLabels: new Set<string>(DEFAULT_NER_LABELS) }
  extractCandidates(entries.slice(0, 50), options)
  const times: Array<number> = []
  let candidates = 0
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now()
    candidates = extractCandidates(entries, options).length
    times.push(performance.now() - t0)
  }
  return { msPerMessage: median(times) / entries.length, candidates }
}

export async function run(): Promise<string> {
  const { turns, sessions } = loadConversation()
  const n = turns.length
  const rows: Array<string> = []
  const row = (label: string, r: { seconds: number; cpuSeconds: number; nodes: number; edges: number }) =>
    rows.push(
      `| ${label} | ${(n / r.seconds).toFixed(0)} | ${(n / r.cpuSeconds).toFixed(0)} | ${(r.seconds * 1000).toFixed(0)} | ` +
        `${r.nodes} (${(r.nodes / n).toFixed(2)}/msg) | ${r.edges} |`
    )
  const loadBefore = os.loadavg()[0]!

  const extraction = extractionMs(turns)
  const mock = await measure(turns, EmbedderMock, "memory")
  row("mock embedder, in-memory graph", mock)
  let realRate: number | null = null
  const dir = modelDir()
  if (modelFiles(false).every((f) => fs.existsSync(path.join(dir, f)))) {
    const real = EmbedderTransformers({ modelId: DEFAULT_MODEL_ID, modelDir: dir })
    const r = await measure(turns, real, "memory")
    realRate = n / r.seconds
    row("all-MiniLM-L6-v2, in-memory graph", r)
    row("all-MiniLM-L6-v2, SQLite graph", await measure(turns, real, "sqlite"))
  } else {
    rows.push(`| all-MiniLM-L6-v2 | not run: no model in ${dir} (npm run setup:model) | | | | |`)
  }

  return [
    "## Consolidation (Stage 1)",
    "",
    `LoCoMo conversation ${CONVERSATION} (${n} messages in ${sessions} sessions, every turn a user message, session dates as`,
    `message times), consolidated with \`consolidatePending\` into an empty graph (sessions committed in groups, embeddings`,
    `batched across them). Median of ${RUNS} runs`,
    `on ${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? "unknown CPU"}), Node ${process.version}; load average ${loadBefore.toFixed(1)} before`,
    `and ${os.loadavg()[0]!.toFixed(1)} after (wall-clock figures shrink on a shared machine; per CPU-second ones much less).`,
    "The reference did 15 msg/s with its real model.",
    "",
    "| setup | messages/s (wall) | messages per CPU-second | total ms | nodes created | edges |",
    "|---|---|---|---|---|---|",
    ...rows,
    "",
    `Extraction alone (NER with compromise, chrono dates, rules; no embedding, no graph): ${extraction.msPerMessage.toFixed(2)} ms per message, ` +
      `${extraction.candidates} candidates (${(extraction.candidates / n).toFixed(2)}/msg) before dedup against the graph.`,
    ...(realRate !== null ? ["", `<!-- figure: consolidation_msgs_per_s = ${realRate.toFixed(0)} -->`] : []),
    ""
  ].join("\n")
}

// Standalone: node .tmp/bench/consolidation.mjs
if (process.argv[1] !== undefined && /consolidation\.(m?js|ts)$/.test(process.argv[1])) {
  run().then((s) => process.stdout.write(s + "\n"))
}
