import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { acquireLockSync } from "./fileLock.js"
import type { DataPaths } from "./paths.js"
import { contentHash, tombstoneSalt } from "./tombstones.js"

// `meta/deletion_notices.jsonl`: how a hard delete reaches processes that hold memory (MCP and hook servers,
// library sessions). A delete appends `{"begin":id,"messages":[[session,index]…],"content_hashes":[…]}`
// before it scrubs anything and `{"end":id}` once everything is scrubbed. Never text: message refs and
// salted hashes, like the tombstones. The file only grows, so its size is a cheap deletion stamp: a process
// compares one stat() with the size it last read before each answer and each write.

const noticesFile = (paths: DataPaths) => path.join(paths.meta, "deletion_notices.jsonl")
const noticesLock = (paths: DataPaths) => path.join(paths.locks, "deletion-notices.lock")

/** The deletion stamp: changes whenever a delete begins or ends. */
export const deletionStamp = (paths: DataPaths): number => {
  try {
    return fs.statSync(noticesFile(paths)).size
  } catch {
    return 0
  }
}

const append = (paths: DataPaths, record: Record<string, unknown>): void => {
  fs.mkdirSync(paths.meta, { recursive: true })
  const release = acquireLockSync(noticesLock(paths))
  try {
    const fd = fs.openSync(noticesFile(paths), "a", 0o600)
    try {
      fs.writeSync(fd, JSON.stringify(record) + "\n")
      fs.fsyncSync(fd)
    } finally {
      fs.closeSync(fd)
    }
  } finally {
    release()
  }
}

// Deletes this process makes: it scrubs its own memory as it goes (with the counts it reports).
const begunHere = new Set<string>()

/** Announces a delete before anything is scrubbed; returns its id for endDeletion. */
export const beginDeletion = (paths: DataPaths, messages: ReadonlyArray<readonly [string, number]>, texts: ReadonlyArray<string>): string => {
  const id = randomUUID()
  begunHere.add(id)
  const salt = tombstoneSalt(paths)
  append(paths, { begin: id, messages, content_hashes: Array.from(new Set(texts.map((t) => contentHash(salt, t)))) })
  return id
}

/** Marks a delete as done: every file is scrubbed, so its texts need no longer be watched for. */
export const endDeletion = (paths: DataPaths, id: string): void => append(paths, { end: id })

const refKey = (sessionId: string, index: number) => `${index}:${sessionId}`

/**
 * What a long-lived process has learnt of deletes. Deleted messages are remembered for good; deleted texts
 * only while their delete is under way (afterwards no file holds them, and saying the same thing again is a
 * new memory).
 */
export class DeletionWatch {
  private offset = 0
  private readonly messages = new Set<string>()
  private readonly pending = new Map<string, ReadonlySet<string>>()
  private salt: string | null = null

  constructor(private readonly paths: DataPaths) {}

  /**
   * Reads what was appended since the last call (one stat() when nothing was). Returns null when no delete
   * began since, else the test for what this process holds now: deleted messages, and the texts of the deletes
   * begun since (checked once even if they have ended already).
   */
  poll(): ((sessionId: string, sourceMsg: number, content: string) => boolean) | null {
    const size = deletionStamp(this.paths)
    if (size === this.offset) return null
    let bytes: Buffer
    try {
      const fd = fs.openSync(noticesFile(this.paths), "r")
      try {
        bytes = Buffer.alloc(Math.max(0, size - this.offset))
        bytes = bytes.subarray(0, fs.readSync(fd, bytes, 0, bytes.length, this.offset))
      } finally {
        fs.closeSync(fd)
      }
    } catch {
      return null
    }
    // Up to the last complete line: a line being appended is read next time.
    const complete = bytes.lastIndexOf(0x0a) + 1
    this.offset += complete
    const begun = new Set<string>()
    let anyBegun = false
    for (const line of bytes.subarray(0, complete).toString("utf8").split("\n")) {
      let record: { begin?: unknown; end?: unknown; messages?: unknown; content_hashes?: unknown }
      try {
        record = JSON.parse(line) as typeof record
      } catch {
        continue
      }
      if (typeof record.begin === "string" && !begunHere.has(record.begin)) {
        for (const m of Array.isArray(record.messages) ? record.messages : []) {
          if (Array.isArray(m) && typeof m[0] === "string" && typeof m[1] === "number") this.messages.add(refKey(m[0], m[1]))
        }
        const hashes = (Array.isArray(record.content_hashes) ? record.content_hashes : []).filter((h): h is string => typeof h === "string")
        for (const h of hashes) begun.add(h)
        anyBegun = true
        this.pending.set(record.begin, new Set(hashes))
      } else if (typeof record.end === "string") {
        this.pending.delete(record.end)
      }
    }
    if (!anyBegun) return null
    return (sessionId, sourceMsg, content) => {
      if (this.messages.has(refKey(sessionId, sourceMsg))) return true
      const h = this.hashOf(content)
      return h !== null && begun.has(h)
    }
  }

  private hashOf(content: string): string | null {
    if (this.salt === null) {
      try {
        this.salt = fs.readFileSync(this.paths.salt, "utf8").trim()
      } catch {
        return null
      }
    }
    return contentHash(this.salt, content)
  }

  /** Whether an entry is deleted: its source message is, or its text is that of a delete still under way. */
  isDeleted(sessionId: string, sourceMsg: number, content: string): boolean {
    if (this.messages.has(refKey(sessionId, sourceMsg))) return true
    if (this.pending.size === 0) return false
    const h = this.hashOf(content)
    if (h === null) return false
    for (const hashes of this.pending.values()) if (hashes.has(h)) return true
    return false
  }
}
