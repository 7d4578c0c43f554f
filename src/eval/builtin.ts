import { Effect } from "effect"
import type { AwhmConfigShape } from "../domain/Config.js"
import { Embedder } from "../services/Embedder.js"
import { runDeletionAudit, scanDataDir, withFinalScan } from "./audit.js"
import { firstHit, latencySummary, mean, ndcgAt } from "./metrics.js"
import type { BuiltinCase, BuiltinReport } from "./report.js"
import { replaySession, scopedTempDir, storeConfig, storeLayer, timedQuery } from "./store.js"

// The reference's built-in benchmark (builtin-v1): three correction cases and a deletion audit.

const SESSIONS = [
  {
    id: "baseline",
    messages: [
      "My preferred language is Python",
      "The API endpoint is https://api.v1.example.com",
      "My city is San Francisco"
    ]
  },
  {
    id: "corrections",
    messages: [
      "Actually, my preferred language is Rust",
      "Actually, the API endpoint is https://api.v2.example.com",
      "Actually, my city is New York"
    ]
  }
] as const

const CASES = [
  { name: "preferred_language", query: "What is my preferred language?", expected: "rust", forbidden: "python" },
  { name: "api_endpoint", query: "What is the API endpoint?", expected: "v2", forbidden: "v1" },
  { name: "city", query: "What is my city?", expected: "new york", forbidden: "san francisco" }
] as const

/** The secret the deletion audit stores, deletes and then looks for everywhere. */
export const AUDIT_SECRET = "alpha-123-secret"

/**
 * Runs the built-in benchmark in a fresh temporary data directory (live stores, raw-log search off as
 * the reference's cold_start_session_count 0). Needs an Embedder.
 */
export const runBuiltin = Effect.fn("runBuiltin")(function* (base: AwhmConfigShape, k: number) {
  const embedder = yield* Embedder
  return yield* Effect.scoped(
    Effect.gen(function* () {
      const dir = yield* scopedTempDir("awhm-eval-")
      const config = storeConfig(base, dir, 0)
      const { cases, audit } = yield* Effect.gen(function* () {
        for (const s of SESSIONS) {
          yield* replaySession({ id: s.id, messages: s.messages.map((content) => ({ role: "user", content, timestamp: null })) })
        }
        const cases: Array<BuiltinCase> = []
        for (const c of CASES) {
          const { results, latencyMs } = yield* timedQuery(c.query, { k, sessionId: "eval" })
          const contents = results.map((r) => r.content)
          const rank = firstHit(contents, [c.expected])
          cases.push({
            name: c.name,
            query: c.query,
            latency_ms: latencyMs,
            recall_hit: rank !== null,
            hit_rank: rank,
            ndcg: ndcgAt(rank),
            forbidden_hit: firstHit(contents, [c.forbidden]) !== null,
            top_results: results.slice(0, 3)
          })
        }
        const audit = yield* runDeletionAudit(AUDIT_SECRET, k)
        return { cases, audit }
      }).pipe(Effect.provide(storeLayer(config, embedder)))
      // Every store is closed now (WAL flushed, database closed): what is left on disk is what a user has.
      const deletion_audit = withFinalScan(audit, scanDataDir(dir, AUDIT_SECRET))
      return {
        version: "builtin-v1",
        embedder: embedder.modelId,
        query_count: cases.length,
        k,
        recall_at_k: mean(cases.map((c) => (c.recall_hit ? 1 : 0))),
        ndcg_at_k: mean(cases.map((c) => c.ndcg)),
        contradiction_error_rate: mean(cases.map((c) => (c.forbidden_hit ? 1 : 0))),
        latency_ms: latencySummary(cases.map((c) => c.latency_ms)),
        cases,
        deletion_audit
      } satisfies BuiltinReport as BuiltinReport
    })
  )
})
