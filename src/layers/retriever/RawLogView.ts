import type { RawLogEntry, Role } from "../../domain/Message.js"
import { analyze } from "../../search/IndexAnalyzer.js"
import { LexicalIndex } from "../../search/LexicalIndex.js"
import { VectorIndex } from "../../search/VectorIndex.js"
import { ANALYZER_ID, indexedText } from "../../search/indexedText.js"
import { refKey } from "./rank.js"

/** One raw-log message as retrieval keeps it. */
export interface RawDoc {
  readonly key: string
  readonly sessionId: string
  readonly index: number
  readonly timestamp: string
  readonly role: Role
  readonly scope: string | null
  readonly content: string
  /** Who wrote it, lower-cased, when the log says (metadata.speaker: multi-party conversations). */
  readonly author: string | null
  /** Keys of the messages before and after it in its session (null at the ends). */
  prev: string | null
  next: string | null
}

/** What the view knew of a session's log when it last read it. */
export interface SessionMark {
  /** The log's modification time then. */
  readonly mtimeMs: number
  /** When it was read (ms since epoch): a log modified within the clock's granularity of that is re-read. */
  readonly readAt: number
}

export { ANALYZER_ID, indexedText } from "../../search/indexedText.js"

/** What is kept on disk between processes besides the lexical index (see persist.ts). */
export interface RawLogViewData {
  readonly version: 2
  readonly analyzer: string
  readonly k1: number
  readonly b: number
  /** [sessionId, mtimeMs, readAt, [[index, timestamp, role, scope, content, author], ...]] */
  readonly sessions: ReadonlyArray<
    readonly [string, number, number, ReadonlyArray<readonly [number, string, Role, string | null, string, string | null]>]
  >
}

// A log whose mtime is this close to the moment it was read may have changed again within the same tick.
const RACY_MS = 2000
const racy = (mark: SessionMark): boolean => mark.mtimeMs >= mark.readAt - RACY_MS

/**
 * The raw log as an indexed retrieval source: every message of every session in a lexical index (stemmed
 * BM25 with month/year terms), optionally a vector index of message embeddings for one model, and the
 * order of messages within each session (for context propagation). Kept in step session by session.
 */
export class RawLogView {
  docs = new Map<string, RawDoc>()
  lexical: LexicalIndex
  sessions = new Map<string, SessionMark & { keys: Array<string> }>()
  /** Message vectors for vectorModel by message key (score one with `vectors.score`). */
  vectors: VectorIndex | null = null
  vectorModel: string | null = null
  /** Messages without a vector for vectorModel. */
  private unembedded = new Set<string>()
  /** Work a saved copy would spare the next process: messages (re)indexed, and whether any was removed. */
  unsaved = { indexed: 0, removed: false }
  /** Vectors computed since the last save and still held (persist.ts appends them). */
  private newVectors = new Map<string, Float32Array>()

  constructor(private readonly bm25: { readonly k1?: number; readonly b?: number } = {}) {
    this.lexical = new LexicalIndex({ ...bm25, analyzer: analyze })
  }

  /** The view as stored between processes. */
  toData(): RawLogViewData {
    return {
      version: 2,
      analyzer: ANALYZER_ID,
      k1: this.lexical.k1,
      b: this.lexical.b,
      sessions: Array.from(this.sessions, ([sid, mark]) => [
        sid,
        mark.mtimeMs,
        mark.readAt,
        mark.keys.map((key) => {
          const d = this.docs.get(key)!
          return [d.index, d.timestamp, d.role, d.scope, d.content, d.author] as const
        })
      ] as const)
    }
  }

  /** Restores a stored view into this empty one; false (and nothing changed) when it does not fit. */
  restore(data: unknown, lexicalBytes: Uint8Array): boolean {
    if (this.docs.size > 0 || typeof data !== "object" || data === null) return false
    const d = data as Partial<RawLogViewData>
    if (d.version !== 2 || d.analyzer !== ANALYZER_ID || d.k1 !== this.lexical.k1 || d.b !== this.lexical.b) return false
    if (!Array.isArray(d.sessions)) return false
    const lexical = LexicalIndex.fromBinary(lexicalBytes, { ...this.bm25, analyzer: analyze })
    if (lexical === null) return false
    const docs = new Map<string, RawDoc>()
    const sessions = new Map<string, SessionMark & { keys: Array<string> }>()
    for (const row of d.sessions) {
      if (!Array.isArray(row) || row.length !== 4 || !Array.isArray(row[3])) return false
      const [sid, mtimeMs, readAt, entries] = row
      if (typeof sid !== "string" || typeof mtimeMs !== "number" || typeof readAt !== "number") return false
      const keys: Array<string> = []
      // Linked to its neighbours as it is read (no second pass of lookups).
      let before: RawDoc | null = null
      for (const e of entries) {
        if (!Array.isArray(e) || typeof e[0] !== "number" || typeof e[1] !== "string" || typeof e[4] !== "string") return false
        const key = refKey(sid, e[0])
        const doc: RawDoc = {
          key, sessionId: sid, index: e[0], timestamp: e[1], role: e[2], scope: typeof e[3] === "string" ? e[3] : null,
          content: e[4], author: typeof e[5] === "string" ? e[5] : null, prev: keys[keys.length - 1] ?? null, next: null
        }
        if (before !== null) before.next = key
        keys.push(key)
        docs.set(key, doc)
        before = doc
      }
      sessions.set(sid, { mtimeMs, readAt, keys })
    }
    if (lexical.size !== docs.size) return false
    for (const key of lexical.keys()) if (!docs.has(key)) return false
    // Adopted whole rather than copied entry by entry (this view was empty): a hook process restores 10k's.
    this.lexical = lexical
    this.docs = docs
    this.sessions = sessions
    this.unembedded = new Set(docs.keys())
    return true
  }

  /** True when the session's log must be read again (new, modified, or modified too close to the last read). */
  isStale(sessionId: string, mtimeMs: number): boolean {
    const mark = this.sessions.get(sessionId)
    return mark === undefined || mark.mtimeMs !== mtimeMs || racy(mark)
  }

  /** Replaces what the view holds of one session with its log as just read; true when a message changed. */
  syncSession(sessionId: string, entries: ReadonlyArray<RawLogEntry>, mark: SessionMark): boolean {
    const old = this.sessions.get(sessionId)
    let changed = old === undefined
    const keys: Array<string> = []
    const sorted = [...entries].sort((a, b) => a.index - b.index)
    const seen = new Set<string>()
    for (const e of sorted) {
      const key = refKey(sessionId, e.index)
      seen.add(key)
      keys.push(key)
      const existing = this.docs.get(key)
      if (
        existing !== undefined &&
        existing.content === e.content &&
        existing.timestamp === e.timestamp &&
        existing.author === (typeof e.metadata.speaker === "string" ? e.metadata.speaker.trim().toLowerCase() || null : null)
      ) continue
      changed = true
      this.unsaved.indexed++
      const scope = typeof e.metadata.scope === "string" ? e.metadata.scope : null
      const speaker = e.metadata.speaker
      const author = typeof speaker === "string" && speaker.trim() !== "" ? speaker.trim().toLowerCase() : null
      this.docs.set(key, {
        key, sessionId, index: e.index, timestamp: e.timestamp, role: e.role, scope, content: e.content, author, prev: null, next: null
      })
      this.lexical.add(key, indexedText(e.content, e.timestamp))
      this.forgetVector(key)
      this.unembedded.add(key)
    }
    for (const key of old?.keys ?? []) {
      if (seen.has(key)) continue
      this.removeDoc(key)
      changed = true
    }
    keys.forEach((key, i) => {
      const doc = this.docs.get(key)!
      doc.prev = keys[i - 1] ?? null
      doc.next = keys[i + 1] ?? null
    })
    // A racy mark makes every process re-read the session until a save records a settled one: count its
    // messages as work a save would spare (else an unchanged log written just before a save stays racy).
    if (old !== undefined && racy(old) && !racy(mark)) this.unsaved.indexed += keys.length
    this.sessions.set(sessionId, { ...mark, keys })
    return changed
  }

  /** Forgets a session whose log is gone. */
  dropSession(sessionId: string): void {
    for (const key of this.sessions.get(sessionId)?.keys ?? []) this.removeDoc(key)
    this.sessions.delete(sessionId)
  }

  /** Keeps vectors of this model only (switching models drops all vectors). */
  useModel(modelId: string): void {
    if (this.vectorModel === modelId) return
    this.vectors = null
    this.newVectors.clear()
    this.vectorModel = modelId
    for (const key of this.docs.keys()) this.unembedded.add(key)
  }

  /** Messages that have no vector for this model yet (switching models drops all vectors). */
  missingVectors(modelId: string): Array<RawDoc> {
    this.useModel(modelId)
    return Array.from(this.unembedded, (key) => this.docs.get(key)!)
  }

  /** Sets message vectors; `fresh` ones (computed now, not loaded) are handed to the next save. */
  addVectors(docs: ReadonlyArray<RawDoc>, vectors: ReadonlyArray<Float32Array>, fresh = true): void {
    docs.forEach((doc, i) => {
      const v = vectors[i]
      if (v === undefined || v.length === 0 || !this.docs.has(doc.key)) return
      if (this.vectors === null) this.vectors = new VectorIndex(v.length)
      if (v.length !== this.vectors.dim) return
      this.vectors.add(doc.key, v)
      this.unembedded.delete(doc.key)
      if (fresh) this.newVectors.set(doc.key, v)
      else this.newVectors.delete(doc.key)
    })
  }

  /** Sets a message's vector from its stored compact bytes (store/compactVector.ts) of `dim` dimensions at `bytes[at]`. */
  addStoredVector(key: string, dim: number, bytes: Uint8Array, at = 0): void {
    if (dim <= 0 || !this.docs.has(key)) return
    if (this.vectors === null) this.vectors = new VectorIndex(dim)
    if (dim !== this.vectors.dim || !this.vectors.addCompact(key, bytes, at)) return
    this.unembedded.delete(key)
    this.newVectors.delete(key)
  }

  /** The vectors computed since the last call, of messages still held (not removed or re-embedded since). */
  takeNewVectors(): Array<readonly [string, Float32Array]> {
    const out = [...this.newVectors]
    this.newVectors = new Map()
    return out
  }

  private forgetVector(key: string): void {
    this.vectors?.remove(key)
    this.newVectors.delete(key)
  }

  private removeDoc(key: string): void {
    this.unsaved.removed = true
    this.docs.delete(key)
    this.lexical.remove(key)
    this.forgetVector(key)
    this.unembedded.delete(key)
  }
}
