import { tokenize } from "./tokenize.js"

export interface LexicalHit {
  readonly key: string
  readonly score: number
}

/** The serialised form of a LexicalIndex (tokens as term ids, so a reload never re-tokenizes). */
export interface LexicalIndexData {
  readonly version: 1
  readonly terms: ReadonlyArray<string>
  /** Per document: [key, length, termId, tf, termId, tf, ...]. */
  readonly docs: ReadonlyArray<ReadonlyArray<string | number>>
}

const EMPTY = new Int32Array(0)

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
  private df: Int32Array = new Int32Array(64) // live documents per term
  private readonly slotKeys: Array<string | null> = []
  private readonly slotLengths: Array<number> = []
  private readonly slotTerms: Array<Int32Array> = [] // [termId, tf, termId, tf, ...] per slot
  private readonly slots = new Map<string, number>()
  private totalLength = 0
  private scores: Float64Array = new Float64Array(0)

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
    const terms = this.slotTerms[slot]!
    for (let i = 0; i < terms.length; i += 2) this.df[terms[i]!]!--
    this.totalLength -= this.slotLengths[slot]!
    this.slotKeys[slot] = null
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
    if (this.scores.length < this.slotKeys.length) this.scores = new Float64Array(Math.max(64, this.slotKeys.length * 2))
    const scores = this.scores
    const touched: Array<number> = []
    const avg = this.totalLength / n || 1
    const k1 = this.k1
    const norm0 = k1 * (1 - this.b)
    const norm1 = (k1 * this.b) / avg
    for (const id of terms) {
      const df = this.df[id]!
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5))
      const list = this.postings[id]!
      for (let i = 0; i < list.length; i += 2) {
        const slot = list[i]!
        if (this.slotKeys[slot] === null) continue
        const tf = list[i + 1]!
        const s = (idf * tf * (k1 + 1)) / (tf + norm0 + norm1 * this.slotLengths[slot]!)
        if (scores[slot] === 0) touched.push(slot)
        scores[slot] = scores[slot]! + s
      }
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
    for (const slot of touched) {
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

  /** A compact copy of the live documents, for persistence. */
  toData(): LexicalIndexData {
    const used = new Map<number, number>()
    const terms: Array<string> = []
    const docs: Array<Array<string | number>> = []
    for (let slot = 0; slot < this.slotKeys.length; slot++) {
      const key = this.slotKeys[slot]
      if (key === null || key === undefined) continue
      const row: Array<string | number> = [key, this.slotLengths[slot]!]
      const t = this.slotTerms[slot]!
      for (let i = 0; i < t.length; i += 2) {
        let id = used.get(t[i]!)
        if (id === undefined) {
          id = terms.length
          used.set(t[i]!, id)
          terms.push(this.termNames[t[i]!]!)
        }
        row.push(id, t[i + 1]!)
      }
      docs.push(row)
    }
    return { version: 1, terms, docs }
  }

  /** Rebuilds an index from toData() output; null when the data is not in that form. */
  static fromData(data: unknown, options: LexicalIndexOptions = {}): LexicalIndex | null {
    if (typeof data !== "object" || data === null) return null
    const d = data as Partial<LexicalIndexData>
    if (d.version !== 1 || !Array.isArray(d.terms) || !Array.isArray(d.docs)) return null
    const index = new LexicalIndex(options)
    const ids = d.terms.map((t) => index.termId(String(t)))
    for (const row of d.docs) {
      if (!Array.isArray(row) || typeof row[0] !== "string" || typeof row[1] !== "number" || row.length % 2 !== 0) return null
      const terms = new Int32Array(row.length - 2)
      for (let i = 2; i < row.length; i += 2) {
        const id = ids[row[i] as number]
        const tf = row[i + 1]
        if (id === undefined || typeof tf !== "number" || tf <= 0) return null
        terms[i - 2] = id
        terms[i - 1] = tf
      }
      index.insert(row[0], row[1], terms)
    }
    return index
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

  private insert(key: string, length: number, terms: Int32Array): void {
    this.remove(key)
    const slot = this.slotKeys.length
    this.slotKeys.push(key)
    this.slotLengths.push(length)
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
    const keys = this.slotKeys.splice(0)
    const lengths = this.slotLengths.splice(0)
    const terms = this.slotTerms.splice(0)
    for (const list of this.postings) list.length = 0
    this.df.fill(0)
    this.slots.clear()
    this.totalLength = 0
    keys.forEach((key, slot) => {
      if (key !== null) this.insert(key, lengths[slot]!, terms[slot]!)
    })
  }
}
