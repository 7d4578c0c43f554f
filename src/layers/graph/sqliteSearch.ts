// The SQL half of candidate search on SQLite: per-node index columns and FTS5 terms written with the rows,
// the filter as SQL, exact BM25 over FTS5's preselection, and vectors kept in memory between queries.
import { Effect } from "effect"
import type { MemoryNode } from "../../domain/Node.js"
import type { NodeFilter } from "../../domain/nodeFilter.js"
import { windowStart } from "../../domain/validity.js"
import { analyze } from "../../search/IndexAnalyzer.js"
import { indexedText } from "../../search/indexedText.js"
import type { VectorIndex } from "../../search/VectorIndex.js"
import { chunks } from "./rows.js"

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

/**
 * The filter as a WHERE fragment over `nodes n`, with its parameters. It narrows candidates found otherwise
 * (by id, by rowid), so `+n.status` keeps SQLite's planner off the status index: "status = 'active'" holds for
 * nearly every node, and scanning them all took ~90 ms at 100k nodes where the ids take ~1 ms.
 */
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
    parts.push("+n.status = 'active' AND n.window_start <= ? AND (n.valid_to IS NULL OR ? < n.valid_to)")
    params.push(f.now, f.now)
  }
  return { where: parts.length === 0 ? "1" : parts.join(" AND "), params }
}

/** An FTS5 query matching any of the (analyzed, `[a-z0-9_]`) terms. */
export const anyTerm = (terms: ReadonlyArray<string>): string => terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(" OR ")

/** How many FTS5 or vector candidates to read for k results: its own ranking differs a little from ours. */
export const preselect = (k: number): number => Math.max(4 * k, 200)

/**
 * The k best vectors the filter admits: scored without the filter, then `admitted` (the store's filter as SQL,
 * asked in slices) keeps the ids it lets through; widened fourfold while too few pass.
 */
export const filteredVectorTopK = <E>(
  index: VectorIndex,
  vector: Float32Array,
  k: number,
  admitted: (ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<string>, E>
) =>
  Effect.gen(function* () {
    for (let want = preselect(k); ; want *= 4) {
      const hits = index.search(vector, want)
      const passed = new Set<string>()
      for (const part of chunks(hits.map((h) => h.id))) for (const id of yield* admitted(part)) passed.add(id)
      const out = hits.filter((h) => passed.has(h.id)).slice(0, k)
      if (out.length >= k || hits.length < want) return out
    }
  })
