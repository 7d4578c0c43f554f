// The retrieval index kept between processes under <data-dir>/index/: the raw-log view (messages and
// their lexical index) as one binary image replaced atomically and read in place (RawLogView.toBinary), and message embeddings in an append-only
// binary file. Both are caches: anything unreadable is ignored and rebuilt from the logs.
import * as fs from "node:fs"
import * as path from "node:path"
import { indexDir, writeIndexUnlessDeleted } from "../../store/indexFiles.js"
import { compactLength, decodeVector, encodeVector } from "../../store/compactVector.js"
import { appendNoFollow, READ_NOFOLLOW, readFileNoFollow } from "../../store/noFollow.js"
import { ensurePrivateDir } from "../../store/privateDir.js"
import type { RawLogView } from "./RawLogView.js"

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
 * Whether saving is worth its cost: rewriting the files takes longer than re-indexing a few messages, so a
 * prompt hook that only added its own prompt leaves the files alone; removals are saved at once (deleted
 * text must not linger in the cache).
 */
export const worthSaving = (unsaved: { readonly indexed: number; readonly removed: boolean }): boolean =>
  unsaved.removed || unsaved.indexed >= SAVE_AFTER

/** Re-indexed documents after which the cache is rewritten. */
export const SAVE_AFTER = 200


// The vector file: a magic, the model id's length and the model id, then records of (key length, dimension,
// key, vector). Version 2 stores each vector compact (int8 with a scale, src/store/compactVector.ts); a
// version 1 file (float32 vectors) is read and rewritten as version 2.
const MAGIC = "AWHMVEC2"
const MAGIC_FLOAT32 = "AWHMVEC1"
let tmpCounter = 0

// A cache needs no fsync: a torn file fails to parse and is rebuilt.
const replaceFile = (file: string, data: string | Uint8Array) => {
  ensurePrivateDir(path.dirname(file))
  const tmp = `${file}.${process.pid}.${tmpCounter++}.tmp`
  try {
    fs.writeFileSync(tmp, data, { mode: 0o600, flag: "wx" })
    fs.renameSync(tmp, file)
  } catch (e) {
    fs.rmSync(tmp, { force: true })
    throw e
  }
}

const header = (modelId: string): Buffer => {
  const id = Buffer.from(modelId, "utf8")
  const len = Buffer.alloc(4)
  len.writeUInt32LE(id.length)
  return Buffer.concat([Buffer.from(MAGIC, "latin1"), len, id])
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

/**
 * Visits every record of the vector file in order (dead ones included; each points into `buf`); gives the
 * number of records and whether the file is the older float32 version, or null when it is another model's
 * or damaged.
 */
const eachRecord = (buf: Buffer, modelId: string, visit: (r: StoredRecord, float32: boolean) => void): { count: number; float32: boolean } | null => {
  const magic = buf.length < 12 ? "" : buf.toString("latin1", 0, 8)
  if (magic !== MAGIC && magic !== MAGIC_FLOAT32) return null
  const float32 = magic === MAGIC_FLOAT32
  const idLen = buf.readUInt32LE(8)
  if (12 + idLen > buf.length || buf.toString("utf8", 12, 12 + idLen) !== modelId) return null
  let count = 0
  let at = 12 + idLen
  while (at + 8 <= buf.length) {
    const kLen = buf.readUInt32LE(at)
    const dim = buf.readUInt32LE(at + 4)
    const end = at + 8 + kLen + (float32 ? 4 * dim : compactLength(dim))
    if (end > buf.length) break // a torn last record (a writer died mid-append)
    visit({ key: buf.toString("utf8", at + 8, at + 8 + kLen), dim, bytes: buf, at: at + 8 + kLen }, float32)
    count++
    at = end
  }
  return { count, float32 }
}

/** A record's vector as floats. */
const recordVector = (r: StoredRecord, float32: boolean): Float32Array =>
  decodeVector(r.bytes.subarray(r.at, r.at + (float32 ? 4 * r.dim : compactLength(r.dim))), r.dim)!

/** Every message vector the cache holds for a model, dead records included (audits and tests read it). */
export const storedVectors = (dataDir: string, modelId: string): ReadonlyArray<readonly [string, Float32Array]> => {
  try {
    const out: Array<readonly [string, Float32Array]> = []
    eachRecord(fs.readFileSync(vectorFile(dataDir)), modelId, (r, float32) => out.push([r.key, recordVector(r, float32)]))
    return out
  } catch {
    return []
  }
}

/** Writes a message-vector file from scratch (the bench's seeder: vectors computed elsewhere). */
export const writeMessageVectors = (target: PersistTarget, records: ReadonlyArray<readonly [string, Float32Array]>): void =>
  replaceFile(vectorFile(target.dataDir), Buffer.concat([header(target.modelId), encodeRecords(records)]))

/** Fills an empty view from the cache (best effort: an unusable cache is ignored). True when it did. */
export const loadPersisted = (target: PersistTarget, view: RawLogView): boolean => {
  try {
    return view.restore(readFileNoFollow(viewFile(target.dataDir)))
  } catch {
    return false
  }
}

/** Adds the stored message vectors of the target's model to the view (after loadPersisted). */
export const loadPersistedVectors = (target: PersistTarget, view: RawLogView): void => {
  try {
    const buf = readFileNoFollow(vectorFile(target.dataDir))
    view.useModel(target.modelId)
    const before = view.vectors?.size ?? 0
    // Each record goes in as its stored bytes; a later record of a key replaces its vector in place (the
    // index keeps the order keys first appear).
    const compact = (r: StoredRecord, float32: boolean): StoredRecord =>
      float32 ? { ...r, bytes: encodeVector(recordVector(r, true)), at: 0 } : r
    const read = eachRecord(buf, target.modelId, (r, float32) => {
      const c = compact(r, float32)
      view.addStoredVector(c.key, c.dim, c.bytes, c.at)
    })
    if (read === null) return
    // Mostly dead records (deleted or replaced messages), or float32 ones: rewrite with the live ones, compact.
    if (read.float32 || read.count > 2 * ((view.vectors?.size ?? 0) - before) + 100) {
      const latest = new Map<string, StoredRecord>()
      eachRecord(buf, target.modelId, (r, float32) => {
        if (view.docs.has(r.key)) latest.set(r.key, compact(r, float32))
      })
      const live = Buffer.concat([header(target.modelId), encodeCompact([...latest.values()])])
      writeIndexUnlessDeleted(target.dataDir, target.stamp, () => replaceFile(vectorFile(target.dataDir), live))
    }
  } catch {
    // No vectors yet: they are computed on the first semantic query.
  }
}

/** Saves the view, and appends the vectors computed since the last save. Returns the failure, or null. */
export const savePersisted = (target: PersistTarget, view: RawLogView, vectorsChanged: boolean): unknown => {
  try {
    const data = view.toBinary()
    const pending = vectorsChanged ? view.takeNewVectors() : []
    const written = writeIndexUnlessDeleted(target.dataDir, target.stamp, () => {
      replaceFile(viewFile(target.dataDir), data)
      if (pending.length === 0) return
      const file = vectorFile(target.dataDir)
      const expected = header(target.modelId)
      let fresh = true
      try {
        const head = Buffer.alloc(expected.length)
        const fd = fs.openSync(file, READ_NOFOLLOW)
        try {
          fresh = fs.readSync(fd, head, 0, head.length, 0) !== head.length || !head.equals(expected)
        } finally {
          fs.closeSync(fd)
        }
      } catch {
        fresh = true
      }
      if (fresh) replaceFile(file, Buffer.concat([header(target.modelId), encodeRecords(pending)]))
      else appendNoFollow(file, encodeRecords(pending))
    })
    if (written) view.unsaved = { indexed: 0, removed: false }
    return null
  } catch (e) {
    return e
  }
}
