// The retrieval index kept between processes under <data-dir>/index/: the raw-log view (messages and
// their lexical index) as one binary image replaced atomically and read where a query asks, the file held
// open (RawLogView.toBinary, restoreFile), and message
// embeddings as one vector image plus records appended since. Both are caches: anything unreadable is ignored and rebuilt from the logs.
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { indexDir, replaceIndexFile, writeIndexUnlessDeleted } from "../../store/indexFiles.js"
import { compactLength, decodeVector, encodeVector } from "../../store/compactVector.js"
import { appendNoFollow, openNoFollow, withFileNoFollow } from "../../store/noFollow.js"
import { useFileImage } from "../../search/binaryImage.js"
import { VectorIndex } from "../../search/VectorIndex.js"
import type { RawLogView } from "./RawLogView.js"
import { positionsBytes, positionsFile, readPositions } from "./savedPositions.js"

export interface PersistTarget {
  readonly dataDir: string
  /** The embedder's model: vectors of another model are not loaded. */
  readonly modelId: string
  /** The deletion stamp read before the stores were: a write is dropped if a delete began or ended since. */
  readonly stamp: number
}

const viewFile = (dataDir: string) => path.join(indexDir(dataDir), "rawlog.bin")
const vectorFile = (dataDir: string) => path.join(indexDir(dataDir), "rawlog-vectors.bin")
/**
 * A note beside the saved view (JSON: its id, when, the change journal's mark, the sessions it is behind on):
 * a full listing of the logs at that time found the view (that id) current but for those sessions, so a later
 * process follows the journal from that mark and reads them again, and the view itself is not rewritten (at 1M
 * messages a rewrite costs ~10 s of CPU). An older build wrote "<view id> <ms>" (no mark: the view's own).
 */
const listedFile = (dataDir: string) => path.join(indexDir(dataDir), "rawlog-listed")

/** What a full listing found about a saved view (its note beside it). */
export interface Listed {
  /** When every log was listed (ms since epoch). */
  readonly listedAt: number
  /** The change journal's mark the listing started from (null: the saved view's own). */
  readonly mark: string | null
  /** Sessions whose logs the saved view is behind on (read again by whoever restores it). */
  readonly behind: ReadonlyArray<string>
  /**
   * Saved sessions whose logs were found as the view has them at another modification time (a copied data dir),
   * as [place in the saved view, mtimeMs, readAt] triples, flat: whoever restores the view takes these marks.
   * In the note as the float64s' bytes in base64: at 1M messages (50k sessions) a JSON array of numbers cost ~50 ms of CPU at every start.
   */
  readonly remarked: Float64Array
  /**
   * The model every message of the saved view has a vector of in the vector file, found since it was saved
   * (null: not known beyond what the view says): spares later processes listing the messages without one.
   */
  readonly embeddedFor: string | null
}

/** A note's remarked triples, or null when they are not such. */
const remarkedOf = (value: unknown): Float64Array | null => {
  if (value === undefined) return new Float64Array(0)
  if (typeof value !== "string") return null
  const bytes = Buffer.from(value, "base64")
  return bytes.length % 24 === 0 ? new Float64Array(Uint8Array.prototype.slice.call(bytes).buffer) : null
}

const remarkedText = (triples: Float64Array): string => Buffer.from(triples.buffer, triples.byteOffset, triples.byteLength).toString("base64")


/** The note about the saved view `id`, or null when there is none about it. */
const listedOf = (dataDir: string, id: string): Listed | null => {
  try {
    const text = fs.readFileSync(listedFile(dataDir), "utf8")
    if (!text.startsWith("{")) {
      const [said, at] = text.split(" ")
      const ms = Number(at)
      return said === id && Number.isFinite(ms) ? { listedAt: ms, mark: null, behind: [], remarked: new Float64Array(0), embeddedFor: null } : null
    }
    const note = JSON.parse(text) as { id?: unknown; listedAt?: unknown; mark?: unknown; behind?: unknown; remarked?: unknown; embeddedFor?: unknown }
    const { listedAt, mark, behind } = note
    if (note.id !== id || typeof listedAt !== "number" || !Number.isFinite(listedAt) || typeof mark !== "string") return null
    if (!Array.isArray(behind) || !behind.every((s): s is string => typeof s === "string")) return null
    const remarked = remarkedOf(note.remarked)
    const embeddedFor = typeof note.embeddedFor === "string" ? note.embeddedFor : null
    return remarked === null ? null : { listedAt, mark, behind, remarked, embeddedFor }
  } catch {
    return null
  }
}

/**
 * Records what a full listing of the logs found: the saved view (`id`) is current but for the sessions
 * `listed.behind`, as of the journal's `listed.mark`, so the next processes need not list them again for
 * a while, nor rewrite the view.
 */
export const noteListed = (target: PersistTarget, id: string, listed: Listed): void => {
  try {
    const note = JSON.stringify({ id, listedAt: listed.listedAt, mark: listed.mark, behind: listed.behind, remarked: remarkedText(listed.remarked), embeddedFor: listed.embeddedFor })
    writeIndexUnlessDeleted(target.dataDir, target.stamp, () => replaceIndexFile(listedFile(target.dataDir), note))
  } catch {
    // Only an optimisation: the next process lists every log again.
  }
}

/**
 * Whether saving is worth its cost: rewriting the files takes longer than re-indexing a few messages, so a
 * prompt hook that only added its own prompt leaves the files alone; removals are saved at once (deleted
 * text must not linger in the cache).
 */
export const worthSaving = (unsaved: { readonly indexed: number; readonly removed: boolean }): boolean =>
  unsaved.removed || unsaved.indexed >= SAVE_AFTER

/** Re-indexed documents after which the cache is rewritten. */
export const SAVE_AFTER = 200


// The vector file: a magic, the model id (its length, the id, zeros to a 4-byte boundary), the vectors as they
// were when the file was last rewritten as one VectorIndex image (its length, 0 for none, then the image,
// opened without a rebuild), then the records appended since: (key length, dimension, key, compact vector:
// int8 with a scale, src/store/compactVector.ts). A later record of a key replaces its vector. Versions 1
// (float32 records) and 2 (compact records, no image) are read and rewritten as version 3.
const MAGIC = "AWHMVEC3"
const MAGIC_COMPACT = "AWHMVEC2"
const MAGIC_FLOAT32 = "AWHMVEC1"
/** The magic and the model id, padded: what an appender checks before adding records. */
const header = (modelId: string): Buffer => {
  const id = Buffer.from(modelId, "utf8")
  const len = Buffer.alloc(4)
  len.writeUInt32LE(id.length)
  return Buffer.concat([Buffer.from(MAGIC, "latin1"), len, id, Buffer.alloc((4 - (id.length % 4)) % 4)])
}

/** A whole version 3 file: the header, the image (or none) and records. */
const vectorFileBytes = (modelId: string, image: Uint8Array | null, records: Buffer): Buffer => {
  const len = Buffer.alloc(4)
  len.writeUInt32LE(image?.length ?? 0)
  return Buffer.concat([header(modelId), len, image ?? Buffer.alloc(0), records])
}

/** Records of (key, dimension, compact bytes). */
const encodeCompact = (records: ReadonlyArray<StoredRecord>): Buffer => {
  const parts: Array<Uint8Array> = []
  for (const { key, dim, bytes, at } of records) {
    const k = Buffer.from(key, "utf8")
    const head = Buffer.alloc(8)
    head.writeUInt32LE(k.length, 0)
    head.writeUInt32LE(dim, 4)
    parts.push(head, k, bytes.subarray(at, at + compactLength(dim)))
  }
  return Buffer.concat(parts)
}

const encodeRecords = (records: ReadonlyArray<readonly [string, Float32Array]>): Buffer =>
  encodeCompact(records.map(([key, v]) => ({ key, dim: v.length, bytes: encodeVector(v), at: 0 })))

/** One record as stored: its vector's compact bytes (float32 bytes in a version 1 file) at bytes[at]. */
interface StoredRecord {
  readonly key: string
  readonly dim: number
  readonly bytes: Uint8Array
  readonly at: number
}

/** A vector file of the model, opened: its version, its image (read straight into an index) and its records' bytes. */
interface VectorFile {
  readonly version: 1 | 2 | 3
  /** The image (null: none; "damaged": there, but not one). */
  readonly image: VectorIndex | null | "damaged"
  readonly records: Buffer
}

// The head of a vector file is read in one go of at most this many bytes (a longer model id reads as another model's).
const HEAD_READ = 4096

/** The parts of a vector file, or null when there is none, or it is another model's or damaged. */
const readVectorFile = (dataDir: string, modelId: string): VectorFile | null => {
  try {
    // The image's rows stay in the file (held open): a search reads them in chunks (VectorIndex).
    return useFileImage(openNoFollow(vectorFile(dataDir)), (file, keep) => {
      const size = file.size
      const read = file.readAt
      const head = Buffer.alloc(Math.min(size, HEAD_READ))
      if (read(head, 0) !== head.length) return null
      const magic = head.length < 12 ? "" : head.toString("latin1", 0, 8)
      const version = magic === MAGIC ? 3 : magic === MAGIC_COMPACT ? 2 : magic === MAGIC_FLOAT32 ? 1 : null
      if (version === null) return null
      const idLen = head.readUInt32LE(8)
      if (12 + idLen > head.length || head.toString("utf8", 12, 12 + idLen) !== modelId) return null
      let recordsAt = 12 + idLen
      let image: VectorIndex | null | "damaged" = null
      if (version === 3) {
        const at = 12 + idLen + ((4 - (idLen % 4)) % 4)
        if (at + 4 > head.length) return null
        const imageLen = head.readUInt32LE(at)
        if (at + 4 + imageLen > size) return null
        if (imageLen > 0) {
          const rows = keep()
          image = VectorIndex.readImage(read, at + 4, imageLen, rows) ?? "damaged"
          if (image === "damaged") rows.close()
        }
        recordsAt = at + 4 + imageLen
      }
      const records = Buffer.alloc(size - recordsAt)
      read(records, recordsAt)
      return { version, image, records }
    })
  } catch {
    return null
  }
}

/**
 * Visits the records of a vector file in order (dead ones included; each points into its bytes); gives
 * their number (a torn last record, from a writer that died mid-append, ends them).
 */
const eachRecord = (file: VectorFile, visit: (r: StoredRecord) => void): number => {
  const buf = file.records
  const float32 = file.version === 1
  let count = 0
  let at = 0
  while (at + 8 <= buf.length) {
    const kLen = buf.readUInt32LE(at)
    const dim = buf.readUInt32LE(at + 4)
    const end = at + 8 + kLen + (float32 ? 4 * dim : compactLength(dim))
    if (end > buf.length) break
    const r = { key: buf.toString("utf8", at + 8, at + 8 + kLen), dim, bytes: buf as Uint8Array, at: at + 8 + kLen }
    // A float32 record (version 1) goes on as its compact bytes.
    visit(float32 ? { ...r, bytes: encodeVector(decodeVector(buf.subarray(r.at, end), dim)!), at: 0 } : r)
    count++
    at = end
  }
  return count
}

/** Every message vector the cache holds for a model, dead records included (audits and tests read it). */
export const storedVectors = (dataDir: string, modelId: string): ReadonlyArray<readonly [string, Float32Array]> => {
  try {
    const file = readVectorFile(dataDir, modelId)
    if (file === null) return []
    const out: Array<readonly [string, Float32Array]> = typeof file.image === "object" && file.image !== null ? [...file.image.entries()] : []
    eachRecord(file, (r) => out.push([r.key, decodeVector(r.bytes.subarray(r.at, r.at + compactLength(r.dim)), r.dim)!]))
    return out
  } catch {
    return []
  }
}

/** Writes a message-vector file from scratch, as one image (the bench's seeder: vectors computed elsewhere). */
export const writeMessageVectors = (target: PersistTarget, records: ReadonlyArray<readonly [string, Float32Array]>): void => {
  const index = records.length === 0 ? null : new VectorIndex(records[0]![1].length)
  for (const [key, v] of records) index?.addCompact(key, encodeVector(v))
  replaceIndexFile(vectorFile(target.dataDir), vectorFileBytes(target.modelId, index?.toImage() ?? null, Buffer.alloc(0)))
}

/** Fills an empty view from the cache (best effort: an unusable cache is ignored). True when it did. */
export const loadPersisted = (target: PersistTarget, view: RawLogView): boolean => {
  try {
    // Read where a query asks (the view keeps the file open), not whole: at 1M messages the file is ~280 MB.
    const restored = useFileImage(openNoFollow(viewFile(target.dataDir)), (file, keep) => {
      if (!view.restoreFile(file)) return false
      keep()
      return true
    })
    if (!restored) return false
    const id = view.savedId
    if (id === null) return true
    view.useSavedPositions(() => readPositions(target.dataDir, id))
    const listed = listedOf(target.dataDir, id)
    if (listed !== null) {
      // Written after the view was (a later mark of the journal), by a process that had restored or saved it.
      view.savedJournal = { mark: listed.mark ?? view.savedJournal.mark, listedAt: Math.max(view.savedJournal.listedAt, listed.listedAt) }
      view.behind = listed.behind
      const r = listed.remarked
      for (let at = 0; at + 2 < r.length; at += 3) view.sessions.remarkSaved(r[at]!, { mtimeMs: r[at + 1]!, readAt: r[at + 2]! })
      view.carriedRemarks = r
      if (listed.embeddedFor !== null && view.savedEmbeddedFor === null) view.trustEmbedded(listed.embeddedFor)
    }
    return true
  } catch {
    return false
  }
}

/** Records appended after which the file is rewritten as one image (a tenth of the image, at least this). */
const REWRITE_AFTER = 1_000

/** Adds the stored message vectors of the target's model to the view (after loadPersisted). */
export const loadPersistedVectors = (target: PersistTarget, view: RawLogView): void => {
  try {
    const file = readVectorFile(target.dataDir, target.modelId)
    if (file === null || file.image === "damaged") return view.distrustEmbedded()
    const image = file.image
    view.useModel(target.modelId)
    // Without an image (an older file) it cannot vouch for what the view's copy said it held.
    if (image !== null) view.addStoredIndex(image)
    else view.distrustEmbedded()
    const records = eachRecord(file, (r) => view.addStoredVector(r.key, r.dim, r.bytes, r.at))
    // An older version, or many records since the image: rewrite as one image of the live vectors.
    if (file.version !== 3 || records > Math.max(REWRITE_AFTER, (image?.size ?? 0) / 10)) {
      const live = view.vectors?.toImage((key) => view.docs.has(key)) ?? null
      if (live === null) return
      const data = vectorFileBytes(target.modelId, live, Buffer.alloc(0))
      writeIndexUnlessDeleted(target.dataDir, target.stamp, () => replaceIndexFile(vectorFile(target.dataDir), data))
    }
  } catch {
    // No vectors yet: they are computed on the first semantic query.
    view.distrustEmbedded()
  }
}

/** Saves the view, and appends the vectors computed since the last save. Returns the failure, or null. */
export const savePersisted = (target: PersistTarget, view: RawLogView, vectorsChanged: boolean): unknown => {
  try {
    const id = randomBytes(8).toString("hex")
    const positions = positionsBytes(id, view.positionsInOrder())
    const data = view.toBinary(id)
    const pending = vectorsChanged ? view.takeNewVectors() : []
    const appendVectors = (): void => {
      if (pending.length === 0) return
      const file = vectorFile(target.dataDir)
      const expected = header(target.modelId)
      let fresh = true
      try {
        const head = Buffer.alloc(expected.length)
        fresh = withFileNoFollow(file, (fd) => fs.readSync(fd, head, 0, head.length, 0)) !== head.length || !head.equals(expected)
      } catch {
        fresh = true
      }
      // A missing or foreign file: all the live vectors, not only the new ones.
      const live = (): Array<readonly [string, Float32Array]> => [...(view.vectors?.entries() ?? [])].filter(([key]) => view.docs.has(key))
      if (fresh) replaceIndexFile(file, vectorFileBytes(target.modelId, null, encodeRecords(live())))
      else appendNoFollow(file, encodeRecords(pending))
    }
    // The vectors first: the view's copy may say every message has one in the file. The positions before the
    // view too: they name the view they belong to.
    const written = writeIndexUnlessDeleted(target.dataDir, target.stamp, () => {
      appendVectors()
      replaceIndexFile(positionsFile(target.dataDir), positions)
      replaceIndexFile(viewFile(target.dataDir), data)
    })
    if (written) {
      view.unsaved = { indexed: 0, removed: false }
      view.readSinceSaved.clear()
      view.remarked.clear()
      view.carriedRemarks = new Float64Array(0)
      view.savedId = id
      view.savedJournal = view.journal
      view.savedEmbeddedFor = view.embeddedModel()
      view.copyBehind = false
    }
    return null
  } catch (e) {
    return e
  }
}
