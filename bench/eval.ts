// Evaluation benchmark: the built-in benchmark and corpus replay, timed. A markdown section for
// docs/benchmarks.md (run with `node scripts/bench.mjs eval`).
// The real model comes from AWHM_MODEL_DIR or ./.cache/models/all-MiniLM-L6-v2 (`npm run setup:model`);
// without it the real-model rows are skipped. LONGMEMEVAL_FILE=<longmemeval_oracle.json> adds the
// LongMemEval replay (LONGMEMEVAL_LIMIT=N for a subset), which the reference measured at Recall@5 0.196.
import { existsSync } from "node:fs"
import * as os from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import type { AwhmConfigShape } from "../src/domain/Config.js"
import { loadConfig } from "../src/layers/ConfigLive.js"
import { embedderLayer } from "../src/layers/Main.js"
import { runBuiltin } from "../src/eval/builtin.js"
import type { Corpus, CorpusSession, CorpusQuestion } from "../src/eval/corpus.js"
import { runLocomoEval } from "../src/eval/locomo.js"
import { loadLongMemEval } from "../src/eval/longmemeval.js"
import { runReplay } from "../src/eval/replay.js"
import type { ReplayReport } from "../src/eval/report.js"
import { median } from "./stats.js"

const RUNS = 5
const REPLAY_RUNS = 3

const f = (x: number, d = 2) => x.toFixed(d)

const modelDir = () => process.env.AWHM_MODEL_DIR ?? join(process.cwd(), ".cache", "models", "all-MiniLM-L6-v2")
const hasModel = () => existsSync(join(modelDir(), "onnx", "model.onnx"))

const config = (embedder: "mock" | "transformers"): Promise<AwhmConfigShape> =>
  Effect.runPromise(
    // A data directory that does not exist: no config.json of anyone's is read; each run uses temp stores.
    loadConfig({ data_dir: join(os.tmpdir(), "awhm-bench-eval-no-config"), embedder, ...(embedder === "transformers" ? { model_dir: modelDir() } : {}) }, {})
  )

/** The built-in benchmark, RUNS times: wall time and latencies as medians, quality from the last run. */
const builtin = async (embedder: "mock" | "transformers") => {
  const c = await config(embedder)
  const runs = await Effect.runPromise(
    Effect.gen(function* () {
      const out = []
      // One warm-up run: the first one pays for module and model loading.
      for (let i = 0; i < RUNS + 1; i++) {
        const start = performance.now()
        const report = yield* runBuiltin(c, 5)
        out.push({ ms: performance.now() - start, report })
      }
      return out.slice(1)
    }).pipe(Effect.provide(embedderLayer(c)))
  )
  const last = runs[runs.length - 1]!.report
  return {
    wallMs: median(runs.map((r) => r.ms)),
    p50: median(runs.map((r) => r.report.latency_ms.p50)),
    p95: median(runs.map((r) => r.report.latency_ms.p95)),
    recall: last.recall_at_k,
    ndcg: last.ndcg_at_k,
    contradiction: last.contradiction_error_rate,
    audit: runs.every((r) => r.report.deletion_audit.passed)
  }
}

// A synthetic native corpus: per instance, facts, chatter and a correction across 4 sessions.
const EDITORS = ["vim", "emacs", "helix", "nano", "zed", "kakoune", "micro", "sublime"]
const CITIES = ["Lisbon", "Nairobi", "Osaka", "Quito", "Tallinn", "Hobart", "Accra", "Bergen"]
const syntheticCorpus = (instances: number): Corpus => {
  const sessions: Array<CorpusSession> = []
  const questions: Array<CorpusQuestion> = []
  for (let i = 0; i < instances; i++) {
    const id = `inst${i}`
    const oldEditor = EDITORS[i % EDITORS.length]!
    const newEditor = EDITORS[(i + 3) % EDITORS.length]!
    const city = CITIES[(i * 5) % CITIES.length]!
    const chatter = (s: number) =>
      Array.from({ length: 8 }, (_, n) => ({
        role: n % 2 === 0 ? ("user" as const) : ("assistant" as const),
        content: n % 2 === 0 ? `Can you help with ticket ${i * 100 + s * 10 + n} about the build?` : `Sure, here is a plan for step ${n} of the build fix.`,
        timestamp: null
      }))
    const said = (content: string) => ({ role: "user" as const, content, timestamp: null })
    sessions.push(
      { id: `${id}/s1`, messages: [said(`My favourite editor is ${oldEditor}`), ...chatter(1), said(`I live in ${city}`)] },
      { id: `${id}/s2`, messages: [...chatter(2), said(`The deploy server is build-${i}.example.com`), said("That worked, thanks!")] },
      { id: `${id}/s3`, messages: [said(`Actually, my favourite editor is ${newEditor}`), ...chatter(3), said("Never use tabs for indentation")] },
      { id: `${id}/s4`, messages: chatter(4) }
    )
    questions.push(
      { id, question: "What is my favourite editor?", expected: [newEditor], forbidden: [oldEditor], asOf: null, category: "update" }
    )
  }
  return { name: `synthetic-${instances}`, sessions, questions }
}

const replay = async (corpus: Corpus, embedder: "mock" | "transformers", runs: number) => {
  const c = await config(embedder)
  const reports: Array<ReplayReport> = await Effect.runPromise(
    Effect.gen(function* () {
      const out: Array<ReplayReport> = []
      for (let i = 0; i < runs; i++) {
        out.push(yield* runReplay(corpus, c, { k: 5, sessionScope: true, coldStartSessionCount: 0, format: "native" }))
      }
      return out
    }).pipe(Effect.provide(embedderLayer(c)))
  )
  const last = reports[reports.length - 1]!
  return {
    report: last,
    ingestSeconds: median(reports.map((r) => r.ingest_seconds)),
    msgsPerSecond: median(reports.map((r) => r.messages / r.ingest_seconds)),
    p50: median(reports.map((r) => r.latency_ms.p50)),
    p95: median(reports.map((r) => r.latency_ms.p95))
  }
}

export async function run(): Promise<string> {
  const lines: Array<string> = ["## Evaluation (`awhm eval`)", ""]
  lines.push(
    `Built-in benchmark (builtin-v1: three correction cases and the deletion audit, k = 5), ${RUNS} runs after a warm-up,`,
    "medians; each run builds a fresh temporary data directory (live SQLite graph, raw log, WAL).",
    "",
    "| Embedder | Recall@5 | nDCG@5 | Contradiction rate | Deletion audit | Query p50 / p95 | Whole run |",
    "|---|---|---|---|---|---|---|"
  )
  const embedders: Array<"mock" | "transformers"> = hasModel() ? ["mock", "transformers"] : ["mock"]
  for (const e of embedders) {
    const b = await builtin(e)
    lines.push(
      `| ${e === "mock" ? "mock (default)" : "all-MiniLM-L6-v2"} | ${f(b.recall, 3)} | ${f(b.ndcg, 3)} | ${f(b.contradiction, 3)} | ${b.audit ? "passed" : "FAILED"} | ${f(b.p50)} / ${f(b.p95)} ms | ${f(b.wallMs, 0)} ms |`
    )
  }
  if (!hasModel()) lines.push("", "_Real model not found (run `npm run setup:model`): its row is missing._")

  const corpus = syntheticCorpus(20)
  const messages = corpus.sessions.reduce((n, s) => n + s.messages.length, 0)
  lines.push(
    "",
    `Native replay of a synthetic corpus (${corpus.questions.length} instances × 4 sessions, ${messages} messages, one`,
    `correction per instance; each instance in its own store), ${REPLAY_RUNS} runs, medians:`,
    "",
    "| Embedder | Recall@5 | Contradiction rate | Nodes | Ingest | Ingest rate | Query p50 / p95 |",
    "|---|---|---|---|---|---|---|"
  )
  for (const e of embedders) {
    const r = await replay(corpus, e, e === "mock" ? REPLAY_RUNS : 1)
    lines.push(
      `| ${e === "mock" ? "mock" : "all-MiniLM-L6-v2"} | ${f(r.report.recall_at_k, 3)} | ${f(r.report.contradiction_error_rate, 3)} | ${r.report.nodes} | ${f(r.ingestSeconds, 1)} s | ${f(r.msgsPerSecond, 0)} msg/s | ${f(r.p50)} / ${f(r.p95)} ms |`
    )
  }

  // LoCoMo through `awhm eval --format locomo`: the answer-substring metric beside the evidence recall
  // (the LoCoMo section has the evidence recall in depth, with the real model and ablations).
  const locomo = process.env.AWHM_LOCOMO_FILE ?? `${process.cwd()}/../shared/data/locomo/locomo10.json`
  if (existsSync(locomo)) {
    const c = await config("mock")
    const { report } = await Effect.runPromise(runLocomoEval(locomo, c, { k: 10 }).pipe(Effect.provide(embedderLayer(c))))
    const answerAt = (k: number, cases = report.cases) => cases.filter((x) => x.answer_rank !== null && x.answer_rank <= k).length / Math.max(1, cases.length)
    lines.push(
      "",
      `LoCoMo through \`awhm eval --format locomo\` (${report.questions} questions of categories 1-4, mock embedder, one run):`,
      "a hit for the answer metric is the gold answer occurring (case-insensitive substring) in a message behind the",
      "top results, a lower bound since LoCoMo's answers are mostly paraphrases.",
      "",
      "| Category | n | Evidence any@10 | Answer@5 | Answer@10 |",
      "|---|---|---|---|---|",
      `| all | ${report.questions} | ${f(report.recall_any_at_10, 3)} | ${f(answerAt(5), 3)} | ${f(answerAt(10), 3)} |`,
      ...Object.entries(report.by_category).map(([name, cat]) => {
        const these = report.cases.filter((x) => x.category === name)
        return `| ${name} | ${cat.questions} | ${f(cat.recall_any_at_10, 3)} | ${f(answerAt(5, these), 3)} | ${f(answerAt(10, these), 3)} |`
      })
    )
  }

  const lme = process.env.LONGMEMEVAL_FILE
  if (lme !== undefined && existsSync(lme)) {
    const limit = process.env.LONGMEMEVAL_LIMIT !== undefined ? Number(process.env.LONGMEMEVAL_LIMIT) : undefined
    const e = hasModel() ? "transformers" : "mock"
    const c = await config(e)
    // The reference's protocol (graph and buffer, raw log off), then the retrieval users get (raw log on).
    const reports = await Effect.runPromise(
      Effect.gen(function* () {
        const corpus = yield* loadLongMemEval(lme, limit)
        const graphOnly = yield* runReplay(corpus, c, { k: 5, sessionScope: true, coldStartSessionCount: 0, format: "longmemeval" })
        const withRawLog = yield* runReplay(corpus, c, { k: 5, sessionScope: true, coldStartSessionCount: null, format: "longmemeval" })
        return [graphOnly, withRawLog] as const
      }).pipe(Effect.provide(embedderLayer(c)))
    )
    const [graphOnly] = reports
    const categories = Object.keys(graphOnly.by_category)
    lines.push(
      "",
      `LongMemEval (${graphOnly.corpus}, ${graphOnly.questions} questions, ${graphOnly.messages} messages, ${e === "mock" ? "mock embedder" : "all-MiniLM-L6-v2"}, Stage 1,`,
      "haystack dates replayed, as_of = question date, answer-substring matching), one run each; the reference measured",
      "Recall@5 0.196 on the oracle split with the raw log off:",
      "",
      "| Raw log | Recall@5 | nDCG@5 | Nodes | Ingest | Query p50 / p95 |",
      "|---|---|---|---|---|---|",
      ...reports.map(
        (r) =>
          `| ${r.raw_log ? "searched (--raw-log)" : "off (reference protocol)"} | ${f(r.recall_at_k, 3)} | ${f(r.ndcg_at_k, 3)} | ${r.nodes} | ${f(r.ingest_seconds, 0)} s | ${f(r.latency_ms.p50)} / ${f(r.latency_ms.p95)} ms |`
      ),
      "",
      "| Category | n | Recall@5, raw log off | Recall@5, raw log searched |",
      "|---|---|---|---|",
      ...categories.map(
        (name) =>
          `| ${name} | ${graphOnly.by_category[name]!.questions} | ${f(graphOnly.by_category[name]!.recall_at_k, 3)} | ${f(reports[1].by_category[name]?.recall_at_k ?? 0, 3)} |`
      ),
      // Beside the reference's figure only when it measures the same thing: whole file, real model, raw log off.
      ...(e === "transformers" && limit === undefined ? ["", `<!-- figure: longmemeval_recall_at_5 = ${graphOnly.recall_at_k} -->`] : [])
    )
  } else {
    lines.push("", "_LongMemEval not run: set LONGMEMEVAL_FILE to a LongMemEval JSON file (it is not part of the repository)._")
  }
  lines.push("", "Reproduce: `node scripts/bench.mjs eval`; one-off: `awhm eval [--corpus FILE --format native|longmemeval|locomo]`.")
  return lines.join("\n")
}
