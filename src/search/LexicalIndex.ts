import { tokenize } from "../text/tokenize.js"
import { type ImageSource, int32Bytes, memorySource, packSections, sourceLayout, StringTable } from "./binaryImage.js"

export interface LexicalHit {
  readonly key: string
  readonly score: number
}

const EMPTY = new Int32Array(0)
// "ALX3". ALX2 stored each document's terms as well, and postings as (slot, tf) pairs: its images are rebuilt.
const IMAGE_MAGIC = 0x33584c41

/**
 * Indices of the n best of the first `count` documents (higher score first, ties: the lower slot), best
 * first: a bounded min-heap over them all, then the heap sorted.
 */
const bestFirst = (slots: Int32Array, scores: Float64Array, count: number, n: number): Array<number> => {
  const heap: Array<number> = []
  if (n <= 0) return heap
  // i is weaker than j: a lower score, or the same score at a later slot.
  const weaker = (i: number, j: number) => scores[i]! < scores[j]! || (scores[i] === scores[j] && slots[i]! > slots[j]!)
  const siftDown = () => {
    let i = 0
    for (;;) {
      const l = 2 * i + 1
      const r = l + 1
      let m = i
      if (l < heap.length && weaker(heap[l]!, heap[m]!)) m = l
      if (r < heap.length && weaker(heap[r]!, heap[m]!)) m = r
      if (m === i) return
      const t = heap[i]!
      heap[i] = heap[m]!
      heap[m] = t
      i = m
    }
  }
  for (let d = 0; d < count; d++) {
    if (heap.length < n) {
      heap.push(d)
      for (let i = heap.length - 1; i > 0; ) {
        const p = (i - 1) >> 1
        if (!weaker(heap[i]!, heap[p]!)) break
        const t = heap[i]!
        heap[i] = heap[p]!
        heap[p] = t
        i = p
      }
    } else if (weaker(heap[0]!, d)) {
      heap[0] = d
      siftDown()
    }
  }
  return heap.sort((a, b) => scores[b]! - scores[a]! || slots[a]! - slots[b]!)
}

/** One query's scored documents (LexicalIndex.ranking). */
export class Ranking {
  static readonly empty = new Ranking(new Int32Array(0), new Float64Array(0), () => "", () => undefined)
  private order: Array<number> = []
  private bySlot: Float64Array | null = null

  constructor(
    private readonly slots: Int32Array,
    private readonly scores: Float64Array,
    private readonly keyAt: (slot: number) => string,
    private readonly slotOf: (key: string) => number | undefined
  ) {}

  /** One document's score (0 when it matches no query word or is not in the index), wherever it ranks. */
  scoreOf(key: string): number {
    if (this.slots.length === 0) return 0
    const slot = this.slotOf(key)
    if (slot === undefined) return 0
    // Every scored document's score by slot, in one flat array: a Map of half a million scores costs ~120 ms to
    // build, this ~5 ms.
    if (this.bySlot === null) {
      let last = 0
      for (let i = 0; i < this.slots.length; i++) last = Math.max(last, this.slots[i]!)
      this.bySlot = new Float64Array(last + 1)
      for (let i = 0; i < this.slots.length; i++) this.bySlot[this.slots[i]!] = this.scores[i]!
    }
    return this.bySlot[slot] ?? 0
  }

  /**
   * The topK best (higher score first, ties: the earlier added) that `accept` lets through, of the `examined`
   * best at most. `accept` is asked in rank order, so only about documents down to the topK-th accepted one:
   * the best 2·topK are sorted first, then four times as many while too few of those pass.
   */
  take(topK: number, accept?: (key: string) => boolean, examined = Infinity): Array<LexicalHit> {
    const out: Array<LexicalHit> = []
    const count = this.slots.length
    const limit = Math.min(count, examined)
    if (topK <= 0) return out
    for (let want = accept === undefined ? topK : 2 * topK, r = 0; ; want *= 4) {
      if (this.order.length < Math.min(want, limit)) this.order = bestFirst(this.slots, this.scores, count, Math.min(want, limit))
      const order = this.order
      for (; r < Math.min(want, limit, order.length) && out.length < topK; r++) {
        const key = this.keyAt(this.slots[order[r]!]!)
        if (accept === undefined || accept(key)) out.push({ key, score: this.scores[order[r]!]! })
      }
      if (out.length >= topK || r >= limit) return out
    }
  }
}

export interface LexicalIndexOptions {
  readonly k1?: number
  readonly b?: number
  /** Text to index terms (default: the shared BM25 tokenizer, as the reference). */
  readonly analyzer?: (text: string) => Array<string>
}

/**
 * The documents an index was read from (toBinary/fromBinary), searched where they lie in the image: slots
 * 0..keys.size - 1, term ids 0..terms.size - 1 (the terms sorted). Nothing here is decoded or copied at open.
 */
interface Base {
  readonly keys: StringTable
  readonly terms: StringTable
  /**
   * Term t's postings are post[postFrom[t] .. postFrom[t + 1]): its documents' slots in ascending order, each
   * as many times as the term occurs in it (nearly every tf is 1: half the bytes of (slot, tf) pairs).
   */
  readonly postFrom: Int32Array
  readonly post: Postings
}

// What reading one key from an image's file costs (a system call and its buffers), in bytes read at once: a
// warm process's rankings visit thousands of keys (a period question's, tens of thousands), a one-shot
// process's a few hundred. The keys are read whole once their single reads cost that much (keyAt).
const KEY_READ_COST_BYTES = 16_384

// Postings read from a file and kept for the next queries of a warm process, up to this many int32s.
const POSTINGS_CACHED = 4_000_000

/**
 * An image's postings where they lie: views of them in memory, or each term's run read from the image's
 * file when a query asks for it (so a query reads the postings of its own terms only); `all` reads them
 * whole, once, for what needs every document's terms (a rewrite, a removal).
 */
class Postings {
  private whole: Int32Array | null = null
  private cached = new Map<number, Int32Array>()
  private cachedInts = 0

  constructor(
    private readonly source: ImageSource,
    private readonly at: number,
    readonly length: number,
    private readonly postFrom: Int32Array
  ) {
    if (source.inMemory) this.whole = this.read(0, length)
  }

  /** Term t's postings. */
  of(t: number): Int32Array {
    const from = this.postFrom[t]!
    const to = this.postFrom[t + 1]!
    if (this.whole !== null) return this.whole.subarray(from, to)
    const hit = this.cached.get(t)
    if (hit !== undefined) return hit
    const run = this.read(from, to - from)
    if (this.cachedInts + run.length > POSTINGS_CACHED) {
      this.cached = new Map()
      this.cachedInts = 0
    }
    if (run.length <= POSTINGS_CACHED) {
      this.cached.set(t, run)
      this.cachedInts += run.length
    }
    return run
  }

  /** Every term's postings in one array (read from the file once). */
  all(): Int32Array {
    if (this.whole === null) {
      this.whole = this.read(0, this.length)
      this.cached = new Map()
      this.cachedInts = 0
    }
    return this.whole
  }

  private read(from: number, count: number): Int32Array {
    const ints = this.source.ints(this.at + 4 * from, count)
    if (ints === null) throw new Error("lexical image cut short")
    return ints
  }
}

/** Each base slot's terms, for a rewrite (toBinary, compaction): slot d's [termId, tf, ...] are pairs[from[d] .. from[d + 1]). */
interface ForwardIndex {
  readonly from: Int32Array
  readonly pairs: Int32Array
}

/**
 * The postings turned around (one pass over them): what the image no longer stores (it would cost as many
 * bytes as the postings).
 */
const forwardOf = (base: Base, slots: number): ForwardIndex => {
  const { postFrom } = base
  const post = base.post.all()
  const from = new Int32Array(slots + 1)
  const eachRun = (visit: (t: number, slot: number, tf: number) => void) => {
    for (let t = 0; t + 1 < postFrom.length; t++) {
      const end = postFrom[t + 1]!
      for (let i = postFrom[t]!; i < end; ) {
        const slot = post[i]!
        let j = i + 1
        while (j < end && post[j] === slot) j++
        if (slot >= 0 && slot < slots) visit(t, slot, j - i)
        i = j
      }
    }
  }
  eachRun((_t, slot) => (from[slot + 1]! += 2))
  for (let d = 0; d < slots; d++) from[d + 1]! += from[d]!
  const pairs = new Int32Array(from[slots]!)
  const cursor = from.slice(0, slots)
  eachRun((t, slot, tf) => {
    pairs[cursor[slot]!++] = t
    pairs[cursor[slot]!++] = tf
  })
  return { from, pairs }
}

/**
 * One base slot's [termId, tf, ...] without turning the postings around: a binary search in each term's
 * postings (sorted by slot), so removing a few documents costs well under a millisecond at 100k.
 */
const baseTermsOf = (base: Base, slot: number): Int32Array => {
  const { postFrom } = base
  const post = base.post.all()
  const out: Array<number> = []
  for (let t = 0; t + 1 < postFrom.length; t++) {
    let lo = postFrom[t]!
    let hi = postFrom[t + 1]!
    const end = hi
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (post[mid]! < slot) lo = mid + 1
      else hi = mid
    }
    let j = lo
    while (j < end && post[j] === slot) j++
    if (j > lo) out.push(t, j - lo)
  }
  return Int32Array.from(out)
}

/**
 * Okapi BM25 over keyed documents that can be added, replaced and removed, with the reference's
 * scoring (k1 1.5, b 0.75, Lucene IDF ln(1 + (N - df + 0.5)/(df + 0.5)), the shared tokenizer): the same
 * scores as Bm25Index over the live documents. Removal leaves a hole in the postings that search skips;
 * the postings are compacted once holes outnumber live documents. An index read from its binary image
 * searches the image in place, so opening one costs about as little at 1M documents as at 1k.
 */
export class LexicalIndex {
  readonly k1: number
  readonly b: number
  private readonly analyzer: (text: string) => Array<string>
  private base: Base | null = null
  /** The base's terms per slot, built when a rewrite needs them all (forwardOf). */
  private forward: ForwardIndex | null = null
  /** Terms not in the base, by id (ids from base.terms.size on). */
  private readonly termIds = new Map<string, number>()
  private readonly termNames: Array<string> = []
  /** Postings added since the base, by term id: [slot, tf, slot, tf, ...]. */
  private postings: Array<Array<number> | undefined> = []
  private df: Int32Array = new Int32Array(64) // live documents per term
  /** Keys and terms of the slots added since the base (slot baseSlots + i at i; null: removed). */
  private slotKeys: Array<string | null> = []
  private slotTerms: Array<Int32Array> = []
  private readonly slots = new Map<string, number>() // keys of added slots
  private baseSlots = 0
  private baseLive = 0
  /** Keys of the base read one at a time so far (keyAt). */
  private keyReads = 0
  private totalLength = 0
  private scores: Float64Array = new Float64Array(0)
  // Typed slot state for the search loop: length, removed flag, and a scratch list of touched slots.
  // Token counts are integers: int32s, half the bytes the search loop reaches into at random (1M: 4.5 MB).
  private lengthOf: Int32Array = new Int32Array(64)
  private removedAt: Uint8Array = new Uint8Array(64)
  private touched: Int32Array = new Int32Array(64)

  constructor(options: LexicalIndexOptions = {}) {
    this.k1 = options.k1 ?? 1.5
    this.b = options.b ?? 0.75
    this.analyzer = options.analyzer ?? tokenize
  }

  /** Live documents. */
  get size(): number {
    return this.baseLive + this.slots.size
  }

  has(key: string): boolean {
    return this.slotOf(key) !== undefined
  }

  *keys(): IterableIterator<string> {
    for (let slot = 0; slot < this.baseSlots; slot++) if (this.removedAt[slot] === 0) yield this.base!.keys.at(slot)
    yield* this.slots.keys()
  }

  /** Adds a document under key, replacing any document already there. */
  add(key: string, text: string): void {
    this.addTokens(key, this.analyzer(text))
  }

  /** Adds already-analyzed terms. */
  addTokens(key: string, tokens: ReadonlyArray<string>): void {
    const tf = new Map<number, number>()
    for (const t of tokens) {
      const id = this.termId(t)
      tf.set(id, (tf.get(id) ?? 0) + 1)
    }
    const terms = new Int32Array(tf.size * 2)
    let i = 0
    for (const [id, count] of tf) {
      terms[i++] = id
      terms[i++] = count
    }
    this.insert(key, tokens.length, terms)
  }

  /** Removes a document; false when there was none. */
  remove(key: string): boolean {
    const slot = this.slotOf(key)
    if (slot === undefined) return false
    const terms = this.termsOf(slot)
    for (let i = 0; i < terms.length; i += 2) this.df[terms[i]!]!--
    this.totalLength -= this.lengthOf[slot]!
    this.removedAt[slot] = 1
    if (slot < this.baseSlots) this.baseLive--
    else {
      this.slotKeys[slot - this.baseSlots] = null
      this.slotTerms[slot - this.baseSlots] = EMPTY
      this.slots.delete(key)
    }
    if (this.slotCount > 64 && this.slotCount > 2 * this.size) this.compact()
    return true
  }

  /**
   * Live documents with score > 0, best first (ties: the earlier added), at most topK of those that
   * `accept` lets through. An empty index or an all-stopword query gives [].
   */
  search(query: string, topK: number, accept?: (key: string) => boolean): Array<LexicalHit> {
    return topK <= 0 ? [] : this.ranking(query).take(topK, accept)
  }

  /**
   * Every live document with score > 0 for a query, scored once: `take` answers as `search` would, as often
   * as asked (a ranking pass that learns which documents to refuse asks again). Valid until the index changes.
   */
  ranking(query: string): Ranking {
    const n = this.size
    if (n === 0) return Ranking.empty
    const terms: Array<number> = []
    for (const t of new Set(this.analyzer(query))) {
      const id = this.findTerm(t)
      if (id >= 0 && this.df[id]! > 0) terms.push(id)
    }
    if (terms.length === 0) return Ranking.empty
    const slotCount = this.slotCount
    if (this.scores.length < slotCount) {
      this.scores = new Float64Array(Math.max(64, slotCount * 2))
      this.touched = new Int32Array(this.scores.length)
    }
    const scores = this.scores
    const touched = this.touched
    const lengthOf = this.lengthOf
    const removedAt = this.removedAt
    let nTouched = 0
    const avg = this.totalLength / n || 1
    const k1 = this.k1
    const norm0 = k1 * (1 - this.b)
    const norm1 = (k1 * this.b) / avg
    // After a compaction the base's term ids stay but its postings are no longer searched.
    const base = this.baseSlots > 0 ? this.base : null
    const add = (slot: number, tf: number, idf: number) => {
      const s = (idf * tf * (k1 + 1)) / (tf + norm0 + norm1 * lengthOf[slot]!)
      if (scores[slot] === 0) touched[nTouched++] = slot
      scores[slot] = scores[slot]! + s
    }
    // Adds one term's postings [slot, tf, slot, tf, ...] in list[start, end) to the scores.
    const score = (list: ArrayLike<number>, start: number, end: number, idf: number) => {
      for (let i = start; i < end; i += 2) {
        const slot = list[i]!
        if (removedAt[slot] === 0) add(slot, list[i + 1]!, idf)
      }
    }
    // The same for an image's postings (each slot repeated tf times, Base.post).
    const scoreRuns = (list: Int32Array, start: number, end: number, idf: number) => {
      for (let i = start; i < end; ) {
        const slot = list[i]!
        let j = i + 1
        while (j < end && list[j] === slot) j++
        if (removedAt[slot] === 0) add(slot, j - i, idf)
        i = j
      }
    }
    for (const id of terms) {
      const df = this.df[id]!
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5))
      // Postings read from an image come first, then those added since.
      if (base !== null && id < base.terms.size) {
        const run = base.post.of(id)
        scoreRuns(run, 0, run.length, idf)
      }
      const list = this.postings[id]
      if (list !== undefined) score(list, 0, list.length, idf)
    }
    // The scored documents and their scores; the scratch scores cleared for the next query.
    const slots = new Int32Array(nTouched)
    const scoreOf = new Float64Array(nTouched)
    let nScored = 0
    for (let t = 0; t < nTouched; t++) {
      const slot = touched[t]!
      const s = scores[slot]!
      scores[slot] = 0
      if (s > 0) {
        slots[nScored] = slot
        scoreOf[nScored++] = s
      }
    }
    return new Ranking(slots.subarray(0, nScored), scoreOf.subarray(0, nScored), (slot) => this.keyAt(slot), (key) => this.slotOf(key))
  }

  /**
   * The live documents as a binary image (keys, sorted terms, then as int32 sections the lengths, each term's
   * document count and its postings as Base.post keeps them; packSections): fromBinary searches it where it lies.
   */
  toBinary(): Uint8Array {
    this.loadBase()
    if (this.baseLive > 0) this.forward ??= forwardOf(this.base!, this.baseSlots)
    const live: Array<number> = []
    for (let slot = 0; slot < this.slotCount; slot++) if (this.removedAt[slot] === 0) live.push(slot)
    // Terms in use, sorted, renumbered by their sorted position.
    const used = new Map<number, string>()
    for (const slot of live) {
      const t = this.termsOf(slot)
      for (let i = 0; i < t.length; i += 2) if (!used.has(t[i]!)) used.set(t[i]!, this.termName(t[i]!))
    }
    const terms = [...used.values()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    const sortedId = new Map<string, number>(terms.map((t, i) => [t, i]))
    const lengths = new Int32Array(live.length)
    const from = new Int32Array(live.length + 1)
    let nPairs = 0
    for (const slot of live) nPairs += this.termsOf(slot).length
    const pairs = new Int32Array(nPairs)
    const postFrom = new Int32Array(terms.length + 1)
    const df = new Int32Array(terms.length)
    let at = 0
    live.forEach((slot, d) => {
      lengths[d] = this.lengthOf[slot]!
      const t = this.termsOf(slot)
      for (let i = 0; i < t.length; i += 2) {
        const id = sortedId.get(used.get(t[i]!)!)!
        pairs[at++] = id
        pairs[at++] = t[i + 1]!
        postFrom[id + 1]! += t[i + 1]!
        df[id]!++
      }
      from[d + 1] = at
    })
    for (let t = 0; t < terms.length; t++) postFrom[t + 1]! += postFrom[t]!
    const post = new Int32Array(postFrom[terms.length]!)
    const cursor = postFrom.slice(0, terms.length)
    for (let d = 0; d < live.length; d++) {
      for (let i = from[d]!; i < from[d + 1]!; i += 2) {
        const id = pairs[i]!
        for (let k = 0; k < pairs[i + 1]!; k++) post[cursor[id]!++] = d
      }
    }
    return packSections(IMAGE_MAGIC, [
      StringTable.encode(live.map((slot) => this.keyAt(slot)), true),
      StringTable.encode(terms, false),
      int32Bytes(lengths),
      int32Bytes(df),
      int32Bytes(postFrom),
      int32Bytes(post)
    ])
  }

  /**
   * An index over a toBinary() image, which it reads in place (keep the bytes unchanged while it lives);
   * null when the bytes are not such an image.
   */
  static fromBinary(bytes: Uint8Array, options: LexicalIndexOptions = {}): LexicalIndex | null {
    return LexicalIndex.fromImage(memorySource(bytes), 0, bytes.length, options)
  }

  /**
   * An index over the toBinary() image of `length` bytes at `at` of a source, searched where it lies: from a
   * file it reads the vocabulary, the keys' offsets, the documents' lengths and counts at once, and a term's
   * postings or a key only when asked for. Null when the bytes are not such an image.
   */
  static fromImage(source: ImageSource, at: number, length: number, options: LexicalIndexOptions = {}): LexicalIndex | null {
    const layout = sourceLayout(source, at, IMAGE_MAGIC, 6)
    if (layout === null || layout.total !== length) return null
    const starts = layout.starts.map((s) => at + s)
    const lens = layout.lengths
    const keys = StringTable.decodeAt(source, starts[0]!, lens[0]!)
    // The vocabulary whole (tens of KB at 1M documents): every query term and added token looks one up.
    const terms = StringTable.decodeAt(source, starts[1]!, lens[1]!)?.loaded() ?? null
    if (keys === null || terms === null || lens.slice(2).some((l) => l % 4 !== 0)) return null
    const [df, postFrom] = [3, 4].map((i) => source.ints(starts[i]!, lens[i]! / 4))
    if (!df || !postFrom) return null
    const postCount = lens[5]! / 4
    const n = keys.size
    const nTerms = terms.size
    if (lens[2]! !== 4 * n || df.length !== nTerms || postFrom.length !== nTerms + 1) return null
    if (postFrom[0] !== 0 || postFrom[nTerms] !== postCount) return null
    const index = new LexicalIndex(options)
    index.base = { keys, terms, postFrom, post: new Postings(source, starts[5]!, postCount, postFrom) }
    index.baseSlots = index.baseLive = n
    index.df = new Int32Array(Math.max(64, nTerms * 2))
    for (let t = 0; t < nTerms; t++) {
      const count = postFrom[t + 1]! - postFrom[t]!
      if (count < 0 || df[t]! < 0 || df[t]! > count) return null
      index.df[t] = df[t]!
    }
    // Room for some documents added later without growing (a query adds none). The lengths are read straight
    // into it (4 MB at 1M documents: a copy on the way would be as many fresh pages again).
    index.lengthOf = new Int32Array(64 + n + (n >> 3))
    if (!source.intsInto(starts[2]!, index.lengthOf.subarray(0, n))) return null
    index.removedAt = new Uint8Array(index.lengthOf.length)
    // Summed in a local, not in the index's field: a million stores to a field are slower until the loop is optimised.
    const lengths = index.lengthOf
    let total = 0
    for (let d = 0; d < n; d++) total += lengths[d]!
    index.totalLength += total
    return index
  }

  /** Reads what is left of the base image into memory: a rewrite visits every key, term and posting. */
  private loadBase(): void {
    const base = this.base
    if (base === null) return
    this.base = { ...base, keys: base.keys.loaded(), terms: base.terms.loaded() }
    if (this.baseSlots > 0) base.post.all()
  }

  private get slotCount(): number {
    return this.baseSlots + this.slotKeys.length
  }

  private slotOf(key: string): number | undefined {
    const own = this.slots.get(key)
    if (own !== undefined || this.baseLive === 0) return own
    const slot = this.base!.keys.indexOf(key)
    return slot >= 0 && this.removedAt[slot] === 0 ? slot : undefined
  }

  private keyAt(slot: number): string {
    if (slot >= this.baseSlots) return this.slotKeys[slot - this.baseSlots]!
    const base = this.base!
    // Ski rental: once the keys read one by one have cost about what reading them all costs, they are read all.
    if (base.keys.lazyBytes > 0 && ++this.keyReads * KEY_READ_COST_BYTES >= base.keys.lazyBytes) this.base = { ...base, keys: base.keys.loaded() }
    return this.base!.keys.at(slot)
  }

  /** Slot's [termId, tf, ...]. */
  private termsOf(slot: number): Int32Array {
    if (slot >= this.baseSlots) return this.slotTerms[slot - this.baseSlots]!
    if (this.removedAt[slot] === 1) return EMPTY
    if (this.forward === null) return baseTermsOf(this.base!, slot)
    const { pairs, from } = this.forward
    return pairs.subarray(from[slot]!, from[slot + 1]!)
  }

  private get baseTerms(): number {
    return this.base?.terms.size ?? 0
  }

  private termName(id: number): string {
    return id < this.baseTerms ? this.base!.terms.at(id) : this.termNames[id - this.baseTerms]!
  }

  /** A term's id, or -1 when no document ever had it. */
  private findTerm(term: string): number {
    const own = this.termIds.get(term)
    if (own !== undefined) return own
    return this.base === null ? -1 : this.base.terms.indexOf(term)
  }

  private termId(term: string): number {
    let id = this.findTerm(term)
    if (id < 0) {
      id = this.baseTerms + this.termNames.length
      this.termIds.set(term, id)
      this.termNames.push(term)
      if (id >= this.df.length) {
        const grown = new Int32Array(this.df.length * 2)
        grown.set(this.df)
        this.df = grown
      }
    }
    return id
  }

  private insert(key: string, length: number, terms: Int32Array, isNew = false): void {
    if (!isNew) this.remove(key)
    const slot = this.slotCount
    this.slotKeys.push(key)
    if (slot >= this.lengthOf.length) {
      const lengthOf = new Int32Array(this.lengthOf.length * 2)
      lengthOf.set(this.lengthOf)
      this.lengthOf = lengthOf
      const removedAt = new Uint8Array(this.removedAt.length * 2)
      removedAt.set(this.removedAt)
      this.removedAt = removedAt
    }
    this.lengthOf[slot] = length
    this.removedAt[slot] = 0
    this.slotTerms.push(terms)
    this.slots.set(key, slot)
    this.totalLength += length
    for (let i = 0; i < terms.length; i += 2) {
      const id = terms[i]!
      let list = this.postings[id]
      if (list === undefined) this.postings[id] = list = []
      list.push(slot, terms[i + 1]!)
      this.df[id]!++
    }
  }

  // Renumbers live documents densely (the base's among them, whose term ids stay) and rebuilds the
  // postings without holes, all of them added ones.
  private compact(): void {
    this.loadBase()
    if (this.baseLive > 0) this.forward ??= forwardOf(this.base!, this.baseSlots)
    const live: Array<{ key: string; length: number; terms: Int32Array }> = []
    for (let slot = 0; slot < this.slotCount; slot++) {
      if (this.removedAt[slot] === 0) live.push({ key: this.keyAt(slot), length: this.lengthOf[slot]!, terms: this.termsOf(slot).slice() })
    }
    this.baseSlots = this.baseLive = 0
    this.forward = null
    this.slotKeys = []
    this.slotTerms = []
    this.postings = []
    this.df.fill(0)
    this.slots.clear()
    this.totalLength = 0
    this.removedAt.fill(0)
    for (const d of live) this.insert(d.key, d.length, d.terms, true)
  }
}
