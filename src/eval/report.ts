import type { RetrievalResult } from "../domain/Result.js"
import type { CategoryRecall } from "./metrics.js"

// Report objects keep the reference's snake_case keys: they are the JSON contract of `awhm eval --json`.

export interface LatencyMs {
  readonly p50: number
  readonly p95: number
}

export interface BuiltinCase {
  readonly name: string
  readonly query: string
  readonly latency_ms: number
  readonly recall_hit: boolean
  readonly hit_rank: number | null
  readonly ndcg: number
  readonly forbidden_hit: boolean
  readonly top_results: ReadonlyArray<RetrievalResult>
}

export interface DeletionAudit {
  readonly passed: boolean
  readonly reason?: string
  readonly logs_clean?: boolean
  readonly snapshots_clean?: boolean
  readonly query_clean?: boolean
  /** Beyond the reference: no file under the data directory still holds the secret (WAL, graph, tombstones…). */
  readonly files_clean?: boolean
  /** Data-directory-relative paths of files that still hold it (never the content). */
  readonly files_with_secret?: ReadonlyArray<string>
  readonly deletion_result?: {
    readonly node_deleted: boolean
    readonly snapshots_touched: number
    readonly tombstone_id: string | null
    readonly ledger_record_id: string | null
  }
}

export interface BuiltinReport {
  readonly version: "builtin-v1"
  readonly embedder: string
  readonly query_count: number
  readonly k: number
  readonly recall_at_k: number
  readonly ndcg_at_k: number
  readonly contradiction_error_rate: number
  readonly latency_ms: LatencyMs
  readonly cases: ReadonlyArray<BuiltinCase>
  readonly deletion_audit: DeletionAudit
}

export interface ReplayCase {
  readonly id: string
  readonly question: string
  readonly category: string | null
  readonly hit_rank: number | null
  readonly ndcg: number
  readonly forbidden_hit: boolean
  readonly latency_ms: number
  readonly top_results: ReadonlyArray<string>
}

/** What every corpus replay reports about the run itself, before its scores. */
export interface ReplayRun {
  readonly corpus: string
  readonly embedder: string
  readonly sessions: number
  readonly messages: number
  readonly questions: number
  readonly k: number
  readonly nodes: number
  readonly ingest_seconds: number
}

export interface ReplayReport extends ReplayRun {
  readonly format: string
  /** Whether the raw log was searched (off in the reference's replay protocol; --raw-log). */
  readonly raw_log: boolean
  readonly recall_at_k: number
  readonly ndcg_at_k: number
  readonly contradiction_error_rate: number
  readonly latency_ms: LatencyMs
  readonly by_category: Record<string, CategoryRecall>
  readonly cases: ReadonlyArray<ReplayCase>
}

const f3 = (x: number) => x.toFixed(3)

/** The human summary of the built-in benchmark. */
export const summarizeBuiltin = (r: BuiltinReport): string => {
  const audit = r.deletion_audit
  const failed = (["logs_clean", "snapshots_clean", "query_clean", "files_clean"] as const).filter((key) => audit[key] === false)
  return [
    `AWHM benchmark report (${r.version}, embedder ${r.embedder})`,
    `  Recall@${r.k}: ${f3(r.recall_at_k)}`,
    `  nDCG@${r.k}: ${f3(r.ndcg_at_k)}`,
    `  Contradiction error rate: ${f3(r.contradiction_error_rate)}`,
    `  Latency p50 (ms): ${r.latency_ms.p50.toFixed(2)}`,
    `  Latency p95 (ms): ${r.latency_ms.p95.toFixed(2)}`,
    `  Deletion audit: ${audit.passed ? "passed" : `FAILED (${audit.reason ?? failed.join(", ")})`}`
  ].join("\n")
}

/** The human summary of a corpus replay (the reference's `summarize`, plus every category). */
export const summarizeReplay = (r: ReplayReport): string => {
  const lines = [
    `AWHM replay: ${r.corpus} (${r.format}, embedder ${r.embedder}${r.raw_log ? ", raw log searched" : ""})`,
    `  questions ${r.questions}, sessions ${r.sessions}, messages ${r.messages}, nodes ${r.nodes}, ingest ${r.ingest_seconds.toFixed(1)}s`,
    `  Recall@${r.k}: ${f3(r.recall_at_k)}`,
    `  nDCG@${r.k}: ${f3(r.ndcg_at_k)}`,
    `  Contradiction error rate: ${f3(r.contradiction_error_rate)}`,
    `  Latency p50/p95 (ms): ${r.latency_ms.p50.toFixed(1)} / ${r.latency_ms.p95.toFixed(1)}`
  ]
  const names = Object.keys(r.by_category).filter((n) => n !== "all")
  if (names.length > 0) {
    lines.push("  By category:")
    const width = Math.max(...names.map((n) => n.length))
    for (const n of names) {
      const c = r.by_category[n]!
      lines.push(`    ${n.padEnd(width)}  recall ${f3(c.recall_at_k)} over ${c.questions}`)
    }
  }
  return lines.join("\n")
}
