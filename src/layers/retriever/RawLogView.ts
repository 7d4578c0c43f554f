import { ROLES, type RawLogEntry, type Role } from "../../domain/Message.js"
import { analyze } from "../../search/IndexAnalyzer.js"
import { LexicalIndex } from "../../search/LexicalIndex.js"
import { VectorIndex } from "../../search/VectorIndex.js"
import { encodeVector } from "../../store/compactVector.js"
import { type FileImage, type ImageSource, int32Bytes, memorySource, packSections, sourceLayout, StringTable } from "../../search/binaryImage.js"
import { ANALYZER_ID, indexedText } from "../../search/indexedText.js"
import { refKey } from "./rank.js"
import { SavedSessions, type SessionMark, SessionMarks } from "./sessionMarks.js"

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

export type { SessionMark } from "./sessionMarks.js"

export { ANALYZER_ID, indexedText } from "../../search/indexedText.js"

// A log whose mtime is this close to the moment it was read may have changed again within the same tick.
const RACY_MS = 2000
const racy = (mark: SessionMark): boolean => mark.mtimeMs >= mark.readAt - RACY_MS

// The view as kept between processes (persist.ts): "AWI3", then sections: the metadata as JSON (version,
// analyzer, BM25 parameters, the copy's id and where the raw log's change journal stood), the sessions in
// order (their ids with a sorted lookup, [mtimeMs, readAt] as float64s, message counts: sessionMarks.ts),
// each message's index, each message as JSON [timestamp, role, scope, content, author], and the lexical
// index's image. Version 3 kept the sessions in the JSON (parsed whole by every process): refused, rebuilt.
const VIEW_MAGIC = 0x33495741
const VIEW_VERSION = 4
const VIEW_SECTIONS = 7

interface SavedMeta {
  readonly version: number
  readonly analyzer: string
  readonly k1: number
  readonly b: number
  /** A random id of this copy (what a later full listing that found it current refers to). */
  readonly id?: string
  /** The change-journal mark the sessions were read at (a later process follows the journal from there). */
  readonly logMark?: string | null
  /** When every session's log was last listed for it (ms since epoch). */
  readonly listedAt?: number
  /** The model every message of the copy had a vector of in the vector file when it was saved. */
  readonly embeddedFor?: string
}

/** Where a view stands on the raw log's change journal (saved with it; see RetrieverState). */
export interface JournalPosition {
  /** The journal's mark when the view's sessions were read (null: unknown, list every session). */
  readonly mark: string | null
  /** When every session's log was last listed (ms since epoch; 0: never). */
  readonly listedAt: number
}

const ROLE_SET: ReadonlySet<unknown> = new Set(ROLES)

/**
 * The messages of a saved view, read where they lie in the file's bytes: each session a run of ordinals
 * (in message order), decoded one message at a time when asked for.
 */
class SavedMessages {
  constructor(
    readonly sessions: SavedSessions,
    private readonly indexes: Int32Array,
    private texts: StringTable
  ) {}

  /** Reads every message's stored form into memory at once (a rewrite copies them all). */
  loadTexts(): void {
    this.texts = this.texts.loaded()
  }

  textAt(o: number): Uint8Array {
    return this.texts.bytesAt(o)
  }

  /** The ordinal of message `index` of saved session `s`, or -1. */
  ordinalOf(s: number, index: number): number {
    let lo = this.sessions.firstAt(s)
    let hi = lo + this.sessions.countAt(s) - 1
    while (lo <= hi) {
      const mid = (lo + hi) >> 1
      const here = this.indexes[mid]!
      if (here === index) return mid
      if (here < index) lo = mid + 1
      else hi = mid - 1
    }
    return -1
  }

  /** Saved session `s`'s message indexes, in order. */
  indexesOf(s: number): Array<number> {
    const first = this.sessions.firstAt(s)
    return Array.from(this.indexes.subarray(first, first + this.sessions.countAt(s)))
  }

  keys(s: number): Array<string> {
    const sessionId = this.sessions.idAt(s)
    return this.indexesOf(s).map((index) => refKey(sessionId, index))
  }

  /** Message `o` of saved session `s` (null when its stored form is damaged). */
  doc(s: number, o: number): RawDoc | null {
    const sessionId = this.sessions.idAt(s)
    const first = this.sessions.firstAt(s)
    const last = first + this.sessions.countAt(s) - 1
    const e = JSON.parse(this.texts.at(o)) as unknown
    if (!Array.isArray(e) || typeof e[0] !== "string" || !ROLE_SET.has(e[1]) || typeof e[3] !== "string") return null
    return {
      key: refKey(sessionId, this.indexes[o]!), sessionId, index: this.indexes[o]!, timestamp: e[0], role: e[1] as Role,
      scope: typeof e[2] === "string" ? e[2] : null, content: e[3], author: typeof e[4] === "string" ? e[4] : null,
      prev: o > first ? refKey(sessionId, this.indexes[o - 1]!) : null,
      next: o < last ? refKey(sessionId, this.indexes[o + 1]!) : null
    }
  }
}

const parseKey = (key: string): { readonly sessionId: string; readonly index: number } | null => {
  const at = key.lastIndexOf("\u0000")
  if (at < 0) return null
  const index = Number(key.slice(at + 1))
  return Number.isInteger(index) ? { sessionId: key.slice(0, at), index } : null
}

// Decoded saved messages kept for reuse (a query asks about the same few hundred several times).
const DECODED_MAX = 20_000

/**
 * The view's messages by key: those of sessions still as saved are read from the saved copy when asked
 * for; a session the view re-reads is taken over whole into the map of messages held as objects.
 */
export class RawDocs {
  private readonly held = new Map<string, RawDoc>()
  private saved: SavedMessages | null = null
  /** Saved sessions taken over into the held map (the others are read from the saved copy). */
  private readonly taken = new Set<string>()
  private savedCount = 0
  private decoded = new Map<string, RawDoc>()

  get size(): number {
    return this.held.size + this.savedCount
  }

  get(key: string): RawDoc | undefined {
    const own = this.held.get(key)
    if (own !== undefined || this.savedCount === 0) return own
    const cached = this.decoded.get(key)
    if (cached !== undefined) return cached
    const at = parseKey(key)
    const s = at === null ? -1 : this.savedAt(at.sessionId)
    if (s < 0) return undefined
    const o = this.saved!.ordinalOf(s, at!.index)
    const doc = o < 0 ? null : this.saved!.doc(s, o)
    if (doc === null) return undefined
    if (this.decoded.size >= DECODED_MAX) this.decoded = new Map()
    this.decoded.set(key, doc)
    return doc
  }

  has(key: string): boolean {
    if (this.held.has(key)) return true
    if (this.savedCount === 0) return false
    const at = parseKey(key)
    const s = at === null ? -1 : this.savedAt(at.sessionId)
    return s >= 0 && this.saved!.ordinalOf(s, at!.index) >= 0
  }

  *keys(): IterableIterator<string> {
    yield* this.held.keys()
    const saved = this.saved
    if (saved === null) return
    for (let s = 0; s < saved.sessions.size; s++) if (!this.taken.has(saved.sessions.idAt(s))) yield* saved.keys(s)
  }

  /** Whether the session's messages are still read from the saved copy. */
  isSaved(sessionId: string): boolean {
    return this.savedAt(sessionId) >= 0
  }

  /** Keys of a saved session, in message order. */
  savedKeys(sessionId: string): Array<string> {
    return this.saved!.keys(this.savedAt(sessionId))
  }

  /** Moves a saved session's messages into the held map (to be changed there); their keys in order. */
  takeOver(sessionId: string): Array<string> {
    const s = this.savedAt(sessionId)
    const saved = this.saved!
    const first = saved.sessions.firstAt(s)
    const count = saved.sessions.countAt(s)
    const keys: Array<string> = []
    for (let o = first; o < first + count; o++) {
      const doc = saved.doc(s, o)
      if (doc === null) continue
      this.held.set(doc.key, doc)
      keys.push(doc.key)
    }
    this.taken.add(sessionId)
    this.savedCount -= count
    this.decoded = new Map()
    return keys
  }

  set(key: string, doc: RawDoc): void {
    this.held.set(key, doc)
  }

  delete(key: string): void {
    this.held.delete(key)
  }

  /** The stored bytes of a saved session's messages (saving copies them without decoding). */
  savedTexts(sessionId: string): Array<Uint8Array> {
    const s = this.savedAt(sessionId)
    const first = this.saved!.sessions.firstAt(s)
    return Array.from({ length: this.saved!.sessions.countAt(s) }, (_, i) => this.saved!.textAt(first + i))
  }

  /** Reads the saved copy's messages into memory at once (before every one is visited). */
  loadSaved(): void {
    this.saved?.loadTexts()
  }

  savedIndexes(sessionId: string): Array<number> {
    return this.saved!.indexesOf(this.savedAt(sessionId))
  }

  /** Serves every message from a saved copy (this map was empty). */
  adopt(saved: SavedMessages): void {
    this.saved = saved
    this.savedCount = saved.sessions.messages
  }

  /** The saved copy's position of a session still read from it, or -1. */
  private savedAt(sessionId: string): number {
    if (this.saved === null || this.taken.has(sessionId)) return -1
    return this.saved.sessions.indexOf(sessionId)
  }
}

/**
 * The raw log as an indexed retrieval source: every message of every session in a lexical index (stemmed
 * BM25 with month/year terms), optionally a vector index of message embeddings for one model, and the
 * order of messages within each session (for context propagation). Kept in step session by session. A view
 * restored from its saved copy reads messages and postings where they lie in the copy (its bytes, or its file
 * read where asked).
 */
export class RawLogView {
  docs = new RawDocs()
  lexical: LexicalIndex
  /** What the view knew of each session's log when it last read it. */
  sessions = new SessionMarks()
  /** Where the view stands in the logs it read through RawLog.readSince in this process (saved sessions: savedPositions). */
  readonly positions = new Map<string, string>()
  /** The saved copy's sessions' positions (savedPositions.ts), read when first asked for; null: none. */
  private savedPositions: (() => ((session: number) => string | null) | null) | null = null
  /**
   * Saved sessions whose logs were found as the saved copy has them at another modification time (a copied
   * data dir) since it was restored or saved, by their place in the copy: a note beside the copy carries
   * their marks to the next processes (persist.ts), so neither they nor a save read the logs again.
   */
  readonly remarked = new Map<number, SessionMark>()
  /** The remarks a note beside the saved copy carried when it was restored ([place, mtimeMs, readAt] triples, flat). */
  carriedRemarks: Float64Array = new Float64Array(0)
  /** Message vectors for vectorModel by message key (score one with `vectors.score`). */
  vectors: VectorIndex | null = null
  vectorModel: string | null = null
  /** Messages without a vector for vectorModel (null: not listed yet, every message without one). */
  private unembedded: Set<string> | null = null
  /** Keys in order of the sessions whose messages are held as objects (the others: docs.savedKeys). */
  private readonly heldKeys = new Map<string, Array<string>>()
  /** Work a saved copy would spare the next process: messages (re)indexed, and whether any was removed. */
  unsaved = { indexed: 0, removed: false }
  /**
   * Sessions read again since the view was restored or last saved (their marks or messages may differ from the
   * saved copy's): what a listing's note beside the copy names for the next processes to read (persist.ts).
   */
  readonly readSinceSaved = new Set<string>()
  /**
   * Sessions a note beside the saved copy said it is behind on (loadPersisted sets it): the next sync reads
   * them as if the change journal named them.
   */
  behind: ReadonlyArray<string> = []
  /** Vectors computed since the last save and still held (persist.ts appends them). */
  private newVectors = new Map<string, Float32Array>()
  /** How many messages the saved copy it was restored from held. */
  private restoredCount = 0
  /** The id of the saved copy this view was restored from or last saved as (null: none). */
  savedId: string | null = null
  /** Where the saved copy stood on the change journal (restore sets it; toBinary writes `journal`). */
  savedJournal: JournalPosition = { mark: null, listedAt: 0 }
  /** Where this view stands on the change journal (the retriever keeps it; saved by toBinary). */
  journal: JournalPosition = { mark: null, listedAt: 0 }
  /**
   * The saved copy would cost the next process work this one did: a full listing found what following the
   * journal from its mark would miss (the journal could not say, or a log changed that it did not name), or
   * it does not say that every message has a vector when they all have. It is to be saved again.
   */
  copyBehind = false
  /** The model the saved copy said every message had a vector of (null: it did not say). */
  savedEmbeddedFor: string | null = null
  /** The saved copy's file the view reads messages and postings from (null: none, or in memory). */
  private file: FileImage | null = null

  constructor(private readonly bm25: { readonly k1?: number; readonly b?: number } = {}) {
    this.lexical = new LexicalIndex({ ...bm25, analyzer: analyze })
  }

  /** A session's message keys in order. */
  keysOf(sessionId: string): ReadonlyArray<string> {
    return this.heldKeys.get(sessionId) ?? (this.docs.isSaved(sessionId) ? this.docs.savedKeys(sessionId) : [])
  }

  /** The view as stored between processes (restore reads it back), with `id` as the copy's id. */
  toBinary(id: string | null = null): Uint8Array {
    this.docs.loadSaved()
    const sessions: Array<readonly [string, SessionMark, number]> = []
    const indexes: Array<number> = []
    const texts: Array<string | Uint8Array> = []
    for (const [sid, mark] of this.sessions) {
      if (this.docs.isSaved(sid)) {
        const saved = this.docs.savedTexts(sid)
        sessions.push([sid, mark, saved.length])
        indexes.push(...this.docs.savedIndexes(sid))
        texts.push(...saved)
        continue
      }
      const keys = this.heldKeys.get(sid) ?? []
      sessions.push([sid, mark, keys.length])
      for (const key of keys) {
        const d = this.docs.get(key)!
        indexes.push(d.index)
        texts.push(JSON.stringify([d.timestamp, d.role, d.scope, d.content, d.author]))
      }
    }
    const embedded = this.embeddedModel()
    const meta: SavedMeta = {
      version: VIEW_VERSION, analyzer: ANALYZER_ID, k1: this.lexical.k1, b: this.lexical.b,
      ...(id === null ? {} : { id }), logMark: this.journal.mark, listedAt: this.journal.listedAt,
      ...(embedded === null ? {} : { embeddedFor: embedded })
    }
    return packSections(VIEW_MAGIC, [
      Buffer.from(JSON.stringify(meta), "utf8"),
      ...SavedSessions.encode(sessions),
      int32Bytes(Int32Array.from(indexes)),
      StringTable.encode(texts, false),
      this.lexical.toBinary()
    ])
  }

  /**
   * Restores a saved view into this empty one, reading it in place (keep the bytes unchanged); false (and
   * nothing changed) when it does not fit.
   */
  restore(bytes: Uint8Array): boolean {
    return this.restoreFrom(memorySource(bytes))
  }

  /**
   * Restores a saved view from its file, read where asked: the sessions, each message's index, the offsets
   * of messages, keys and terms, the documents' lengths now; a query's postings and the stored forms of the
   * messages it looks at when it does (a rewrite reads the rest). The view owns the file from then on (close
   * it with `close`); false (the file left to the caller) when it does not fit.
   */
  restoreFile(file: FileImage): boolean {
    if (!this.restoreFrom(file)) return false
    this.file = file
    return true
  }

  /** Gives back the saved copy's file, if the view reads one (the view is not used after). */
  close(): void {
    this.file?.close()
    this.file = null
    this.vectors?.close()
  }

  private restoreFrom(source: ImageSource): boolean {
    if (this.docs.size > 0) return false
    const layout = sourceLayout(source, 0, VIEW_MAGIC, VIEW_SECTIONS)
    if (layout === null || layout.total !== source.size) return false
    const [metaAt, indexesAt, textsAt, lexicalAt] = [0, 4, 5, 6].map((i) => layout.starts[i]!) as [number, number, number, number]
    const [metaLength, indexesLength, textsLength, lexicalLength] = [0, 4, 5, 6].map((i) => layout.lengths[i]!) as [number, number, number, number]
    const metaBytes = source.bytes(metaAt, metaLength)
    if (metaBytes === null) return false
    let meta: Partial<SavedMeta>
    try {
      meta = JSON.parse(Buffer.from(metaBytes.buffer, metaBytes.byteOffset, metaBytes.length).toString("utf8")) as Partial<SavedMeta>
    } catch {
      return false
    }
    if (typeof meta !== "object" || meta === null) return false
    if (meta.version !== VIEW_VERSION || meta.analyzer !== ANALYZER_ID || meta.k1 !== this.lexical.k1 || meta.b !== this.lexical.b) return false
    const sessions = SavedSessions.decode(source, layout.starts.slice(1, 4), layout.lengths.slice(1, 4))
    if (sessions === null) return false
    const indexes = indexesLength % 4 === 0 ? source.ints(indexesAt, indexesLength / 4) : null
    const texts = StringTable.decodeAt(source, textsAt, textsLength)
    const lexical = LexicalIndex.fromImage(source, lexicalAt, lexicalLength, { ...this.bm25, analyzer: analyze })
    if (indexes === null || texts === null || lexical === null || texts.size !== indexes.length || lexical.size !== indexes.length) return false
    const first = sessions.messages
    if (first !== indexes.length) return false
    const saved = new SavedMessages(sessions, indexes, texts)
    // The copy's first and last messages are the lexical index's too (a cheap check that they belong together).
    if (first > 0) {
      let [a, z] = [0, sessions.size - 1]
      while (sessions.countAt(a) === 0) a++
      while (sessions.countAt(z) === 0) z--
      const ends = [refKey(sessions.idAt(a), indexes[0]!), refKey(sessions.idAt(z), indexes[first - 1]!)]
      if (!ends.every((key) => lexical.has(key))) return false
    }
    this.lexical = lexical
    this.docs.adopt(saved)
    this.sessions = new SessionMarks(sessions)
    // Every saved message had a vector then (the vector file says which): only messages read since need one.
    this.restoredCount = first
    this.savedEmbeddedFor = null
    if (typeof meta.embeddedFor === "string") this.trustEmbedded(meta.embeddedFor)
    this.savedId = typeof meta.id === "string" ? meta.id : null
    this.savedJournal = {
      mark: typeof meta.logMark === "string" ? meta.logMark : null,
      listedAt: typeof meta.listedAt === "number" && Number.isFinite(meta.listedAt) ? meta.listedAt : 0
    }
    return true
  }

  /** Reads the saved copy's positions (savedPositions.ts) with `load`, once, when first asked for. */
  useSavedPositions(load: () => ((session: number) => string | null) | null): void {
    let table: ((session: number) => string | null) | null | undefined
    this.savedPositions = () => (table === undefined ? (table = load()) : table)
  }

  /** Where the view stands in a session's log (a RawLog.readSince position), or null when it does not know. */
  positionOf(sessionId: string): string | null {
    const own = this.positions.get(sessionId)
    if (own !== undefined || this.savedPositions === null || !this.docs.isSaved(sessionId)) return own ?? null
    const i = this.sessions.savedIndexOf(sessionId)
    return i < 0 ? null : (this.savedPositions()?.(i) ?? null)
  }

  /** The remarked sessions, carried and found since, as a note beside the saved copy carries them (persist.ts Listed.remarked). */
  remarkedTriples(): Float64Array {
    const carried = this.carriedRemarks
    const out: Array<number> = []
    for (let at = 0; at + 2 < carried.length; at += 3) if (!this.remarked.has(carried[at]!)) out.push(carried[at]!, carried[at + 1]!, carried[at + 2]!)
    for (const [i, mark] of this.remarked) out.push(i, mark.mtimeMs, mark.readAt)
    return Float64Array.from(out)
  }

  /** Each session's position in the order toBinary saves them ("" for none). */
  positionsInOrder(): Array<string> {
    return Array.from(this.sessions.keys(), (sid) => this.positionOf(sid) ?? "")
  }

  /** Sets the mark of saved session i, whose log was found as the saved copy has it. */
  remark(i: number, mark: SessionMark): void {
    if (this.sessions.remarkSaved(i, mark)) this.remarked.set(i, mark)
  }

  /** True when the session's log must be read again (new, modified, or modified too close to the last read). */
  isStale(sessionId: string, mtimeMs: number): boolean {
    const mark = this.sessions.get(sessionId)
    return mark === undefined || mark.mtimeMs !== mtimeMs || racy(mark)
  }

  /** Replaces what the view holds of one session with its log as just read; true when a message changed. */
  syncSession(sessionId: string, entries: ReadonlyArray<RawLogEntry>, mark: SessionMark): boolean {
    if (this.docs.isSaved(sessionId)) this.heldKeys.set(sessionId, this.docs.takeOver(sessionId))
    const old = this.sessions.get(sessionId)
    const oldKeys = this.heldKeys.get(sessionId) ?? []
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
      this.addDoc(sessionId, key, e)
    }
    for (const key of oldKeys) {
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
    this.sessions.set(sessionId, mark)
    this.heldKeys.set(sessionId, keys)
    this.readSinceSaved.add(sessionId)
    return changed
  }

  /**
   * Adds the messages appended to a session's log since the view last read it (RawLog.readSince); true when
   * there were any. Null, and nothing changed, when the view does not hold the session or they do not come
   * after every message it holds: then the log is to be read whole.
   */
  appendToSession(sessionId: string, entries: ReadonlyArray<RawLogEntry>, mark: SessionMark): boolean | null {
    const held = this.heldKeys.get(sessionId)
    const saved = held === undefined && this.docs.isSaved(sessionId) ? this.sessions.savedIndexOf(sessionId) : -1
    if ((held === undefined && saved < 0) || !this.sessions.has(sessionId)) return null
    const before = held === undefined ? this.docs.savedIndexes(sessionId) : null
    let last = held !== undefined ? (held.length === 0 ? -1 : this.docs.get(held[held.length - 1]!)!.index) : (before!.at(-1) ?? -1)
    for (const e of entries) {
      if (e.index <= last) return null
      last = e.index
    }
    if (entries.length === 0 && held === undefined) {
      // Nothing after what the saved copy holds (its log copied, restored or touched): only the mark moves.
      this.remark(saved, mark)
      return false
    }
    const keys = held ?? this.docs.takeOver(sessionId)
    this.heldKeys.set(sessionId, keys)
    for (const e of entries) {
      const key = refKey(sessionId, e.index)
      this.addDoc(sessionId, key, e)
      const prev = keys[keys.length - 1]
      if (prev !== undefined) this.docs.get(prev)!.next = key
      this.docs.get(key)!.prev = prev ?? null
      keys.push(key)
    }
    this.sessions.set(sessionId, mark)
    this.readSinceSaved.add(sessionId)
    return entries.length > 0
  }

  /** Forgets a session whose log is gone. */
  dropSession(sessionId: string): void {
    if (this.docs.isSaved(sessionId)) this.heldKeys.set(sessionId, this.docs.takeOver(sessionId))
    for (const key of this.heldKeys.get(sessionId) ?? []) this.removeDoc(key)
    this.sessions.delete(sessionId)
    this.heldKeys.delete(sessionId)
    this.positions.delete(sessionId)
  }

  private addDoc(sessionId: string, key: string, e: RawLogEntry): void {
    this.unsaved.indexed++
    const scope = typeof e.metadata.scope === "string" ? e.metadata.scope : null
    const speaker = e.metadata.speaker
    const author = typeof speaker === "string" && speaker.trim() !== "" ? speaker.trim().toLowerCase() : null
    this.docs.set(key, {
      key, sessionId, index: e.index, timestamp: e.timestamp, role: e.role, scope, content: e.content, author, prev: null, next: null
    })
    this.lexical.add(key, indexedText(e.content, e.timestamp))
    this.forgetVector(key)
    this.unembedded?.add(key)
  }

  /** Keeps vectors of this model only (switching models drops all vectors). */
  useModel(modelId: string): void {
    if (this.vectorModel === modelId) return
    this.vectors?.close()
    this.vectors = null
    this.newVectors.clear()
    this.vectorModel = modelId
    this.unembedded = null
  }

  /** Messages that have no vector for this model yet (switching models drops all vectors). */
  missingVectors(modelId: string): Array<RawDoc> {
    this.useModel(modelId)
    if (this.unembedded === null) {
      this.unembedded = new Set()
      for (const key of this.docs.keys()) if (this.vectors?.has(key) !== true) this.unembedded.add(key)
    }
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
      this.unembedded?.delete(doc.key)
      if (fresh) this.newVectors.set(doc.key, v)
      else this.newVectors.delete(doc.key)
    })
  }

  /** Sets a message's vector from its stored compact bytes (store/compactVector.ts) of `dim` dimensions at `bytes[at]`. */
  addStoredVector(key: string, dim: number, bytes: Uint8Array, at = 0): void {
    if (dim <= 0 || !this.docs.has(key)) return
    if (this.vectors === null) this.vectors = new VectorIndex(dim)
    if (dim !== this.vectors.dim || !this.vectors.addCompact(key, bytes, at)) return
    this.unembedded?.delete(key)
    this.newVectors.delete(key)
  }

  /**
   * Takes a stored index (a vector file's image) as this model's vectors when none are held yet (else adds its
   * rows one by one). Its rows of messages no longer held stay, unreachable: searches accept held messages only.
   */
  addStoredIndex(index: VectorIndex): void {
    if (this.vectors !== null) {
      for (const [key, v] of index.entries()) if (this.docs.has(key)) this.addStoredVector(key, v.length, encodeVector(v))
      return
    }
    this.vectors = index
    // Messages without a vector are listed again, unless the restored copy said all of its had one (then
    // those read since are tracked already).
    if (index.size < this.restoredCount) this.unembedded = null
  }

  /** The model every message has a vector of (as far as the view has listed them), or null. */
  embeddedModel(): string | null {
    return this.unembedded !== null && this.unembedded.size === 0 ? this.vectorModel : null
  }

  /**
   * Takes the saved copy's word (its own, or a note's beside it) that each of its messages had a vector of
   * `model` in the vector file: only messages read since need one (a restored view, before any is read).
   */
  trustEmbedded(model: string): void {
    this.savedEmbeddedFor = model
    this.vectorModel = model
    this.unembedded = new Set()
  }

  /** Forgets which messages lack a vector (the vector file did not load: list them all again). */
  distrustEmbedded(): void {
    this.unembedded = null
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
    this.unembedded?.delete(key)
  }
}
