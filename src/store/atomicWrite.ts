import * as fs from "node:fs"
import * as path from "node:path"
import { ensurePrivateDir } from "./privateDir.js"

let counter = 0

/**
 * Writes `data` to a new temp file in `dir` and fsyncs it; the caller renames or links it into place.
 * Private (a private folder, an owner-only file) unless `mode` is given: see atomicWriteFileSync.
 */
export const writeSyncedTempSync = (dir: string, stem: string, data: string | Uint8Array, mode?: number): string => {
  if (mode === undefined) ensurePrivateDir(dir)
  else fs.mkdirSync(dir, { recursive: true })
  const tmp = path.join(dir, `.${stem}.${process.pid}.${Date.now()}.${counter++}.tmp`)
  const fd = fs.openSync(tmp, "wx", mode ?? 0o600)
  try {
    // Exactly this mode, whatever the umask (the file it replaces had it).
    if (mode !== undefined) fs.fchmodSync(fd, mode)
    fs.writeFileSync(fd, data)
    fs.fsyncSync(fd)
  } catch (e) {
    // A full disk: the half-written temp file would only hold on to the space.
    fs.closeSync(fd)
    fs.rmSync(tmp, { force: true })
    throw e
  }
  fs.closeSync(fd)
  return tmp
}

/**
 * Replaces `file` with `data` atomically: write a temp file beside it, fsync, rename over, fsync the
 * folder. A crash leaves either the old or the new content, never a mix. `mode` is for a file outside
 * the data dir (a Claude Code settings file): its folder is taken as it is, and the file gets this mode
 * instead of owner-only.
 */
export const atomicWriteFileSync = (file: string, data: string | Uint8Array, mode?: number): void => {
  const dir = path.dirname(file)
  const tmp = writeSyncedTempSync(dir, path.basename(file), data, mode)
  try {
    fs.renameSync(tmp, file)
  } catch (e) {
    fs.rmSync(tmp, { force: true })
    throw e
  }
  try {
    const dfd = fs.openSync(dir, "r")
    try {
      fs.fsyncSync(dfd)
    } finally {
      fs.closeSync(dfd)
    }
  } catch {
    // fsync on a directory is not supported everywhere; the rename itself is still atomic.
  }
}
