// The sessions of a raw-log view: what it knew of each session's log when it last read it. A view restored
// from its saved copy reads them from the copy's session table where asked (one lookup per session a query
// or a sync touches), not as 50k map entries built at every process start (1M messages).
import { int32Bytes, type ImageSource, StringTable } from "../../search/binaryImage.js"

/** What the view knew of a session's log when it last read it. */
export interface SessionMark {
  /** The log's modification time then. */
  readonly mtimeMs: number
  /** When it was read (ms since epoch): a log modified within the clock's granularity of that is re-read. */
  readonly readAt: number
}

// Session ids looked up again (a query asks about the same few sessions many times) are remembered, up to this many.
const REMEMBERED_MAX = 20_000
// Past this many lookups by binary search, every id is put in the map (a full listing of the logs).
const ALL_AFTER = 1_000

/**
 * A saved copy's sessions in the copy's order: their ids (with a sorted lookup), marks and message runs
 * (session i's messages are ordinals firsts[i] .. firsts[i] + counts[i]).
 */
export class SavedSessions {
  private remembered = new Map<string, number>()

  private constructor(
    private readonly ids: StringTable,
    private readonly times: Float64Array,
    private readonly counts: Int32Array,
    private readonly firsts: Int32Array,
    /** Messages of all the sessions. */
    readonly messages: number
  ) {}

  /** The three sections a saved copy stores: ids, [mtimeMs, readAt] per session, message count per session. */
  static encode(rows: ReadonlyArray<readonly [string, SessionMark, number]>): [Uint8Array, Uint8Array, Uint8Array] {
    const times = new Float64Array(2 * rows.length)
    rows.forEach(([, mark], i) => {
      times[2 * i] = mark.mtimeMs
      times[2 * i + 1] = mark.readAt
    })
    return [
      StringTable.encode(rows.map(([sid]) => sid), true),
      new Uint8Array(times.buffer),
      int32Bytes(Int32Array.from(rows, ([, , count]) => count))
    ]
  }

  /** Reads the three sections (the ids whole: a few bytes per session); null when they do not fit. */
  static decode(source: ImageSource, at: ReadonlyArray<number>, lengths: ReadonlyArray<number>): SavedSessions | null {
    const ids = StringTable.decodeAt(source, at[0]!, lengths[0]!)?.loaded() ?? null
    if (ids === null || lengths[1] !== 16 * ids.size || lengths[2] !== 4 * ids.size) return null
    const timeBytes = source.bytes(at[1]!, lengths[1]!)
    const counts = source.ints(at[2]!, ids.size)
    if (timeBytes === null || counts === null) return null
    // Sections start on 4-byte boundaries; float64s need 8.
    const times = new Float64Array(Uint8Array.prototype.slice.call(timeBytes).buffer)
    const firsts = new Int32Array(ids.size)
    let messages = 0
    for (let i = 0; i < ids.size; i++) {
      const count = counts[i]!
      if (count < 0 || !Number.isFinite(times[2 * i]!) || !Number.isFinite(times[2 * i + 1]!)) return null
      firsts[i] = messages
      messages += count
    }
    return new SavedSessions(ids, times, counts, firsts, messages)
  }

  get size(): number {
    return this.ids.size
  }

  /** The position of a session, or -1. */
  indexOf(sessionId: string): number {
    let i = this.remembered.get(sessionId)
    if (i === undefined) {
      if (this.all !== null) return -1
      // Many lookups (a listing of every log asks about each session): every id into the map at once, one
      // decode each instead of a binary search of ~16 decodes per lookup.
      if (++this.searched > ALL_AFTER) return this.rememberAll().get(sessionId) ?? -1
      i = this.ids.indexOf(sessionId)
      if (this.remembered.size >= REMEMBERED_MAX) this.remembered = new Map()
      this.remembered.set(sessionId, i)
    }
    return i
  }

  /** Lookups by binary search so far. */
  private searched = 0
  /** Every id's position (after ALL_AFTER lookups), or null. */
  private all: Map<string, number> | null = null

  private rememberAll(): Map<string, number> {
    const all = new Map<string, number>()
    for (let i = 0; i < this.ids.size; i++) all.set(this.ids.at(i), i)
    this.all = this.remembered = all
    return all
  }

  idAt(i: number): string {
    return this.ids.at(i)
  }

  markAt(i: number): SessionMark {
    return { mtimeMs: this.times[2 * i]!, readAt: this.times[2 * i + 1]! }
  }

  /** Sets session i's mark (its log was found unchanged at another modification time). */
  remark(i: number, mark: SessionMark): void {
    this.times[2 * i] = mark.mtimeMs
    this.times[2 * i + 1] = mark.readAt
  }

  firstAt(i: number): number {
    return this.firsts[i]!
  }

  countAt(i: number): number {
    return this.counts[i]!
  }
}

/**
 * The view's marks by session, a Map in what it offers and in its order (a saved copy's sessions in the
 * copy's order, then those set since in order; one deleted and set again goes last), the saved ones read
 * from the copy when asked for.
 */
export class SessionMarks {
  private readonly saved: SavedSessions | null
  /** Saved sessions marked since (null: deleted). */
  private readonly changed = new Map<string, SessionMark | null>()
  /** Sessions set since that are not saved ones still there. */
  private readonly added = new Map<string, SessionMark>()
  private deleted = 0

  constructor(saved: SavedSessions | null = null) {
    this.saved = saved
  }

  get size(): number {
    return (this.saved?.size ?? 0) - this.deleted + this.added.size
  }

  get(sessionId: string): SessionMark | undefined {
    const own = this.added.get(sessionId)
    if (own !== undefined || this.saved === null) return own
    const changed = this.changed.get(sessionId)
    if (changed !== undefined) return changed ?? undefined
    const i = this.saved.indexOf(sessionId)
    return i < 0 ? undefined : this.saved.markAt(i)
  }

  /** The place of a session in the saved copy, or -1 (not there, or deleted since). */
  savedIndexOf(sessionId: string): number {
    if (this.saved === null || this.changed.get(sessionId) === null) return -1
    return this.saved.indexOf(sessionId)
  }

  /**
   * Sets the mark of saved session i (savedIndexOf) whose log was found as the saved copy has it: in the copy's
   * table, as if saved with it (toBinary writes it, a note beside the copy carries it to other processes).
   */
  remarkSaved(i: number, mark: SessionMark): boolean {
    const saved = this.saved
    if (saved === null || !Number.isInteger(i) || i < 0 || i >= saved.size) return false
    const sid = this.changed.size === 0 ? null : saved.idAt(i)
    if (sid === null || !this.changed.has(sid)) saved.remark(i, mark)
    else if (this.changed.get(sid) === null) return false
    else this.changed.set(sid, mark)
    return true
  }

  has(sessionId: string): boolean {
    return this.get(sessionId) !== undefined
  }

  set(sessionId: string, mark: SessionMark): this {
    if (this.added.has(sessionId) || this.saved === null || this.changed.get(sessionId) === null || this.saved.indexOf(sessionId) < 0) {
      this.added.set(sessionId, mark)
    } else this.changed.set(sessionId, mark)
    return this
  }

  delete(sessionId: string): boolean {
    if (this.added.delete(sessionId)) return true
    if (this.saved === null || this.changed.get(sessionId) === null || this.saved.indexOf(sessionId) < 0) return false
    this.changed.set(sessionId, null)
    this.deleted++
    return true
  }

  *entries(): IterableIterator<[string, SessionMark]> {
    const saved = this.saved
    if (saved !== null) {
      for (let i = 0; i < saved.size; i++) {
        const sid = saved.idAt(i)
        const changed = this.changed.get(sid)
        if (changed !== null) yield [sid, changed ?? saved.markAt(i)]
      }
    }
    yield* this.added
  }

  *keys(): IterableIterator<string> {
    for (const [sid] of this.entries()) yield sid
  }

  [Symbol.iterator](): IterableIterator<[string, SessionMark]> {
    return this.entries()
  }
}
