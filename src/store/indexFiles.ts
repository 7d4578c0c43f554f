import * as fs from "node:fs"
import * as path from "node:path"
import { deletionStamp, endDeletion } from "./deletionNotices.js"
import { acquireLockSync } from "./fileLock.js"
import { dataPaths } from "./paths.js"
import { ensurePrivateDir } from "./privateDir.js"

/** The folder of the retrieval cache (rebuilt from the logs and the graph when missing). */
export const indexDir = (dataDir: string): string => path.join(dataDir, "index")

/** The lock every write under index/ takes (and a hard delete's purge of it). */
export const indexLock = (dataDir: string): string => path.join(dataPaths(dataDir).locks, "index.lock")

/** The graph store's vectors as one image (GraphStoreSqlite), opened without reading every row. */
export const graphVectorsFile = (dataDir: string): string => path.join(indexDir(dataDir), "graph-vectors.bin")

/**
 * Runs an index write under the index lock, unless a delete began or ended since `stamp` (deletionStamp,
 * read before the stores were): what was read before may hold deleted text, so the write is dropped (the
 * cache is rebuilt later). Returns whether it ran.
 */
export const writeIndexUnlessDeleted = (dataDir: string, stamp: number, write: () => void): boolean => {
  const release = acquireLockSync(indexLock(dataDir))
  try {
    if (deletionStamp(dataPaths(dataDir)) !== stamp) return false
    write()
    return true
  } finally {
    release()
  }
}

/**
 * A hard delete's last step: no index record of the deleted text, its tokens or its vector may remain, so
 * the cache goes (the next query rebuilds it from the scrubbed stores). Under the index lock and together
 * with the end of the delete's notice, so an index write that read the stores before the delete cannot land
 * after it (writeIndexUnlessDeleted sees the stamp moved).
 */
export const purgeRetrievalIndex = (dataDir: string, deletionId: string): void => {
  const release = acquireLockSync(indexLock(dataDir))
  try {
    fs.rmSync(indexDir(dataDir), { recursive: true, force: true })
    endDeletion(dataPaths(dataDir), deletionId)
  } finally {
    release()
  }
}

let tmpCounter = 0

/** Replaces a cache file under index/ (temp file beside it, then rename). No fsync: a torn cache fails to parse and is rebuilt. */
export const replaceIndexFile = (file: string, data: string | Uint8Array): void => {
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
