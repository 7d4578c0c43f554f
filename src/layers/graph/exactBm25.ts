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
  /** Whether every row's length was read at once since the cache was last emptied (forgotten ones excepted). */
  holdsAll = false
  /** Lengths read one by one since the cache last held them all (or was emptied). */
  private readOneByOne = 0

  constructor(private readonly limit = 1 << 25) {}

  /** Forgets every length; the cache is then at `version`. */
  reset(version: number): void {
    this.lens = new Int32Array(0)
    this.some = new Map()
    this.version = version
    this.readOneByOne = 0
    this.holdsAll = false
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
    this.holdsAll = true
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

/** A document's exact score (exactScore's expression, terms in query order) and its rowid. */
export interface ScoredRow {
  readonly rid: number
  readonly score: number
}

/**
 * Every document scoring at least `floor` (all matching documents when `floor` is -Infinity), best first
 * (ties: the lower rowid), exact scores as exactScore gives them. A document scoring below `floor` may be
 * missing: the caller's filter answers exactly only while the documents it admits score at least `floor`.
 */
export interface MaxScoreTop {
  readonly hits: ReadonlyArray<ScoredRow>
  readonly floor: number
}

// Room for the rounding of a sum taken in another order than exactScore's: a bound must never fall below the
// exact score it bounds.
const SLACK = 1e-9

/** The first index in list[from, to) holding a value >= rid (to if none). */
const lowerBound = (list: Int32Array, from: number, to: number, rid: number): number => {
  // Gallop from `from`, then halve: a walk in rowid order pays the log of the gap, not of the list.
  let step = 1
  let lo = from
  let hi = from
  while (hi < to && list[hi]! < rid) {
    lo = hi + 1
    hi += step
    step *= 2
  }
  if (hi > to) hi = to
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (list[mid]! < rid) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** The `m`-th highest of the first `count` values of `values` (-Infinity when fewer); reorders them. */
const mthHighest = (values: Float64Array, count: number, m: number): number => {
  if (count < m || m <= 0) return -Infinity
  // Quickselect for index count - m of the ascending order.
  const want = count - m
  let lo = 0
  let hi = count - 1
  while (lo < hi) {
    const pivot = values[(lo + hi) >> 1]!
    let i = lo
    let j = hi
    while (i <= j) {
      while (values[i]! < pivot) i++
      while (values[j]! > pivot) j--
      if (i <= j) {
        const t = values[i]!
        values[i] = values[j]!
        values[j] = t
        i++
        j--
      }
    }
    if (want <= j) hi = j
    else if (want >= i) lo = i
    else return values[want]!
  }
  return values[want]!
}

// Scratch reused by every call (single-threaded, synchronous): scores so far by rowid, and their rowids.
let scratch = new Float64Array(0)
let touched = new Int32Array(0)
// Scores copied out for the m-th best (quickselect reorders them).
let picked = new Float64Array(0)

/**
 * MaxScore over the query terms' postings (rowids, one entry per occurrence, ascending) when every matching
 * document's length is known (`lengthOf`, -1 when not: then null, and the caller scores as before). Terms go
 * highest bound first (a term's bound: its part of the score at its largest count and length 0); once the
 * terms left cannot lift a document no term so far has matched to the `m`-th best score so far (a lower
 * bound of the final m-th best), the documents those terms alone match are never visited: the terms left
 * are looked up (galloping search, or a walk when the candidates are many) for the documents still able to
 * reach it, and a document whose score so far plus the bounds of the terms left falls below it is dropped.
 * The survivors are scored again exactly, term by term in query order, so scores and ties are exactScore's
 * to the bit.
 */
export const maxScoreTop = (
  postings: ReadonlyArray<Int32Array>,
  idf: ReadonlyArray<number>,
  k1: number,
  norm0: number,
  norm1: number,
  lengthOf: (rid: number) => number,
  m: number
): MaxScoreTop | null => {
  const nt = postings.length
  const part = (f: number, len: number, t: number) => (idf[t]! * f * (k1 + 1)) / (f + norm0 + norm1 * len)
  const bound = new Float64Array(nt)
  let maxRid = -1
  let total = 0
  for (let t = 0; t < nt; t++) {
    const list = postings[t]!
    total += list.length
    if (list.length > 0) maxRid = Math.max(maxRid, list[list.length - 1]!)
    let most = 0
    for (let i = 0; i < list.length; ) {
      let j = i + 1
      while (j < list.length && list[j] === list[i]) j++
      if (j - i > most) most = j - i
      i = j
    }
    bound[t] = most === 0 ? 0 : part(most, 0, t)
  }
  if (maxRid < 0) return { hits: [], floor: -Infinity }
  if (scratch.length <= maxRid) scratch = new Float64Array(Math.max(maxRid + 1, 2 * scratch.length))
  if (touched.length < total) touched = new Int32Array(Math.max(total, 2 * touched.length))
  if (picked.length < total) picked = new Float64Array(Math.max(total, 2 * picked.length))
  const acc = scratch
  const order = Array.from({ length: nt }, (_, t) => t).sort((x, y) => bound[y]! - bound[x]! || x - y)
  // rest[j]: the bounds of order[j..] summed (with room for rounding).
  const rest = new Float64Array(nt + 1)
  for (let j = nt - 1; j >= 0; j--) rest[j] = rest[j + 1]! + bound[order[j]!]!
  for (let j = 0; j <= nt; j++) rest[j] = rest[j]! * (1 + SLACK)

  let count = 0
  const clear = () => {
    for (let c = 0; c < count; c++) acc[touched[c]!] = 0
  }
  // Phase 1: whole terms, every document they match, score so far by document.
  let j = 0
  let theta = -Infinity
  let pruned = false
  let best = 0
  const values = picked
  for (; j < nt; j++) {
    // The m-th best so far is at most the best: worth finding only when the terms left bound below that.
    if (count >= m && rest[j]! < best) {
      for (let c = 0; c < count; c++) values[c] = acc[touched[c]!]!
      theta = mthHighest(values, count, m) * (1 - SLACK)
      // What only the terms left match is never visited: below theta, it may be missing.
      if (rest[j]! < theta) {
        pruned = true
        break
      }
    }
    const t = order[j]!
    const list = postings[t]!
    for (let i = 0; i < list.length; ) {
      const rid = list[i]!
      let e = i + 1
      while (e < list.length && list[e] === rid) e++
      const len = lengthOf(rid)
      if (len < 0) {
        clear()
        return null
      }
      const had = acc[rid]!
      if (had === 0) touched[count++] = rid
      const s = had + part(e - i, len, t)
      acc[rid] = s
      if (s > best) best = s
      i = e
    }
  }

  // Phase 2: the terms left only for the documents that can still reach theta, in rowid order.
  let cands: Int32Array
  if (j < nt) {
    const keep: Array<number> = []
    for (let c = 0; c < count; c++) {
      const rid = touched[c]!
      if (acc[rid]! + rest[j]! >= theta) keep.push(rid)
      else pruned = true
    }
    cands = Int32Array.from(keep).sort()
  } else cands = touched.slice(0, count)
  for (; j < nt; j++) {
    const t = order[j]!
    const list = postings[t]!
    let kept = 0
    let at = 0
    for (let c = 0; c < cands.length; c++) {
      const rid = cands[c]!
      const s = acc[rid]!
      if (s + rest[j]! < theta) {
        pruned = true
        continue
      }
      at = lowerBound(list, at, list.length, rid)
      let e = at
      while (e < list.length && list[e] === rid) e++
      if (e > at) {
        const len = lengthOf(rid)
        if (len < 0) {
          clear()
          return null
        }
        acc[rid] = s + part(e - at, len, t)
      }
      at = e
      cands[kept++] = rid
    }
    cands = cands.subarray(0, kept)
    if (kept >= m) {
      for (let c = 0; c < kept; c++) values[c] = acc[cands[c]!]!
      theta = Math.max(theta, mthHighest(values, kept, m) * (1 - SLACK))
    }
  }
  // The final m-th best: survivors below it go too.
  if (cands.length > m) {
    for (let c = 0; c < cands.length; c++) values[c] = acc[cands[c]!]!
    theta = Math.max(theta, mthHighest(values, cands.length, m) * (1 - SLACK))
  }

  // Survivors at or above theta, scored exactly (exactScore's order: query terms in order).
  const hits: Array<ScoredRow> = []
  for (let c = 0; c < cands.length; c++) {
    const rid = cands[c]!
    if (acc[rid]! < theta * (1 - SLACK)) {
      pruned = true
      continue
    }
    const len = lengthOf(rid)
    let s = 0
    for (let t = 0; t < nt; t++) {
      const list = postings[t]!
      const at = lowerBound(list, 0, list.length, rid)
      let e = at
      while (e < list.length && list[e] === rid) e++
      if (e > at) s += part(e - at, len, t)
    }
    if (s > 0) hits.push({ rid, score: s })
  }
  clear()
  hits.sort((x, y) => y.score - x.score || x.rid - y.rid)
  return { hits, floor: pruned ? theta : -Infinity }
}
