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

/** A term's document frequency from its postings (rowids, one entry per occurrence, ascending). */
export const documentCount = (postings: ArrayLike<number>): number => {
  let n = 0
  for (let i = 0; i < postings.length; i++) if (i === 0 || postings[i] !== postings[i - 1]) n++
  return n
}

/**
 * Collects each term's postings (rowids, one entry per occurrence, ascending) into matching documents in
 * rowid order (a merge of the sorted lists), with each document's bound: the exact score with length 0 (a
 * term's part only shrinks as the length grows).
 */
export const collectMatches = (
  postings: ReadonlyArray<ArrayLike<number>>,
  idf: ReadonlyArray<number>,
  k1: number,
  norm0: number
): Matches => {
  const nt = postings.length
  const at = new Array<number>(nt).fill(0)
  let total = 0
  for (const list of postings) total += list.length
  const rids = new Float64Array(total)
  const tf = new Int32Array(total * nt)
  let n = 0
  for (;;) {
    let next = Infinity
    for (let t = 0; t < nt; t++) if (at[t]! < postings[t]!.length && postings[t]![at[t]!]! < next) next = postings[t]![at[t]!]!
    if (next === Infinity) break
    rids[n] = next
    for (let t = 0; t < nt; t++) {
      const list = postings[t]!
      let i = at[t]!
      while (i < list.length && list[i] === next) i++
      tf[n * nt + t] = i - at[t]!
      at[t] = i
    }
    n++
  }
  const bound = new Float64Array(n)
  for (let d = 0; d < n; d++) {
    let s = 0
    for (let t = 0; t < nt; t++) {
      const f = tf[d * nt + t]!
      if (f > 0) s += (idf[t]! * f * (k1 + 1)) / (f + norm0)
    }
    bound[d] = s
  }
  return { rids: rids.subarray(0, n), tf: tf.subarray(0, n * nt), bound, terms: nt }
}

/**
 * Every matching document, highest bound first (ties: the lower rowid). A bound depends only on the
 * document's term counts, so the documents fall into a few groups of equal bound: sorting the groups and
 * placing the documents (already in rowid order) costs one pass.
 */
export const byBound = (m: Matches): Int32Array => {
  const { bound } = m
  const n = bound.length
  const groupOf = new Map<number, number>()
  const group = new Int32Array(n)
  for (let d = 0; d < n; d++) {
    let g = groupOf.get(bound[d]!)
    if (g === undefined) groupOf.set(bound[d]!, (g = groupOf.size))
    group[d] = g
  }
  // Each group's first place in the order, the groups by descending bound.
  const start = new Int32Array(groupOf.size)
  const size = new Int32Array(groupOf.size)
  for (let d = 0; d < n; d++) size[group[d]!]!++
  let place = 0
  for (const [, g] of [...groupOf].sort((a, b) => b[0] - a[0])) {
    start[g] = place
    place += size[g]!
  }
  const order = new Int32Array(n)
  for (let d = 0; d < n; d++) order[start[group[d]!]!++] = d
  return order
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

/**
 * The non-negative integers of a comma-separated list (SQLite's group_concat): one string crosses from
 * SQLite to JavaScript instead of a row per value, about three times cheaper per posting.
 */
export const parseIntList = (s: string | null): Float64Array => {
  if (s === null || s === "") return new Float64Array(0)
  let n = 1
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) === 44) n++
  const out = new Float64Array(n)
  let v = 0
  let j = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c === 44) {
      out[j++] = v
      v = 0
    } else v = v * 10 + (c - 48)
  }
  out[j] = v
  return out
}

/**
 * Document lengths by rowid as far as they have been read, for one version of the lengths (`version`). A move
 * of the version forgets the lengths of the rowids that changed (`forget`), or every length (`reset`). It
 * counts the lengths read one by one since it last held them all: past `wholeAfter` of the documents, reading
 * them all at once (a scan, about 16 times cheaper a row than a look-up) costs no more than the look-ups
 * already made (the ski-rental rule), so a long-lived reader soon reads none. All the lengths are kept in a
 * typed array (4 bytes a rowid: 4 MB at 1M nodes), the few read one by one in a map: a one-shot process (a
 * prompt hook) reads some thousands, and a 4 MB array written all over costs it fresh pages and a
 * collection it would not otherwise run. A rowid beyond `limit` is never kept (read again each time).
 */
export class LengthCache {
  private lens = new Int32Array(0)
  private some = new Map<number, number>()
  /** The version of the lengths held; null before the first query. */
  version: number | null = null
  /** Lengths read one by one since the cache last held them all (or was emptied). */
  private readOneByOne = 0

  constructor(private readonly limit = 1 << 25) {}

  /** Forgets every length; the cache is then at `version`. */
  reset(version: number): void {
    this.lens = new Int32Array(0)
    this.some = new Map()
    this.version = version
    this.readOneByOne = 0
  }

  /** Forgets the lengths of these rowids; the cache is then at `version`. */
  forget(rids: ReadonlyArray<number>, version: number): void {
    for (const rid of rids) {
      if (rid >= 0 && rid < this.lens.length) this.lens[rid] = -1
      this.some.delete(rid)
    }
    this.version = version
  }

  /** Whether the lengths read one by one have cost about as much as reading all `docs` of them at once. */
  wholeDue(docs: number): boolean {
    return this.readOneByOne > 0 && this.readOneByOne >= docs / 16
  }

  /** The length of this rowid, or -1 if not read. */
  get(rid: number): number {
    const len = rid < this.lens.length ? this.lens[rid]! : -1
    return len >= 0 ? len : (this.some.get(rid) ?? -1)
  }

  /** (rowid, length) pairs read one by one (`whole` false) or all the table's lengths at once. */
  fill(pairs: Float64Array, whole: boolean): void {
    if (!whole) {
      this.readOneByOne += pairs.length / 2
      for (let p = 0; p < pairs.length; p += 2) if (pairs[p]! >= 0 && pairs[p]! < this.limit) this.some.set(pairs[p]!, pairs[p + 1]!)
      return
    }
    this.readOneByOne = 0
    // Every row's length: the array holds them all, so the map's are no longer needed.
    let top = this.lens.length - 1
    for (let p = 0; p < pairs.length; p += 2) if (pairs[p]! < this.limit) top = Math.max(top, pairs[p]!)
    if (top >= this.lens.length) {
      const grown = new Int32Array(Math.min(this.limit, Math.max(1024, top + 1, 2 * this.lens.length))).fill(-1)
      grown.set(this.lens)
      this.lens = grown
    }
    for (let p = 0; p < pairs.length; p += 2) if (pairs[p]! >= 0 && pairs[p]! < this.limit) this.lens[pairs[p]!] = pairs[p + 1]!
    this.some = new Map()
  }
}
