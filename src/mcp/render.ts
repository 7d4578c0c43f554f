import type { RetrievalResult } from "../domain/Result.js"

// The text each tool returns, worded as the reference's MCP server worded it; the same data also
// goes out as structuredContent.

const round = (n: number) => Math.round(n * 1e4) / 1e4

/** The reference printed the trace with snake_case keys, sorted, Python-style separators. */
const traceText = (trace: NonNullable<RetrievalResult["trace"]>): string => {
  const entries: Array<[string, number]> = [
    ["association", trace.association],
    ["confidence", trace.confidence],
    ["lexical_score", trace.lexicalScore],
    ["semantic_sim", trace.semanticSim],
    ["status_bonus", trace.statusBonus],
    ["strength", trace.strength]
  ]
  return "{" + entries.map(([k, v]) => `"${k}": ${round(v)}`).join(", ") + "}"
}

export const queryText = (results: ReadonlyArray<RetrievalResult>): string =>
  results.length === 0
    ? "No memories found."
    : results
        .flatMap((r, i) => [
          `${i + 1}. [${r.source}] (score: ${r.score.toFixed(3)}) ${r.content}`,
          ...(r.trace !== undefined ? [`   trace=${traceText(r.trace)}`] : [])
        ])
        .join("\n")

export const logText = (bufferEntries: number): string => `Logged. Buffer now has ${bufferEntries} entries.`

export const consolidateText = (sessions: Readonly<Record<string, number>>): string => {
  const ids = Object.keys(sessions)
  if (ids.length === 0) return "No pending sessions to consolidate."
  const total = ids.reduce((n, id) => n + (sessions[id] ?? 0), 0)
  return [
    `Consolidated ${ids.length} session(s), ${total} new node(s):`,
    ...ids.map((id) => `  - ${id}: ${sessions[id]} new node(s)`)
  ].join("\n")
}

export const snapshotText = (path: string): string => `Snapshot created: ${path}`

export const nodeNotFoundText = (nodeId: string): string => `Node ${nodeId} not found.`

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`

export interface DeletionSummary {
  readonly nodeId: string
  readonly edgesRemoved: number
  readonly logEntriesRemoved: number
  readonly bufferEntriesRemoved: number
  readonly snapshotsTouched: number
  readonly siblingsRemoved: ReadonlyArray<string>
}

export const deleteText = (r: DeletionSummary): string =>
  `Deleted node ${r.nodeId}: removed ${plural(r.edgesRemoved, "edge", "edges")}, ` +
  `${plural(r.logEntriesRemoved, "raw-log message", "raw-log messages")}, ` +
  `${plural(r.bufferEntriesRemoved, "buffer entry", "buffer entries")}` +
  (r.siblingsRemoved.length > 0 ? ` and ${plural(r.siblingsRemoved.length, "sibling node", "sibling nodes")}` : "") +
  `; scrubbed ${plural(r.snapshotsTouched, "snapshot", "snapshots")}.`
