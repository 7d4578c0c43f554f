import { createHmac, randomBytes, randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { acquireLockSync } from "./fileLock.js"
import { appendNoFollow, readFileNoFollow } from "./noFollow.js"
import { ensurePrivateDir } from "./privateDir.js"
import type { DataPaths } from "./paths.js"

/** Whitespace- and case-normalized text: what "the same content" means for deletion. */
export const normalizeContent = (text: string): string => text.replace(/\s+/g, " ").trim().toLowerCase()

/**
 * The data directory's tombstone salt (32 random bytes, hex), created once. Created by hard-linking a
 * complete temp file into place, so concurrent first deletes agree on one salt.
 */
export const tombstoneSalt = (paths: DataPaths): string => {
  const read = () => readFileNoFollow(paths.salt).toString("utf8").trim()
  try {
    return read()
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e
  }
  ensurePrivateDir(paths.meta)
  const tmp = path.join(paths.meta, `.tombstone_salt.${process.pid}.${Date.now()}.${randomBytes(4).toString("hex")}.tmp`)
  fs.writeFileSync(tmp, randomBytes(32).toString("hex") + "\n", { mode: 0o600, flag: "wx" })
  try {
    fs.linkSync(tmp, paths.salt)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e
  } finally {
    fs.rmSync(tmp, { force: true })
  }
  return read()
}

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
