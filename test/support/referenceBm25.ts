// The reference's BM25, written plainly (positional documents, no removal): the oracle LexicalIndex is
// checked against.
import { tokenize } from "../../src/text/tokenize.js"

export interface Bm25Options {
  readonly k1?: number
  readonly b?: number
}

export interface Bm25Hit {
  readonly index: number
  readonly score: number
}

/**
 * Okapi BM25 with Lucene IDF ln(1 + (N - df + 0.5)/(df + 0.5)), always positive, as the reference.
 * Documents are tokenized once; search visits only the postings of the query's terms.
 */
export class Bm25Index {
  private readonly k1: number
  private readonly b: number
  private readonly postings = new Map<string, Array<number>>() // term -> [doc, tf, doc, tf, ...]
  private readonly lengths: Array<number> = []
  private totalLength = 0

  constructor(documents: ReadonlyArray<string> = [], options: Bm25Options = {}) {
    this.k1 = options.k1 ?? 1.5
    this.b = options.b ?? 0.75
    for (const d of documents) this.add(d)
  }

  get size(): number {
    return this.lengths.length
  }

  /** Adds a document; its index is the order of addition. */
  add(text: string): number {
    const index = this.lengths.length
    const tokens = tokenize(text)
    this.lengths.push(tokens.length)
    this.totalLength += tokens.length
    const tf = new Map<string, number>()
    for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1)
    for (const [term, count] of tf) {
      let list = this.postings.get(term)
      if (list === undefined) this.postings.set(term, (list = []))
      list.push(index, count)
    }
    return index
  }

  /** Documents with score > 0, best first, at most topK; [] for an empty index or an all-stopword query. */
  search(query: string, topK = 10, accept?: (index: number) => boolean): Array<Bm25Hit> {
    const n = this.lengths.length
    if (n === 0) return []
    const terms = [...new Set(tokenize(query))]
    if (terms.length === 0) return []
    const avg = this.totalLength / n || 1
    const scores = new Map<number, number>()
    for (const term of terms) {
      const list = this.postings.get(term)
      if (list === undefined) continue
      const df = list.length / 2
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5))
      for (let i = 0; i < list.length; i += 2) {
        const doc = list[i]!
        const tf = list[i + 1]!
        const len = this.lengths[doc]!
        const s = (idf * tf * (this.k1 + 1)) / (tf + this.k1 * (1 - this.b + (this.b * len) / avg))
        scores.set(doc, (scores.get(doc) ?? 0) + s)
      }
    }
    const hits: Array<Bm25Hit> = []
    for (const [index, score] of scores) if (score > 0 && (accept === undefined || accept(index))) hits.push({ index, score })
    hits.sort((a, b) => b.score - a.score || a.index - b.index)
    return hits.slice(0, topK)
  }
}
