import * as path from "node:path"
import { Effect, Schema } from "effect"
import type { AwhmConfigShape } from "../domain/Config.js"
import { Embedder } from "../services/Embedder.js"
import {
  type LocomoCase,
  type LocomoConversation,
  LOCOMO_CATEGORIES,
  loadLocomo,
  loadLocomoAudit,
  locomoRecall,
  type RecallFigures,
  replayLocomo,
  turnContent
} from "./locomoReplay.js"
import { corpusName, decodeCorpus, readJsonFile } from "./corpus.js"
import { CorpusError } from "./errors.js"
import { firstHit, latencySummary, mean, ndcgAt } from "./metrics.js"
import type { LatencyMs, ReplayRun } from "./report.js"

// `awhm eval --format locomo`: the evidence-recall protocol of the LoCoMo README, run by the retrieval
// engine through replayLocomo (locomoReplay.ts), plus the answer-substring metric of the other replays.

export interface LocomoEvalOptions {
  readonly k: number
  /** Only the first N conversations. */
  readonly limit?: number
  readonly onProgress?: (done: number, total: number) => void
}

interface EvidenceRecall {
  readonly recall_any_at_5: number
  readonly recall_any_at_10: number
  readonly recall_all_at_10: number
}

export interface LocomoCaseReport {
  readonly id: string
  readonly question: string
  readonly category: string
  readonly evidence: ReadonlyArray<string>
  /** First rank whose provenance includes an evidence turn. */
  readonly evidence_rank: number | null
  readonly answer: ReadonlyArray<string>
  /** First rank whose source messages contain the answer (case-insensitive substring). */
  readonly answer_rank: number | null
  readonly latency_ms: number
  /** Dialogue ids behind the top 3 results. */
  readonly top_results: ReadonlyArray<ReadonlyArray<string>>
}

export interface LocomoReport extends EvidenceRecall, ReplayRun {
  readonly format: "locomo"
  readonly conversations: number
  /** Evidence recall_any at k (the CLI's k). */
  readonly recall_at_k: number
  readonly ndcg_at_k: number
  /** Share of questions whose answer occurs in the messages behind the top k. */
  readonly answer_recall_at_k: number
  /** The same evidence recall with locomo_audit_errors.json's corrected citations (null without the file). */
  readonly audited: EvidenceRecall | null
  readonly ids_per_result: number
  readonly latency_ms: LatencyMs
  readonly by_category: Record<string, EvidenceRecall & { readonly questions: number; readonly answer_recall_at_k: number }>
  readonly cases: ReadonlyArray<LocomoCaseReport>
}

const evidenceRecall = (f: RecallFigures): EvidenceRecall => ({
  recall_any_at_5: f.recallAnyAt5,
  recall_any_at_10: f.recallAnyAt10,
  recall_all_at_10: f.recallAllAt10
})

// Only the answers are read here; loadLocomo reads everything else.
const Answers = Schema.Array(
  Schema.Struct({ qa: Schema.Array(Schema.Struct({ answer: Schema.optional(Schema.Unknown) })) })
)

/** Answers by question id ("locomo_<conversation>_qa<n>"); numbers become strings, missing ones none. */
const loadAnswers = (file: string) =>
  Effect.gen(function* () {
    const samples = yield* decodeCorpus(Answers, file, yield* readJsonFile(file))
    const out = new Map<string, ReadonlyArray<string>>()
    samples.forEach((s, ci) =>
      s.qa.forEach((q, qi) => {
        const a = q.answer
        out.set(`locomo_${ci}_qa${qi}`, typeof a === "string" || typeof a === "number" ? [String(a)] : [])
      })
    )
    return out
  })

/** The logged text of every turn, by "<conversation index>:<dia id>" (the index in the file, as question ids). */
const turnTexts = (conversations: ReadonlyArray<LocomoConversation>) => {
  const out = new Map<string, string>()
  conversations.forEach((conv, ci) => {
    for (const s of conv.sessions) for (const t of s.turns) out.set(`${ci}:${t.diaId}`, turnContent(t))
  })
  return out
}

const conversationOf = (caseId: string): string => /^locomo_(\d+)_qa/.exec(caseId)?.[1] ?? ""

/** Scores one case: evidence rank, answer rank over the texts of the results' source messages. */
const scoreCase = (c: LocomoCase, question: string, answer: ReadonlyArray<string>, texts: Map<string, string>): LocomoCaseReport => {
  const evidence = new Set(c.evidence)
  const at = c.retrieved.findIndex((ids) => ids.some((id) => evidence.has(id)))
  const ci = conversationOf(c.id)
  const sources = c.retrieved.map((ids) => ids.map((id) => texts.get(`${ci}:${id}`) ?? "").join("\n"))
  return {
    id: c.id,
    question,
    category: LOCOMO_CATEGORIES[c.category] ?? String(c.category),
    evidence: c.evidence,
    evidence_rank: at === -1 ? null : at + 1,
    answer,
    answer_rank: firstHit(sources, answer),
    latency_ms: c.latencyMs,
    top_results: c.retrieved.slice(0, 3)
  }
}

/**
 * Replays LoCoMo (each conversation in its own temporary store, at its session dates) and reports the
 * evidence recall of the README (recall_any@5/@10, recall_all@10, audited too when
 * locomo_audit_errors.json sits beside the file) and the answer-substring recall at k. Needs an Embedder.
 */
export const runLocomoEval = Effect.fn("runLocomoEval")(function* (file: string, config: AwhmConfigShape, options: LocomoEvalOptions) {
  const embedder = yield* Embedder
  const all = yield* loadLocomo(file).pipe(
    Effect.mapError((e) => new CorpusError({ path: file, message: `malformed LoCoMo corpus ${e.message}` }))
  )
  const answers = yield* loadAnswers(file)
  const conversations = options.limit !== undefined ? all.slice(0, options.limit) : all
  const audit = loadLocomoAudit(path.join(path.dirname(file), "locomo_audit_errors.json"))
  // The README's figures need the top 10 whatever k is.
  const replay = yield* replayLocomo(conversations, {
    config,
    embedder,
    k: Math.max(10, options.k),
    ...(options.onProgress !== undefined ? { onProgress: options.onProgress } : {})
  })
  const questions = new Map(conversations.flatMap((c) => c.questions.map((q) => [q.id, q.question] as const)))
  const texts = turnTexts(conversations)
  const atK = (c: LocomoCase): LocomoCase => ({ ...c, retrieved: c.retrieved.slice(0, options.k) })
  const cases = replay.cases.map((c) => scoreCase(atK(c), questions.get(c.id) ?? "", answers.get(c.id) ?? [], texts))
  const recall = locomoRecall(replay.cases)
  const byCategory: LocomoReport["by_category"] = {}
  for (const [num, name] of Object.entries(LOCOMO_CATEGORIES)) {
    const these = cases.filter((c) => c.category === name)
    if (these.length === 0) continue
    byCategory[name] = {
      questions: these.length,
      ...evidenceRecall(recall.byCategory[num]!),
      answer_recall_at_k: mean(these.map((c) => (c.answer_rank !== null ? 1 : 0)))
    }
  }
  const report: LocomoReport = {
    corpus: corpusName(file),
    format: "locomo",
    embedder: embedder.modelId,
    conversations: conversations.length,
    sessions: conversations.reduce((n, c) => n + c.sessions.length, 0),
    messages: replay.messages,
    questions: cases.length,
    k: options.k,
    nodes: replay.nodes,
    ingest_seconds: replay.ingestSeconds,
    ...evidenceRecall(recall.overall),
    recall_at_k: mean(cases.map((c) => (c.evidence_rank !== null ? 1 : 0))),
    ndcg_at_k: mean(cases.map((c) => ndcgAt(c.evidence_rank))),
    answer_recall_at_k: mean(cases.map((c) => (c.answer_rank !== null ? 1 : 0))),
    audited: audit.size > 0 ? evidenceRecall(locomoRecall(replay.cases, audit).overall) : null,
    ids_per_result: replay.idsPerResult,
    latency_ms: latencySummary(cases.map((c) => c.latency_ms)),
    by_category: byCategory,
    cases
  }
  return { report, summary: summarizeLocomo(report) }
})

const f3 = (x: number) => x.toFixed(3)

/** The human summary of a LoCoMo replay. */
export const summarizeLocomo = (r: LocomoReport): string => {
  const names = Object.keys(r.by_category)
  const width = Math.max(8, ...names.map((n) => n.length))
  return [
    `AWHM LoCoMo replay: ${r.corpus} (embedder ${r.embedder})`,
    `  conversations ${r.conversations}, sessions ${r.sessions}, messages ${r.messages}, questions ${r.questions} (categories 1-4), nodes ${r.nodes}, ingest ${r.ingest_seconds.toFixed(1)}s`,
    `  Evidence recall_any@5 ${f3(r.recall_any_at_5)}, recall_any@10 ${f3(r.recall_any_at_10)}, recall_all@10 ${f3(r.recall_all_at_10)}`,
    ...(r.audited !== null
      ? [`  With the audit's corrected evidence: recall_any@5 ${f3(r.audited.recall_any_at_5)}, recall_any@10 ${f3(r.audited.recall_any_at_10)}, recall_all@10 ${f3(r.audited.recall_all_at_10)}`]
      : []),
    `  Evidence Recall@${r.k}: ${f3(r.recall_at_k)}, nDCG@${r.k}: ${f3(r.ndcg_at_k)}`,
    `  Answer substring Recall@${r.k}: ${f3(r.answer_recall_at_k)}`,
    `  Latency p50/p95 (ms): ${r.latency_ms.p50.toFixed(1)} / ${r.latency_ms.p95.toFixed(1)}`,
    "  By category:",
    ...names.map((n) => {
      const c = r.by_category[n]!
      return `    ${n.padEnd(width)}  recall_any@10 ${f3(c.recall_any_at_10)}, answer@${r.k} ${f3(c.answer_recall_at_k)} over ${c.questions}`
    })
  ].join("\n")
}
