import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { READ_NOFOLLOW } from "./noFollow.js"
import { ensurePrivateDir } from "./privateDir.js"

// Secrets of a data dir (the tombstone salt, the hook token): 32 random bytes in hex, owner-only.

/** Reads a secret file; null when it is missing, not a regular file of this user's, or readable by others. */
export const readSecret = (file: string): string | null => {
  let fd: number
  try {
    fd = fs.openSync(file, READ_NOFOLLOW)
  } catch {
    return null
  }
  try {
    const st = fs.fstatSync(fd)
    const uid = typeof process.getuid === "function" ? process.getuid() : st.uid
    if (!st.isFile() || st.uid !== uid || (st.mode & 0o077) !== 0) return null
    const text = fs.readFileSync(fd, "utf8").trim()
    return text === "" ? null : text
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * The secret in `file`, created once. Created by hard-linking a complete temp file into place, so
 * concurrent first users agree on one secret.
 */
export const readOrCreateSecret = (file: string): string => {
  const existing = readSecret(file)
  if (existing !== null) return existing
  const dir = ensurePrivateDir(path.dirname(file))
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${Date.now()}.${randomBytes(4).toString("hex")}.tmp`)
  fs.writeFileSync(tmp, randomBytes(32).toString("hex") + "\n", { mode: 0o600, flag: "wx" })
  try {
    fs.linkSync(tmp, file)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e
  } finally {
    fs.rmSync(tmp, { force: true })
  }
  const created = readSecret(file)
  if (created === null) throw new Error(`${file} is not a private file of this user's (chmod 600 it)`)
  return created
}
