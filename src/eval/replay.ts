import { Effect } from "effect"
import type { AwhmConfigShape } from "../domain/Config.js"
import { Embedder } from "../services/Embedder.js"
import type { Corpus, CorpusQuestion, CorpusSession } from "./corpus.js"
import { firstHit, latencySummary, mean, ndcgAt, recallByCategory } from "./metrics.js"
import type { ReplayCase, ReplayReport } from "./report.js"
import { nodeCount, replaySession, scopedTempDir, storeConfig, storeLayer, timedQuery } from "./store.js"

/** The session that asks the questions (its buffer is empty, as the reference's "__eval__"). */
export const EVAL_SESSION = "__eval__"

export interface ReplayOptions {
  readonly k: number
  /** Instance isolation: sessions "<prefix>/<id>" get one store per prefix (default in the CLI). */
  readonly sessionScope: boolean
  /** Raw-log search in the stores: 0 (off) as the reference's replay; null for always. */
  readonly coldStartSessionCount: number | null
  /** Shown in the report ("native", "longmemeval"). */
  readonly format: string
  /** Ask only the first N questions; stores no question needs are then not replayed. */
  readonly limit?: number
  /** After each store: how many of the questions have been asked so far. */
  readonly onProgress?: (asked: number, total: number) => void
}

interface Group {
  readonly prefix: string
  readonly sessions: Array<CorpusSession>
  readonly questions: Array<{ readonly index: number; readonly question: CorpusQuestion }>
}

/**
 * Groups sessions by the id prefix before "/" (the reference's instance isolation; unprefixed sessions
 * share the "" store). A question goes to the store whose prefix equals its id, else to the shared one.
 */
export const groupCorpus = (
  sessions: ReadonlyArray<CorpusSession>,
  questions: ReadonlyArray<CorpusQuestion>,
  sessionScope: boolean
): Array<Group> => {
  const groups = new Map<string, Group>()
  const group = (prefix: string) => {
    let g = groups.get(prefix)
    if (g === undefined) groups.set(prefix, (g = { prefix, sessions: [], questions: [] }))
    return g
  }
  for (const s of sessions) group(sessionScope && s.id.includes("/") ? s.id.slice(0, s.id.indexOf("/")) : "").sessions.push(s)
  // A question without a store of its own is asked of the shared one (an empty store if nothing is shared).
  questions.forEach((question, index) => {
    const own = groups.get(question.id)
    ;(own !== undefined && question.id !== "" ? own : group("")).questions.push({ index, question })
  })
  return [...groups.values()]
}

/** Scores one question's results: the reference's hit, nDCG and contradiction rules. */
export const scoreCase = (question: CorpusQuestion, contents: ReadonlyArray<string>, latencyMs: number): ReplayCase => {
  const rank = firstHit(contents, question.expected)
  return {
    id: question.id,
    question: question.question,
    category: question.category,
    hit_rank: rank,
    ndcg: ndcgAt(rank),
    forbidden_hit: firstHit(contents, question.forbidden) !== null,
    latency_ms: latencyMs,
    top_results: contents.slice(0, 3)
  }
}

/** Aggregates scored cases into the report's metrics. */
export const aggregate = (cases: ReadonlyArray<ReplayCase>) => ({
  recall_at_k: mean(cases.map((c) => (c.hit_rank !== null ? 1 : 0))),
  ndcg_at_k: mean(cases.map((c) => c.ndcg)),
  contradiction_error_rate: mean(cases.map((c) => (c.forbidden_hit ? 1 : 0))),
  latency_ms: latencySummary(cases.map((c) => c.latency_ms)),
  by_category: recallByCategory(cases)
})

/**
 * Replays a corpus through fresh live stores (one temporary data directory per group) and asks every
 * question with `as_of` = the question's moment. Needs an Embedder (loaded once, shared by the stores).
 */
export const runReplay = Effect.fn("runReplay")(function* (corpus: Corpus, base: AwhmConfigShape, options: ReplayOptions) {
  const embedder = yield* Embedder
  const questions = options.limit !== undefined ? corpus.questions.slice(0, options.limit) : corpus.questions
  const groups = groupCorpus(corpus.sessions, questions, options.sessionScope).filter(
    (g) => options.limit === undefined || g.questions.length > 0
  )
  const cases: Array<{ readonly index: number; readonly result: ReplayCase }> = []
  let nodes = 0
  let ingestMs = 0
  let sessions = 0
  let messages = 0
  for (const g of groups) {
    yield* Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* scopedTempDir("awhm-replay-")
        const config = storeConfig(base, dir, options.coldStartSessionCount)
        yield* Effect.gen(function* () {
          const start = performance.now()
          for (const s of g.sessions) yield* replaySession(s)
          ingestMs += performance.now() - start
          nodes += yield* nodeCount
          sessions += g.sessions.length
          messages += g.sessions.reduce((n, s) => n + s.messages.length, 0)
          for (const { index, question } of g.questions) {
            const { results, latencyMs } = yield* timedQuery(question.question, {
              k: options.k,
              asOf: question.asOf,
              sessionId: EVAL_SESSION
            })
            cases.push({ index, result: scoreCase(question, results.map((r) => r.content), latencyMs) })
          }
        }).pipe(Effect.provide(storeLayer(config, embedder)))
      })
    )
    options.onProgress?.(cases.length, questions.length)
  }
  const ordered = cases.sort((a, b) => a.index - b.index).map((c) => c.result)
  return {
    corpus: corpus.name,
    format: options.format,
    embedder: embedder.modelId,
    raw_log: options.coldStartSessionCount !== 0,
    sessions,
    messages,
    questions: ordered.length,
    k: options.k,
    nodes,
    ingest_seconds: ingestMs / 1000,
    ...aggregate(ordered),
    cases: ordered
  } satisfies ReplayReport as ReplayReport
})
