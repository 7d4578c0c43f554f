import type { QueryResult } from "./tools.js"

// The text each tool returns, worded as the reference's MCP server worded it; the same data also
// goes out as structuredContent.

/** The reference printed the trace with snake_case keys, sorted, Python-style separators. */
const traceText = (trace: NonNullable<QueryResult["trace"]>): string => {
  const entries = Object.entries(trace).sort(([a], [b]) => (a < b ? -1 : 1))
  return "{" + entries.map(([k, v]) => `"${k}": ${v}`).join(", ") + "}"
}

export const queryText = (results: ReadonlyArray<QueryResult>): string =>
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
  readonly node_id: string
  readonly edges_removed: number
  readonly log_messages_removed: number
  readonly buffer_entries_removed: number
  readonly snapshots_scrubbed: number
  readonly sibling_nodes_removed: ReadonlyArray<string>
}

export const deleteText = (r: DeletionSummary): string =>
  `Deleted node ${r.node_id}: removed ${plural(r.edges_removed, "edge", "edges")}, ` +
  `${plural(r.log_messages_removed, "raw-log message", "raw-log messages")}, ` +
  `${plural(r.buffer_entries_removed, "buffer entry", "buffer entries")}` +
  (r.sibling_nodes_removed.length > 0 ? ` and ${plural(r.sibling_nodes_removed.length, "sibling node", "sibling nodes")}` : "") +
  `; scrubbed ${plural(r.snapshots_scrubbed, "snapshot", "snapshots")}.`
