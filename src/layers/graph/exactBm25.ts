// Exact BM25 top k from a full-text index's postings: each term's (document, tf) list gives every matching
// document a score bound (its length taken as 0), and only documents whose bound can still beat the k-th
// best exact score have their length read. The exact score is bm25Score's sum, term by term in the same
// order, so it agrees with LexicalIndex to the last bit; ties go to the earlier stored document (rowid).

/** Matching documents of one query: rowids, per-term tf (doc-major, terms.length per doc) and score bounds. */
export interface Matches {
  readonly rids: Float64Array
  readonly tf: Int32Array
  readonly bound: Float64Array
  readonly terms: number
}

/**
 * Collects each term's postings (rowids, one entry per occurrence, ascending) into matching documents, with
 * each document's bound: the exact score with length 0 (a term's part only shrinks as the length grows).
 */
export const collectMatches = (
  postings: ReadonlyArray<ArrayLike<number>>,
  idf: ReadonlyArray<number>,
  k1: number,
  norm0: number
): Matches => {
  const slot = new Map<number, number>()
  for (const list of postings) for (let i = 0; i < list.length; i++) if (!slot.has(list[i]!)) slot.set(list[i]!, slot.size)
  const n = slot.size
  const nt = postings.length
  const rids = new Float64Array(n)
  for (const [rid, s] of slot) rids[s] = rid
  const tf = new Int32Array(n * nt)
  postings.forEach((list, t) => {
    for (let i = 0; i < list.length; i++) tf[slot.get(list[i]!)! * nt + t]!++
  })
  const bound = new Float64Array(n)
  for (let d = 0; d < n; d++) {
    let s = 0
    for (let t = 0; t < nt; t++) {
      const f = tf[d * nt + t]!
      if (f > 0) s += (idf[t]! * f * (k1 + 1)) / (f + norm0)
    }
    bound[d] = s
  }
  return { rids, tf, bound, terms: nt }
}

/** Indices of the n highest bounds (ties: the lower rowid), best first. */
export const byBound = (m: Matches, n: number): Array<number> => {
  const { bound, rids } = m
  const weaker = (i: number, j: number) => bound[i]! < bound[j]! || (bound[i] === bound[j] && rids[i]! > rids[j]!)
  const heap: Array<number> = []
  const count = rids.length
  for (let d = 0; d < count && n > 0; d++) {
    if (heap.length < n) {
      heap.push(d)
      for (let i = heap.length - 1; i > 0; ) {
        const p = (i - 1) >> 1
        if (!weaker(heap[i]!, heap[p]!)) break
        ;[heap[i], heap[p]] = [heap[p]!, heap[i]!]
        i = p
      }
    } else if (weaker(heap[0]!, d)) {
      heap[0] = d
      for (let i = 0; ; ) {
        const l = 2 * i + 1
        const r = l + 1
        let m = i
        if (l < heap.length && weaker(heap[l]!, heap[m]!)) m = l
        if (r < heap.length && weaker(heap[r]!, heap[m]!)) m = r
        if (m === i) break
        ;[heap[i], heap[m]] = [heap[m]!, heap[i]!]
        i = m
      }
    }
  }
  return heap.sort((a, b) => bound[b]! - bound[a]! || rids[a]! - rids[b]!)
}

/** The exact score of matching document d at length len (bm25Score's expression and order). */
export const exactScore = (m: Matches, d: number, len: number, idf: ReadonlyArray<number>, k1: number, norm0: number, norm1: number): number => {
  let s = 0
  for (let t = 0; t < m.terms; t++) {
    const f = m.tf[d * m.terms + t]!
    if (f > 0) s += (idf[t]! * f * (k1 + 1)) / (f + norm0 + norm1 * len)
  }
  return s
}
