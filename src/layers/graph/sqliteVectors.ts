// The SQLite store's vectors for search: held in memory between queries, and saved as one image beside the
// retrieval index (index/graph-vectors.bin) so a new process opens them without reading every row. Both
// know the `vectors_version` they reflect and follow the vector_changes log (migration 0005) from there:
// a writer's change costs readers the rows it changed, not all of them.
import type * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import { isCompact } from "../../store/compactVector.js"
import { withFileLock } from "../../store/fileLock.js"
import { graphVectorsFile, indexLock, replaceIndexFile } from "../../store/indexFiles.js"
import { openNoFollow } from "../../store/noFollow.js"
import { packSections, readLayout, useFileImage } from "../../search/binaryImage.js"
import { VectorIndex } from "../../search/VectorIndex.js"
import { rowVector } from "./rows.js"

export interface VectorImageFiles {
  /** The saved image (a cache: anything unreadable is ignored and rebuilt). */
  readonly file: string
  /** The lock its writes take (the retrieval index's: a hard delete removes the image under it). */
  readonly lock: string
}

/** A data dir's image files. */
export const vectorImageFiles = (dataDir: string): VectorImageFiles => ({ file: graphVectorsFile(dataDir), lock: indexLock(dataDir) })

interface Held {
  readonly version: number
  /** The node whose vector change made `version` (null when the log has no row for it). */
  readonly lastChange: string | null
  readonly modelId: string | null
  readonly index: VectorIndex | null
}

interface Meta {
  readonly version: number
  readonly lastChange: string | null
  readonly modelId: string | null
}

// "AGV1": a meta section (JSON) and the VectorIndex image.
const MAGIC = 0x31564741

// The image's rows stay in the file (held open) and a search reads them in chunks (VectorIndex): a one-shot
// process never holds the whole matrix; a warm one reads it in after a few searches.
const readImage = (file: string): Held | null => {
  try {
    return useFileImage(openNoFollow(file), (image, keep) => {
      const read = image.readAt
      const layout = readLayout(read, 0, MAGIC, 2)
      if (layout === null || layout.total !== image.size) return null
      const metaBytes = new Uint8Array(layout.lengths[0]!)
      if (read(metaBytes, layout.starts[0]!) !== metaBytes.length) return null
      const meta = JSON.parse(Buffer.from(metaBytes).toString("utf8")) as Meta
      if (typeof meta.version !== "number" || (meta.lastChange !== null && typeof meta.lastChange !== "string")) return null
      const rows = keep()
      const index = VectorIndex.readImage(read, layout.starts[1]!, layout.lengths[1]!, rows)
      if (index === null) rows.close()
      return index === null ? null : { version: meta.version, lastChange: meta.lastChange, modelId: meta.modelId ?? null, index }
    })
  } catch {
    return null
  }
}

interface VectorRow {
  readonly node_id: string
  readonly embedding: unknown
  readonly embed_dim: unknown
  readonly embed_model: string | null
}

/** Puts a row's vector into the index (made for its dimension), replacing its old one in place; false when the row is unusable. */
const put = (held: { index: VectorIndex | null }, r: VectorRow): boolean => {
  const dim = r.embed_dim
  const bytes = r.embedding
  if (typeof dim !== "number" || !Number.isInteger(dim) || dim <= 0 || !(bytes instanceof Uint8Array)) return false
  // The stored int8 bytes go in as they are; an older float32 row is decoded first.
  const compact = isCompact(bytes, dim)
  const v = compact ? null : rowVector(bytes, dim)
  if (!compact && v === null) return false
  held.index ??= new VectorIndex(dim)
  if (dim !== held.index.dim) return false
  if (v !== null) held.index.add(r.node_id, v)
  return v !== null || held.index.addCompact(r.node_id, bytes)
}

/**
 * `vectorsFor(modelId, stamp, saveImage)`: the index of every stored vector of that model (and of none), or null when
 * there are none. `stamp` is the store's change stamp: the same stamp as last time answers from memory. `saveImage`
 * false leaves the image as it is (a writer about to change the vectors: an image of the version before its own
 * change would be stale at once, and the next reader follows the log from the older one as well).
 */
export const makeVectorSource = (sql: SqlClient.SqlClient, files: VectorImageFiles | null) => {
  let held: Held | null = null
  let heldStamp: string | null = null
  // A writer read every row and saved nothing (saveImage false): the model it read for, saved after its commit.
  let unsavedFullRead: { readonly modelId: string | null } | null = null
  const ofModel = (modelId: string | null) => (modelId === null ? sql`1` : sql`(embed_model IS NULL OR embed_model = ${modelId})`)
  const versionNow = Effect.map(
    sql<{ value: string }>`SELECT value FROM meta WHERE key = 'vectors_version'`,
    ([row]) => Number(row?.value ?? 0)
  )
  const changeAt = (version: number) =>
    Effect.map(sql<{ node_id: string }>`SELECT node_id FROM vector_changes WHERE version = ${version}`, ([row]) => row?.node_id ?? null)

  const readAll = (modelId: string | null, version: number) =>
    Effect.gen(function* () {
      const rows = yield* sql<VectorRow>`SELECT node_id, embedding, embed_dim, embed_model FROM node_vectors WHERE ${ofModel(modelId)} ORDER BY rowid`
      const next: { index: VectorIndex | null } = { index: null }
      for (const r of rows) put(next, r)
      return { version, lastChange: yield* changeAt(version), modelId, index: next.index } satisfies Held
    })

  /** `from` brought to `version` through the change log, or null when the log does not reach back to it. */
  const follow = (from: Held, version: number) =>
    Effect.gen(function* () {
      const changed = yield* sql<{ node_id: string }>`SELECT node_id FROM vector_changes WHERE version > ${from.version} AND version <= ${version}
        ORDER BY version`
      if (changed.length !== version - from.version) return null
      const ids = [...new Set(changed.map((r) => r.node_id))]
      const rows = new Map<string, VectorRow>()
      for (let i = 0; i < ids.length; i += 500) {
        const part = ids.slice(i, i + 500)
        for (const r of yield* sql<VectorRow>`SELECT node_id, embedding, embed_dim, embed_model FROM node_vectors
          WHERE node_id IN ${sql.in(part)} AND ${ofModel(from.modelId)}`) rows.set(r.node_id, r)
      }
      const next: { index: VectorIndex | null } = { index: from.index }
      // A changed vector keeps its row (as a full read in rowid order would have it); a new one goes last.
      for (const id of ids) {
        const row = rows.get(id)
        if (row === undefined || !put(next, row)) next.index?.remove(id)
      }
      return { version, lastChange: yield* changeAt(version), modelId: from.modelId, index: next.index } satisfies Held
    })

  // Written only if the store is still at the version it reflects (checked under the lock a hard delete's
  // purge takes, after its delete committed): a deleted node's vector never lands in a new image.
  const save = (h: Held) =>
    files === null || h.index === null
      ? Effect.void
      : Effect.gen(function* () {
          const image = h.index!.toImage()
          if (image === null) return
          const meta: Meta = { version: h.version, lastChange: h.lastChange, modelId: h.modelId }
          const data = packSections(MAGIC, [Buffer.from(JSON.stringify(meta), "utf8"), image])
          yield* withFileLock(
            files.lock,
            Effect.gen(function* () {
              if ((yield* versionNow) !== h.version) return
              replaceIndexFile(files.file, data)
            })
          )
        }).pipe(Effect.ignore)

  // Searches (and reads) using each index now: one let go meanwhile closes when the last of them ends.
  const users = new Map<VectorIndex, number>()
  const letGo = new Set<VectorIndex>()
  const use = (index: VectorIndex | null) => {
    if (index !== null) users.set(index, (users.get(index) ?? 0) + 1)
    return index
  }
  const done = (index: VectorIndex | null) => {
    if (index === null) return
    const left = users.get(index)! - 1
    if (left > 0) return void users.set(index, left)
    users.delete(index)
    if (letGo.delete(index)) index.close()
  }

  /** The index (see vectorsFor), counted as in use by the caller when `take` (given back with done). */
  const indexFor = (modelId: string | null, stamp: string, saveImage: boolean, take: boolean) =>
    Effect.gen(function* () {
      if (held !== null && held.modelId === modelId && heldStamp === stamp) return take ? use(held.index) : held.index
      const version = yield* versionNow
      let from = held !== null && held.modelId === modelId ? held : null
      if (from === null && files !== null) {
        const saved = readImage(files.file)
        if (saved !== null && saved.modelId === modelId && saved.version <= version) from = saved
      }
      // Kept open while the log is followed from it, though release() comes meanwhile.
      const pinned = use(from?.index ?? null)
      return yield* Effect.gen(function* () {
        // The log's entry at the version held names the same node, or this is another history (a replaced file).
        if (from !== null && (yield* changeAt(from.version)) !== from.lastChange) from = null
        let next = from !== null && from.version === version ? from : null
        const changed = next === null
        if (next === null && from !== null) next = yield* follow(from, version)
        const fullRead = next === null
        if (next === null) next = yield* readAll(modelId, version)
        // An index let go while this ran serves this caller only (closed after), and is not held.
        if (next.index === null || !letGo.has(next.index)) {
          held = next
          heldStamp = stamp
        }
        const index = take ? use(next.index) : next.index
        if (changed && saveImage) yield* save(next)
        if (fullRead && !saveImage) unsavedFullRead = { modelId }
        return index
      }).pipe(Effect.ensuring(Effect.sync(() => done(pinned))))
    })

  const vectorsFor = (modelId: string | null, stamp: string, saveImage: boolean = true) => indexFor(modelId, stamp, saveImage, false)

  /**
   * After a writer's commit: when the write had to read every vector (no usable image), the image is brought
   * to the committed version (the writer's own changes, through the log) and saved, so the next writer of a
   * data dir no reader has opened yet (a fresh import, after a hard delete) does not read every row again.
   */
  const saveAfterWrite = (stamp: string) =>
    Effect.suspend(() => {
      const pending = unsavedFullRead
      unsavedFullRead = null
      return pending === null ? Effect.void : Effect.asVoid(vectorsFor(pending.modelId, stamp, true))
    })

  /** `use` with the index vectorsFor gives, which stays open until `use` ends even if release() comes meanwhile. */
  const withVectors = <A, E, R>(
    modelId: string | null,
    stamp: string,
    saveImage: boolean,
    body: (index: VectorIndex | null) => Effect.Effect<A, E, R>
  ) => Effect.acquireUseRelease(indexFor(modelId, stamp, saveImage, true), body, (index) => Effect.sync(() => done(index)))

  /** Drops the vectors held (the image file they are read from goes back once no search reads it): after a delete elsewhere. */
  const release = () => {
    const index = held?.index ?? null
    held = null
    heldStamp = null
    if (index === null) return
    if (users.has(index)) letGo.add(index)
    else index.close()
  }

  return { vectorsFor, withVectors, saveAfterWrite, release }
}
