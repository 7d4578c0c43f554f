// LoCoMo evidence recall (recall_any@5, recall_any@10, recall_all@10, overall and per category) with the
// mock and the real embedder, plus ablations that show what moves the figure. Zero LLM calls.
// Reads ../shared/data/locomo/locomo10.json (beside the repo) in place (AWHM_LOCOMO_FILE overrides; never copied).
// The real model: AWHM_MODEL_DIR or ./.cache/models/all-MiniLM-L6-v2 (`npm run setup:model`).
// LOCOMO_CONVERSATIONS=n replays only the first n conversations (a quick look); LOCOMO_ABLATIONS=0 skips
// the ablations. The PostgreSQL row starts a private cluster, as the tests do (Debian's postgresql-15).
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Logger, LogLevel, Redacted } from "effect"
import type { AwhmConfigShape } from "../src/domain/Config.js"
import { loadConfig } from "../src/layers/ConfigLive.js"
import { EmbedderMock } from "../src/layers/EmbedderMock.js"
import { DEFAULT_MODEL_ID, EmbedderTransformers, modelFiles } from "../src/layers/EmbedderTransformers.js"
import {
  loadLocomo, loadLocomoAudit, LOCOMO_CATEGORIES, locomoRecall, replayLocomo,
  type LocomoConversation, type LocomoReplayOptions, type RecallFigures
} from "../src/eval/locomoReplay.js"
import { Embedder, type EmbedderShape } from "../src/services/Embedder.js"
import { type PgCluster, startPgCluster } from "../test/support/pgCluster.js"
import { memoizedEmbedder } from "./embedCache.js"

const LOCOMO = process.env["AWHM_LOCOMO_FILE"] ?? `${process.cwd()}/../shared/data/locomo/locomo10.json`
const AUDIT = path.join(path.dirname(LOCOMO), "locomo_audit_errors.json")
const modelDir = () => process.env["AWHM_MODEL_DIR"] ?? path.join(process.cwd(), ".cache", "models", "all-MiniLM-L6-v2")

// LOCOMO_EMBED_CACHE=<file>: keep the real model's vectors between runs (development only).
const CACHE_FILE = process.env["LOCOMO_EMBED_CACHE"]

const caches: Array<() => void> = []

/** Embeds each distinct text once per process: ablations re-use the vectors of the first run. */
const memoized = (inner: EmbedderShape, persist: boolean): EmbedderShape => {
  const { embedder, save } = memoizedEmbedder(inner, persist ? CACHE_FILE : undefined)
  if (persist) caches.push(save)
  return embedder
}

const getEmbedder = (kind: "mock" | "real") =>
  Effect.map(Embedder, (e) => memoized(e, kind === "real")).pipe(
    Effect.provide(kind === "mock" ? EmbedderMock : EmbedderTransformers({ modelId: DEFAULT_MODEL_ID, modelDir: modelDir() }))
  )

interface Row {
  readonly name: string
  readonly figures: RecallFigures
  readonly audited: RecallFigures
  readonly byCategory: Record<string, RecallFigures>
  readonly nodes: number
  readonly ingestSeconds: number
  readonly p50: number
  readonly p95: number
  readonly idsPerResult: number
}

const pct = (values: ReadonlyArray<number>, p: number) => {
  const s = [...values].sort((a, b) => a - b)
  if (s.length === 0) return 0
  const i = (s.length - 1) * p
  const lo = Math.floor(i)
  return s[lo]! + (s[Math.min(lo + 1, s.length - 1)]! - s[lo]!) * (i - lo)
}

const measure = (
  name: string,
  conversations: ReadonlyArray<LocomoConversation>,
  options: LocomoReplayOptions,
  audit: ReadonlyMap<string, ReadonlyArray<string>>
) =>
  Effect.gen(function* () {
    const replay = yield* replayLocomo(conversations, options)
    const recall = locomoRecall(replay.cases)
    const audited = locomoRecall(replay.cases, audit)
    const latencies = replay.cases.map((c) => c.latencyMs)
    process.stderr.write(`locomo: ${name}: any@10 ${recall.overall.recallAnyAt10.toFixed(3)}\n`)
    return {
      name,
      figures: recall.overall,
      audited: audited.overall,
      byCategory: recall.byCategory,
      nodes: replay.nodes,
      ingestSeconds: replay.ingestSeconds,
      p50: pct(latencies, 0.5),
      p95: pct(latencies, 0.95),
      idsPerResult: replay.idsPerResult
    } satisfies Row
  })

const f3 = (n: number) => n.toFixed(3)

export async function run(): Promise<string> {
  if (!fs.existsSync(LOCOMO)) return `## LoCoMo evidence recall\n\nSkipped: ${LOCOMO} not found.\n`
  const limit = Number(process.env["LOCOMO_CONVERSATIONS"] ?? "0")
  const ablations = process.env["LOCOMO_ABLATIONS"] !== "0"
  const realAvailable = modelFiles(false).every((f) => fs.existsSync(path.join(modelDir(), f)))
  const program = Effect.gen(function* () {
    const all = yield* loadLocomo(LOCOMO)
    const conversations = limit > 0 ? all.slice(0, limit) : all
    const audit = loadLocomoAudit(AUDIT)
    // LOCOMO_CONFIG='{"raw_log_score_scale":"0.75"}': parameters other than the defaults (ablations).
    const overrides = JSON.parse(process.env["LOCOMO_CONFIG"] ?? "{}") as Record<string, string>
    const base: AwhmConfigShape = yield* loadConfig({ ...overrides, data_dir: "/nonexistent" }, {})
    const rows: Array<Row> = []
    const runs: Array<{ kind: "mock" | "real"; name: string; opts: Partial<LocomoReplayOptions>; config?: Record<string, unknown>; postgres?: boolean }> = [
      { kind: "mock", name: "mock embedder", opts: {} }
    ]
    if (realAvailable) {
      runs.push({ kind: "real", name: "real model (all-MiniLM-L6-v2)", opts: {} })
      if (ablations) {
        runs.push(
          { kind: "real", name: "real, no consolidation (raw log only)", opts: { consolidate: false } },
          {
            kind: "real",
            name: "real, the reference's fusion (raw_log_score_scale 0.5, priors not gated, entities at full score)",
            opts: { retriever: { graphTuning: { gatePriors: false, entityFactor: 1 } } },
            config: { rawLogScoreScale: 0.5 }
          },
          { kind: "real", name: "real, no author weighting", opts: { retriever: { rawTuning: { authorWeight: 0 } } } },
          { kind: "real", name: "real, no context propagation", opts: { retriever: { rawTuning: { neighbourWeight: 0, sessionWeight: 0 } } } },
          { kind: "real", name: "real, no period weighting (lines said in the period a question names)", opts: { retriever: { rawTuning: { periodWeight: 0 } } } },
          { kind: "real", name: "real, raw log lexical only (graph semantic)", opts: { retriever: { rawTuning: { lexicalShare: 1 } } } },
          { kind: "real", name: "lexical-only queries (no embeddings at all)", opts: { lexicalOnly: true } },
          { kind: "real", name: "real, no newer wins", opts: { retriever: { newerWins: false } } },
          { kind: "real", name: "real, assistant lines at full weight", opts: { retriever: { rawTuning: { assistantShare: 1 } } } },
          { kind: "real", name: "real model on PostgreSQL (a private cluster; each conversation in a scratch namespace)", opts: {}, postgres: true }
        )
      }
    }
    const only = process.env["LOCOMO_RUNS"]?.split(",")
    let cluster: PgCluster | null = null
    const embedders = new Map<string, EmbedderShape>()
    for (const r of runs.filter((x) => only === undefined || only.some((o) => x.name.includes(o)))) {
      let embedder = embedders.get(r.kind)
      if (embedder === undefined) embedders.set(r.kind, (embedder = yield* getEmbedder(r.kind)))
      if (r.postgres === true && cluster === null) cluster = yield* Effect.promise(() => startPgCluster())
      const postgres = r.postgres === true && cluster !== null
        ? { storageBackend: "postgres" as const, postgresUrl: Redacted.make(cluster.urls.awhm_owner), writeNamespace: "eval:locomo", namespaces: [] }
        : {}
      rows.push(
        yield* measure(r.name, conversations, {
          config: { ...base, embedder: r.kind === "mock" ? "mock" : "transformers", ...r.config, ...postgres },
          embedder,
          k: 10,
          ...r.opts,
          onProgress: (done, total) => process.stderr.write(`locomo: ${r.name}: ${done}/${total} conversations\n`)
        }, audit)
      )
    }
    cluster?.stop()
    for (const save of caches) save()
    return { rows, conversations: conversations.length, questions: rows[0]?.figures.questions ?? 0 }
  }).pipe(Logger.withMinimumLogLevel(LogLevel.Warning))
  const { rows, conversations, questions } = await Effect.runPromise(program)
  const main = rows.find((r) => r.name.startsWith("real model")) ?? rows[0]!
  const lines = [
    "## LoCoMo evidence recall",
    "",
    `${conversations} conversations, ${questions} questions (categories 1-4 with evidence), each conversation replayed`,
    "into a fresh data directory (log every turn as \"Speaker: text\" with its image caption, consolidate each",
    "session, end it), then every question asked with k = 10 and no session buffer. A result counts for the",
    "dialogue ids of its source messages. Zero LLM calls. Anchor: plain BM25 over raw turns gives",
    "recall_any@10 0.626. Rerun: `node scripts/bench.mjs locomo` (the real-model rows need `npm run setup:model`).",
    "",
    "| run | any@5 | any@10 | all@10 | any@10 (audited evidence) | nodes | ingest s | query p50 ms | p95 ms | ids/result |",
    "|---|---|---|---|---|---|---|---|---|---|",
    ...rows.map(
      (r) =>
        `| ${r.name} | ${f3(r.figures.recallAnyAt5)} | ${f3(r.figures.recallAnyAt10)} | ${f3(r.figures.recallAllAt10)} | ${f3(r.audited.recallAnyAt10)} | ${r.nodes} | ${r.ingestSeconds.toFixed(0)} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.idsPerResult.toFixed(2)} |`
    ),
    "",
    `Per category (${main.name}):`,
    "",
    "| category | questions | any@5 | any@10 | all@10 |",
    "|---|---|---|---|---|",
    ...Object.entries(main.byCategory).map(
      ([cat, f]) => `| ${cat} ${LOCOMO_CATEGORIES[Number(cat)] ?? ""} | ${f.questions} | ${f3(f.recallAnyAt5)} | ${f3(f.recallAnyAt10)} | ${f3(f.recallAllAt10)} |`
    ),
    "",
    `<!-- figure: locomo_recall_any_at_10 = ${f3(main.figures.recallAnyAt10)} -->`,
    ""
  ]
  return lines.join("\n")
}
