import * as fs from "node:fs"
import * as path from "node:path"
import { atomicWriteFileSync } from "./atomicWrite.js"
import { acquireLockSync } from "./fileLock.js"
import { readFileNoFollow } from "./noFollow.js"
import type { DataPaths } from "./paths.js"
import { ensurePrivateDir } from "./privateDir.js"
import { scrubSnapshotFileSync } from "./snapshotFile.js"
import { contentHash, normalizeContent, tombstoneSalt } from "./tombstones.js"

// AWHM Lite's tombstones keep `content_hash_hint`: the first 64 characters of the deleted text, normalized,
// in plain form; and its WAL files of sessions that never ended keep what a delete took out of the buffer
// in memory only. Once, on the first open of such a data dir: every WAL entry and snapshot copy of a
// deleted text goes, then each hint becomes a salted hash like awhm's own tombstones. Files that cannot
// be read or parsed are left exactly as they are.

/** Python's `_normalize_text(text)[:64]`: what the reference kept of a deleted text. */
const liteHint = (text: string): string => Array.from(normalizeContent(text)).slice(0, 64).join("")

const marker = (paths: DataPaths) => path.join(paths.meta, ".lite-tombstones-checked")

interface LiteTombstone {
  readonly line: number
  readonly record: Record<string, unknown> & { readonly content_hash_hint: string }
}

const readText = (file: string): string | null => {
  try {
    return readFileNoFollow(file).toString("utf8")
  } catch {
    return null
  }
}

/** The tombstone lines with a plaintext hint (the rest of the file stays as it is). */
const liteTombstones = (lines: ReadonlyArray<string>): Array<LiteTombstone> => {
  const out: Array<LiteTombstone> = []
  lines.forEach((text, line) => {
    let record: unknown
    try {
      record = JSON.parse(text)
    } catch {
      return
    }
    if (typeof record !== "object" || record === null || Array.isArray(record)) return
    if (typeof (record as { content_hash_hint?: unknown }).content_hash_hint !== "string") return
    out.push({ line, record: record as LiteTombstone["record"] })
  })
  return out
}

/** Removes the entries matching `deleted` from one WAL file (a JSON array), under the session's WAL lock. */
const scrubWalFile = (paths: DataPaths, name: string, deleted: (content: string) => boolean): boolean => {
  const file = path.join(paths.wal, name)
  const release = acquireLockSync(path.join(paths.locks, `wal-${name.slice(0, -".wal".length)}.lock`))
  try {
    const text = readText(file)
    if (text === null) return false
    let entries: unknown
    try {
      entries = JSON.parse(text)
    } catch {
      return false
    }
    if (!Array.isArray(entries)) return false
    const kept = entries.filter((e) => !(typeof e === "object" && e !== null && typeof e.content === "string" && deleted(e.content)))
    if (kept.length === entries.length) return false
    atomicWriteFileSync(file, JSON.stringify(kept))
    return true
  } finally {
    release()
  }
}

const listDir = (dir: string): Array<string> => {
  try {
    return fs.readdirSync(dir)
  } catch {
    return []
  }
}

export interface LiteDeletionsImport {
  readonly tombstones: number
  readonly walFiles: number
  readonly snapshots: number
}

/**
 * Rewrites AWHM Lite's plaintext tombstones to salted hashes, after scrubbing the texts they name from every
 * WAL file and snapshot. Cheap when nothing changed: the tombstones file is read only when it changed since
 * the last look. Returns what was rewritten.
 */
export const importLiteDeletions = (paths: DataPaths): LiteDeletionsImport => {
  const none = { tombstones: 0, walFiles: 0, snapshots: 0 }
  let changed: number
  try {
    changed = fs.statSync(paths.tombstones).mtimeMs
  } catch {
    return none
  }
  try {
    if (fs.statSync(marker(paths)).mtimeMs >= changed) return none
  } catch {
    // never looked
  }
  const release = acquireLockSync(path.join(paths.locks, "deletion-records.lock"))
  try {
    const text = readText(paths.tombstones)
    if (text === null) return none
    const lines = text.split("\n")
    const found = liteTombstones(lines)
    let walFiles = 0
    let snapshots = 0
    if (found.length > 0) {
      // Scrubbed first: the hints are what finds the copies, so they go last.
      const hints = new Set(found.map((t) => t.record.content_hash_hint))
      const nodeIds = new Set(found.map((t) => t.record.node_id).filter((id): id is string => typeof id === "string"))
      const deleted = (content: string) => hints.has(liteHint(content))
      for (const name of listDir(paths.wal)) if (name.endsWith(".wal") && scrubWalFile(paths, name, deleted)) walFiles++
      for (const name of listDir(paths.snapshots)) {
        if (!name.startsWith("snapshot_") || !name.endsWith(".json")) continue
        const outcome = scrubSnapshotFileSync(path.join(paths.snapshots, name), (n) => nodeIds.has(n.id) || deleted(n.content), (e) => deleted(e.content))
        if (outcome === "touched") snapshots++
      }
      const salt = tombstoneSalt(paths)
      for (const { line, record } of found) {
        const { content_hash_hint, ...rest } = record
        // A hash of what the reference kept: the whole text when it was at most 64 characters long.
        lines[line] = JSON.stringify({ ...rest, content_hash: contentHash(salt, content_hash_hint), imported_from: "awhm-lite" })
      }
      atomicWriteFileSync(paths.tombstones, lines.join("\n"))
    }
    try {
      ensurePrivateDir(paths.meta)
      fs.writeFileSync(marker(paths), "", { mode: 0o600 })
    } catch {
      // looked again next time
    }
    return { tombstones: found.length, walFiles, snapshots }
  } finally {
    release()
  }
}
