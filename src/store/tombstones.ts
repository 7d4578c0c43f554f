import { createHmac, randomUUID } from "node:crypto"
import * as path from "node:path"
import { acquireLockSync } from "./fileLock.js"
import { appendNoFollow } from "./noFollow.js"
import { ensurePrivateDir } from "./privateDir.js"
import type { DataPaths } from "./paths.js"
import { readOrCreateSecret } from "./secretFile.js"

/** Whitespace- and case-normalized text: what "the same content" means for deletion. */
export const normalizeContent = (text: string): string => text.replace(/\s+/g, " ").trim().toLowerCase()

/** The data directory's tombstone salt: a secret of the data dir (see secretFile.ts), created once. */
export const tombstoneSalt = (paths: DataPaths): string => readOrCreateSecret(paths.salt)

/** HMAC-SHA256 of the normalized content under the salt: proves "this text was deleted" without keeping it. */
export const contentHash = (salt: string, content: string): string =>
  "hmac-sha256:" + createHmac("sha256", salt).update(normalizeContent(content), "utf8").digest("hex")

export const newRecordId = (): string => randomUUID()

/** Appends JSON lines to meta files under one lock (tombstones and ledger are written together). */
export const appendDeletionRecords = (
  paths: DataPaths,
  records: ReadonlyArray<readonly [file: string, record: Record<string, unknown>]>
): void => {
  ensurePrivateDir(paths.meta)
  const release = acquireLockSync(path.join(paths.locks, "deletion-records.lock"))
  try {
    for (const [file, record] of records) appendNoFollow(file, JSON.stringify(record) + "\n")
  } finally {
    release()
  }
}

/** The records of JSON lines (blank lines and lines that are not records left out). */
export const parseRecords = <A>(text: string, id: (record: A) => unknown): Array<A> =>
  text.split("\n").flatMap((line) => {
    if (line.trim() === "") return []
    try {
      const record = JSON.parse(line) as A
      return typeof id(record) === "string" ? [record] : []
    } catch {
      return []
    }
  })
