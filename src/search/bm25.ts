/** Collection statistics BM25 needs: live documents, their total length in terms, each query term's df. */
export interface Bm25Stats {
  readonly docs: number
  readonly totalLength: number
  readonly df: ReadonlyMap<string, number>
}

/**
 * LexicalIndex's BM25 of one analyzed document for the query's distinct terms: Lucene IDF
 * ln(1 + (N − df + 0.5)/(df + 0.5)), tf·(k1 + 1)/(tf + k1·(1 − b + b·len/avg)). The same sum in the same
 * term order as LexicalIndex.search, so the scores agree to the last bit.
 */
export const bm25Score = (
  queryTerms: ReadonlyArray<string>,
  docTerms: ReadonlyArray<string>,
  stats: Bm25Stats,
  k1: number,
  b: number
): number => {
  const n = stats.docs
  if (n === 0) return 0
  const tf = new Map<string, number>()
  for (const t of docTerms) tf.set(t, (tf.get(t) ?? 0) + 1)
  const avg = stats.totalLength / n || 1
  const norm0 = k1 * (1 - b)
  const norm1 = (k1 * b) / avg
  let score = 0
  for (const term of queryTerms) {
    const f = tf.get(term)
    const df = stats.df.get(term) ?? 0
    if (f === undefined || df <= 0) continue
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5))
    score += (idf * f * (k1 + 1)) / (f + norm0 + norm1 * docTerms.length)
  }
  return score
}
