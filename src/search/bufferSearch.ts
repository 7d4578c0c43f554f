import type { BufferEntry } from "../domain/BufferEntry.js"
import { canonicalKeyForContent, correctionSupersedes, isCorrection } from "../text/canonical.js"
import { LexicalIndex } from "./LexicalIndex.js"

/**
 * Correction wins (REFERENCE-BEHAVIOUR 4.3): sorted by source message, an entry is hidden when a later
 * entry supersedes it (same canonical key at any distance, or an explicit preference/policy correction
 * within `window` messages). Returns the visible entries in source order.
 */
export const currentEntries = (entries: ReadonlyArray<BufferEntry>, window: number): Array<BufferEntry> => {
  const sorted = [...entries].sort((a, b) => a.source_msg - b.source_msg)
  const keys = sorted.map((e) => canonicalKeyForContent(e.content))
  const corrections = sorted.map((e) => e.type === "correction" || isCorrection(e.content))
  return sorted.filter((older, i) => {
    for (let j = i + 1; j < sorted.length; j++) {
      const distance = sorted[j]!.source_msg - older.source_msg
      if (correctionSupersedes(keys[j]!, corrections[j]!, keys[i]!, distance, window)) return false
    }
    return true
  })
}

export interface ScoredEntry {
  readonly entry: BufferEntry
  readonly relevance: number
}

export interface BufferSearchOptions {
  readonly includeHistory?: boolean
  readonly asOf?: string | null
  readonly correctionWindow: number
  readonly bm25?: { readonly k1?: number; readonly b?: number }
}

/**
 * Searches buffer entries like the graph is searched: BM25 with the shared tokenizer, relevance relative
 * to the best hit (so in (0, 1]). Superseded entries are hidden over the whole buffer as it stood at
 * `asOf` (not only among hits), so a query that happens to miss the correction cannot surface the stale
 * value. A query sharing no content word with any entry finds nothing.
 */
export const searchEntries = (
  entries: ReadonlyArray<BufferEntry>,
  query: string,
  options: BufferSearchOptions
): Array<ScoredEntry> => {
  const asOf = options.asOf ?? null
  const atTime = asOf === null ? [...entries] : entries.filter((e) => e.timestamp <= asOf)
  const pool = options.includeHistory === true ? atTime : currentEntries(atTime, options.correctionWindow)
  if (pool.length === 0) return []
  // The same BM25 index as retrieval (the shared tokenizer, no stemming: the reference's buffer terms).
  const index = new LexicalIndex(options.bm25 ?? {})
  pool.forEach((e, i) => index.add(String(i), e.content))
  const hits = index.search(query, pool.length)
  const best = hits[0]?.score ?? 0
  if (best <= 0) return []
  return hits.map((h) => ({ entry: pool[Number(h.key)]!, relevance: h.score / best }))
}
