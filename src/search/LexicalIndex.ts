import { tokenize } from "../text/tokenize.js"

export interface LexicalHit {
  readonly key: string
  readonly score: number
}

const EMPTY = new Int32Array(0)
const BINARY_MAGIC = 0x31584c41 // "ALX1"

export interface LexicalIndexOptions {
  readonly k1?: number
  readonly b?: number
  /** Text to index terms (default: the shared BM25 tokenizer, as the reference). */
  readonly analyzer?: (text: string) => Array<string>
}

/**
 * Okapi BM25 over keyed documents that can be added, replaced and removed, with the reference's
 * scoring (k1 1.5, b 0.75, Lucene IDF ln(1 + (N - df + 0.5)/(df + 0.5)), the shared tokenizer): the same
 * scores as Bm25Index over the live documents. Removal leaves a hole in the postings that search skips;
 * the postings are compacted once holes outnumber live documents.
 */
export class LexicalIndex {
  readonly k1: number
  readonly b: number
  private readonly analyzer: (text: string) => Array<string>
  private readonly termIds = new Map<string, number>()
  private readonly termNames: Array<string> = []
  private readonly postings: Array<Array<number>> = [] // termId -> [slot, tf, slot, tf, ...]
  // The postings of the documents fromBinary loaded, in one block (term t's pairs from offsets[t] to
  // offsets[t + 1]); `postings` holds those added since. Both are searched.
  private loaded: { readonly offsets: Int32Array; readonly data: Int32Array } | null = null
  // The loaded documents' terms: slot d's from pairs[from[d]] to pairs[from[d + 1]] (until replaced in slotTerms).
  private loadedTerms: { readonly pairs: Int32Array; readonly from: Int32Array } | null = null
  private df: Int32Array = new Int32Array(64) // live documents per term
  private readonly slotKeys: Array<string | null> = []
  private readonly slotLengths: Array<number> = []
  private readonly slotTerms: Array<Int32Array | undefined> = [] // [termId, tf, termId, tf, ...] per slot (undefined: loaded)
  private readonly slots = new Map<string, number>()
  private totalLength = 0
  private scores: Float64Array = new Float64Array(0)
  // Typed mirrors of slot state for the search loop: length, removed flag, and a scratch list of touched slots.
  private lengthOf: Float64Array = new Float64Array(64)
  private removedAt: Uint8Array = new Uint8Array(64)
  private touched: Int32Array = new Int32Array(64)

  constructor(options: LexicalIndexOptions = {}) {
    this.k1 = options.k1 ?? 1.5
    this.b = options.b ?? 0.75
    this.analyzer = options.analyzer ?? tokenize
  }

  /** Live documents. */
  get size(): number {
    return this.slots.size
  }

  has(key: string): boolean {
    return this.slots.has(key)
  }

  keys(): IterableIterator<string> {
    return this.slots.keys()
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
    const slot = this.slots.get(key)
    if (slot === undefined) return false
    const terms = this.termsOf(slot)
    for (let i = 0; i < terms.length; i += 2) this.df[terms[i]!]!--
    this.totalLength -= this.slotLengths[slot]!
    this.slotKeys[slot] = null
    this.removedAt[slot] = 1
    this.slotTerms[slot] = EMPTY
    this.slots.delete(key)
    if (this.slotKeys.length > 64 && this.slotKeys.length > 2 * this.slots.size) this.compact()
    return true
  }

  /**
   * Live documents with score > 0, best first (ties: the earlier added), at most topK of those that
   * `accept` lets through. An empty index or an all-stopword query gives [].
   */
  search(query: string, topK: number, accept?: (key: string) => boolean): Array<LexicalHit> {
    const n = this.slots.size
    if (n === 0 || topK <= 0) return []
    const terms: Array<number> = []
    for (const t of new Set(this.analyzer(query))) {
      const id = this.termIds.get(t)
      if (id !== undefined && this.df[id]! > 0) terms.push(id)
    }
    if (terms.length === 0) return []
    if (this.scores.length < this.slotKeys.length) {
      this.scores = new Float64Array(Math.max(64, this.slotKeys.length * 2))
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
    const loaded = this.loaded
    // Adds one term's postings [slot, tf, slot, tf, ...] in list[start, end) to the scores.
    const score = (list: ArrayLike<number>, start: number, end: number, idf: number) => {
      for (let i = start; i < end; i += 2) {
        const slot = list[i]!
        if (removedAt[slot] === 1) continue
        const tf = list[i + 1]!
        const s = (idf * tf * (k1 + 1)) / (tf + norm0 + norm1 * lengthOf[slot]!)
        if (scores[slot] === 0) touched[nTouched++] = slot
        scores[slot] = scores[slot]! + s
      }
    }
    for (const id of terms) {
      const df = this.df[id]!
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5))
      // Postings loaded from a file come first, then those added since.
      if (loaded !== null && id + 1 < loaded.offsets.length) score(loaded.data, loaded.offsets[id]!, loaded.offsets[id + 1]!, idf)
      const list = this.postings[id]!
      score(list, 0, list.length, idf)
    }
    // Select the top k with a bounded min-heap; `accept` is asked only about documents that would enter it.
    const heapSlot: Array<number> = []
    const heapScore: Array<number> = []
    const weaker = (i: number, j: number) =>
      heapScore[i]! < heapScore[j]! || (heapScore[i] === heapScore[j] && heapSlot[i]! > heapSlot[j]!)
    const swap = (i: number, j: number) => {
      const s = heapSlot[i]!, c = heapScore[i]!
      heapSlot[i] = heapSlot[j]!
      heapScore[i] = heapScore[j]!
      heapSlot[j] = s
      heapScore[j] = c
    }
    const siftDown = (start: number) => {
      let i = start
      for (;;) {
        const l = 2 * i + 1
        const r = l + 1
        let m = i
        if (l < heapSlot.length && weaker(l, m)) m = l
        if (r < heapSlot.length && weaker(r, m)) m = r
        if (m === i) return
        swap(i, m)
        i = m
      }
    }
    for (let t = 0; t < nTouched; t++) {
      const slot = touched[t]!
      const s = scores[slot]!
      scores[slot] = 0
      if (!(s > 0)) continue
      if (heapSlot.length === topK && (s < heapScore[0]! || (s === heapScore[0] && slot > heapSlot[0]!))) continue
      if (accept !== undefined && !accept(this.slotKeys[slot]!)) continue
      if (heapSlot.length < topK) {
        heapSlot.push(slot)
        heapScore.push(s)
        let i = heapSlot.length - 1
        while (i > 0) {
          const p = (i - 1) >> 1
          if (!weaker(i, p)) break
          swap(i, p)
          i = p
        }
      } else {
        heapSlot[0] = slot
        heapScore[0] = s
        siftDown(0)
      }
    }
    const order = heapSlot.map((_, i) => i).sort((a, b) => heapScore[b]! - heapScore[a]! || heapSlot[a]! - heapSlot[b]!)
    return order.map((i) => ({ key: this.slotKeys[heapSlot[i]!]!, score: heapScore[i]! }))
  }

  /**
   * The live documents as one compact binary block (terms, keys, lengths and per-document term counts as
   * int32 arrays): several times faster to load than JSON, which matters in a hook process.
   */
  toBinary(): Uint8Array {
    const used = new Map<number, number>()
    const terms: Array<string> = []
    const keys: Array<string> = []
    const lens: Array<number> = []
    const offsets: Array<number> = [0]
    const pairs: Array<number> = []
    for (let slot = 0; slot < this.slotKeys.length; slot++) {
      const key = this.slotKeys[slot]
      if (key === null || key === undefined) continue
      keys.push(key)
      lens.push(this.slotLengths[slot]!)
      const t = this.termsOf(slot)
      for (let i = 0; i < t.length; i += 2) {
        let id = used.get(t[i]!)
        if (id === undefined) {
          id = terms.length
          used.set(t[i]!, id)
          terms.push(this.termNames[t[i]!]!)
        }
        pairs.push(id, t[i + 1]!)
      }
      offsets.push(pairs.length)
    }
    const text = new TextEncoder().encode(JSON.stringify([terms, keys]))
    const pad = (4 - (text.length % 4)) % 4
    const ints = Int32Array.from([...lens, ...offsets, ...pairs])
    const out = new Uint8Array(16 + text.length + pad + ints.byteLength)
    const view = new DataView(out.buffer)
    view.setUint32(0, BINARY_MAGIC, true)
    view.setUint32(4, text.length, true)
    view.setUint32(8, keys.length, true)
    view.setUint32(12, pairs.length, true)
    out.set(text, 16)
    out.set(new Uint8Array(ints.buffer), 16 + text.length + pad)
    return out
  }

  /** Rebuilds an index from toBinary() output; null when the bytes are not in that form. */
  static fromBinary(bytes: Uint8Array, options: LexicalIndexOptions = {}): LexicalIndex | null {
    try {
      if (bytes.length < 16) return null
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
      if (view.getUint32(0, true) !== BINARY_MAGIC) return null
      const textLength = view.getUint32(4, true)
      const n = view.getUint32(8, true)
      const nPairs = view.getUint32(12, true)
      const start = 16 + textLength + ((4 - (textLength % 4)) % 4)
      const nInts = n + (n + 1) + nPairs
      if (start + nInts * 4 !== bytes.length) return null
      const [terms, keys] = JSON.parse(new TextDecoder().decode(bytes.subarray(16, 16 + textLength))) as [Array<string>, Array<string>]
      if (!Array.isArray(terms) || !Array.isArray(keys) || keys.length !== n) return null
      // A copy (Buffer#slice would share, and misalign, the file's memory).
      const ints = new Int32Array(Uint8Array.prototype.slice.call(bytes, start, start + nInts * 4).buffer)
      const index = new LexicalIndex(options)
      const ids = terms.map((t) => index.termId(String(t)))
      // Term ids are mapped in place; each document's terms stay in that copy (no buffer per document).
      const pairs = ints.subarray(2 * n + 1)
      const from = ints.subarray(n, 2 * n + 1)
      const nTerms = index.termNames.length
      // The postings in one block: count each term's pairs, then place them (documents in slot order).
      const offsets = new Int32Array(nTerms + 1)
      for (let i = 0; i < nPairs; i += 2) {
        const id = ids[pairs[i]!]
        if (id === undefined || pairs[i + 1]! <= 0) return null
        pairs[i] = id
        offsets[id + 1]! += 2
      }
      for (let t = 0; t < nTerms; t++) offsets[t + 1]! += offsets[t]!
      const data = new Int32Array(nPairs)
      const cursor = offsets.slice(0, nTerms)
      index.lengthOf = new Float64Array(Math.max(64, n))
      index.removedAt = new Uint8Array(Math.max(64, n))
      for (let d = 0; d < n; d++) {
        const start = from[d]!
        const end = from[d + 1]!
        const key = String(keys[d])
        if (start > end || end > nPairs || index.slots.has(key)) return null
        for (let i = start; i < end; i += 2) {
          const id = pairs[i]!
          const at = cursor[id]!
          data[at] = d
          data[at + 1] = pairs[i + 1]!
          cursor[id] = at + 2
          index.df[id]!++
        }
        index.slotKeys.push(key)
        index.slotLengths.push(ints[d]!)
        index.lengthOf[d] = ints[d]!
        index.slotTerms.push(undefined)
        index.slots.set(key, d)
        index.totalLength += ints[d]!
      }
      index.loaded = { offsets, data }
      index.loadedTerms = { pairs, from }
      return index
    } catch {
      return null
    }
  }

  /** Slot's [termId, tf, ...]. */
  private termsOf(slot: number): Int32Array {
    const own = this.slotTerms[slot]
    if (own !== undefined) return own
    const { pairs, from } = this.loadedTerms!
    return pairs.subarray(from[slot]!, from[slot + 1]!)
  }

  private termId(term: string): number {
    let id = this.termIds.get(term)
    if (id === undefined) {
      id = this.termNames.length
      this.termIds.set(term, id)
      this.termNames.push(term)
      this.postings.push([])
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
    const slot = this.slotKeys.length
    this.slotKeys.push(key)
    this.slotLengths.push(length)
    if (slot >= this.lengthOf.length) {
      const lengthOf = new Float64Array(this.lengthOf.length * 2)
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
      this.postings[terms[i]!]!.push(slot, terms[i + 1]!)
      this.df[terms[i]!]!++
    }
  }

  // Renumbers live documents densely and rebuilds the postings without holes.
  private compact(): void {
    const terms = this.slotKeys.map((_, slot) => this.termsOf(slot))
    const keys = this.slotKeys.splice(0)
    const lengths = this.slotLengths.splice(0)
    this.slotTerms.length = 0
    this.loaded = null
    this.loadedTerms = null
    for (const list of this.postings) list.length = 0
    this.df.fill(0)
    this.slots.clear()
    this.totalLength = 0
    keys.forEach((key, slot) => {
      if (key !== null) this.insert(key, lengths[slot]!, terms[slot]!)
    })
  }
}
