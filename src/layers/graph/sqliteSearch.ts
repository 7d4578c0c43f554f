// The SQL half of candidate search on SQLite: per-node index columns and FTS5 terms written with the rows,
// the filter as SQL, exact BM25 over FTS5's preselection, and vectors kept in memory between queries.
import type { MemoryNode } from "../../domain/Node.js"
import type { NodeFilter } from "../../domain/nodeFilter.js"
import { windowStart } from "../../domain/nodeFilter.js"
import { analyze } from "../../search/IndexAnalyzer.js"
import { indexedText } from "../../search/indexedText.js"

/** What the search columns of a node row hold. */
export interface IndexColumns {
  readonly window_start: string
  readonly valid_to: string | null
  readonly scope: string | null
  readonly access_count: number
  readonly lex_len: number
  readonly lex_hash: string
}

/** A node's lexical terms (FTS5 document) and its search columns. */
export const indexColumns = (n: MemoryNode): { readonly terms: string; readonly columns: IndexColumns } => {
  const terms = analyze(indexedText(n.content, windowStart(n)))
  const text = terms.join(" ")
  return {
    terms: text,
    columns: {
      window_start: windowStart(n),
      valid_to: n.validTo,
      scope: n.scope,
      access_count: n.accessCount,
      lex_len: terms.length,
      lex_hash: fnv1a(text)
    }
  }
}

// 32-bit FNV-1a: only to notice that a node's terms changed, never trusted for equality of content.
const fnv1a = (s: string): string => {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return `${s.length}:${(h >>> 0).toString(36)}`
}

/** The filter as a WHERE fragment over `nodes n`, with its parameters. */
export const filterSql = (f: NodeFilter): { readonly where: string; readonly params: Array<string> } => {
  const parts: Array<string> = []
  const params: Array<string> = []
  if (f.scope !== null) {
    parts.push("(n.scope IS NULL OR n.scope = ?)")
    params.push(f.scope)
  }
  if (f.asOf !== null) {
    parts.push("n.window_start <= ? AND (n.valid_to IS NULL OR ? < n.valid_to)")
    params.push(f.asOf, f.asOf)
  } else if (!f.includeHistory) {
    parts.push("n.status = 'active' AND n.window_start <= ? AND (n.valid_to IS NULL OR ? < n.valid_to)")
    params.push(f.now, f.now)
  }
  return { where: parts.length === 0 ? "1" : parts.join(" AND "), params }
}

/** An FTS5 query matching any of the (analyzed, `[a-z0-9_]`) terms. */
export const anyTerm = (terms: ReadonlyArray<string>): string => terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(" OR ")

/** How many FTS5 or vector candidates to read for k results: its own ranking differs a little from ours. */
export const preselect = (k: number): number => Math.max(4 * k, 200)
