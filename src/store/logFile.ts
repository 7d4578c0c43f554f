import { createHash } from "node:crypto"
import * as fs from "node:fs"
import { Schema } from "effect"
import { RawLogEntry } from "../domain/Message.js"
import { READ_NOFOLLOW, readFileNoFollow } from "./noFollow.js"

// Low-level reading of one session's JSONL log, shared by RawLogLive and status counting.

const NEWLINE = 0x0a
const decodeLine = Schema.decodeUnknownEither(RawLogEntry)

/** What parsing a log file found: the good entries and how many damaged lines were skipped. */
export interface ParsedLog {
  readonly entries: Array<RawLogEntry>
  readonly damagedLines: Array<number>
}

/** Splits a buffer into lines at "\n" bytes (so a multi-byte character is never cut). */
const splitLines = (buf: Buffer): Array<Buffer> => {
  const lines: Array<Buffer> = []
  let start = 0
  for (let i = buf.indexOf(NEWLINE); i !== -1; i = buf.indexOf(NEWLINE, start)) {
    lines.push(buf.subarray(start, i))
    start = i + 1
  }
  if (start < buf.length) lines.push(buf.subarray(start))
  return lines
}

/**
 * Parses one line. Lines written by the reference have no `index`: they get `fallbackIndex`
 * (the reference numbered messages by line position).
 */
const parseLine = (line: Buffer, fallbackIndex: number): RawLogEntry | null => {
  const text = line.toString("utf8").trim()
  if (text === "") return null
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return null
  }
  if (typeof json === "object" && json !== null && !Array.isArray(json) && !("index" in json)) {
    json = { ...json, index: fallbackIndex }
  }
  const decoded = decodeLine(json)
  return decoded._tag === "Right" ? decoded.right : null
}

/** Parses a whole log; blank lines are ignored, damaged ones (a torn write) are reported by line number. */
export const parseLog = (buf: Buffer): ParsedLog => {
  const entries: Array<RawLogEntry> = []
  const damagedLines: Array<number> = []
  splitLines(buf).forEach((line, i) => {
    if (line.toString("utf8").trim() === "") return
    const last = entries[entries.length - 1]
    const entry = parseLine(line, last === undefined ? 0 : last.index + 1)
    if (entry === null) damagedLines.push(i + 1)
    else entries.push(entry)
  })
  return { entries, damagedLines }
}

/** Reads a log file; a missing file is an empty log. */
export const readLogFile = (file: string): ParsedLog => {
  let buf: Buffer
  try {
    buf = readFileNoFollow(file)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { entries: [], damagedLines: [] }
    throw e
  }
  return parseLog(buf)
}

/** Where the next append goes: the next free index and whether the file lacks a final newline (torn line). */
export interface LogTail {
  readonly nextIndex: number
  readonly needsNewline: boolean
}

const TAIL_CHUNK = 64 * 1024

/**
 * Finds the next message index by reading only the end of the file (doubling the window until a whole
 * line is seen), so appending to a big log stays cheap. Falls back to a full parse for reference-format
 * lines, which carry no index.
 */
export const readLogTail = (file: string): LogTail => {
  let fd: number
  try {
    fd = fs.openSync(file, READ_NOFOLLOW)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { nextIndex: 0, needsNewline: false }
    throw e
  }
  try {
    const size = fs.fstatSync(fd).size
    if (size === 0) return { nextIndex: 0, needsNewline: false }
    let window = Math.min(TAIL_CHUNK, size)
    for (;;) {
      const start = size - window
      const buf = Buffer.alloc(window)
      fs.readSync(fd, buf, 0, window, start)
      const needsNewline = buf[buf.length - 1] !== NEWLINE
      const lines = splitLines(buf)
      // The first line of a window that does not start the file may be cut: never trust it.
      const firstTrusted = start === 0 ? 0 : 1
      for (let i = lines.length - 1; i >= firstTrusted; i--) {
        const line = lines[i]!
        if (line.toString("utf8").trim() === "") continue
        let json: unknown
        try {
          json = JSON.parse(line.toString("utf8"))
        } catch {
          continue // a torn line: look further back
        }
        if (typeof json === "object" && json !== null && "index" in json && Number.isInteger(json.index)) {
          return { nextIndex: (json.index as number) + 1, needsNewline }
        }
        // A reference-format line (no index): numbering is positional, so count from the start.
        const { entries } = readLogFile(file)
        const last = entries[entries.length - 1]
        return { nextIndex: last === undefined ? 0 : last.index + 1, needsNewline }
      }
      if (start === 0) return { nextIndex: 0, needsNewline }
      window = Math.min(window * 2, size)
    }
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * Counts the messages of a log without parsing JSON: complete lines that end with "}". Cheap enough for
 * `status` on big logs; a torn line (a crash mid-write) does not count.
 */
export const countLogMessages = (file: string): number => {
  let buf: Buffer
  try {
    buf = readFileNoFollow(file)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return 0
    throw e
  }
  let count = 0
  let start = 0
  for (let i = buf.indexOf(NEWLINE); i !== -1; i = buf.indexOf(NEWLINE, start)) {
    let end = i - 1
    while (end >= start && (buf[end] === 0x20 || buf[end] === 0x0d || buf[end] === 0x09)) end--
    if (end >= start && buf[end] === 0x7d /* } */) count++
    start = i + 1
  }
  return count
}

/** Reads the first line of a file (the session id of a hashed log name lives there). */
export const readFirstLine = (file: string, max = 1024 * 1024): string => {
  const fd = fs.openSync(file, READ_NOFOLLOW)
  try {
    const chunks: Array<Buffer> = []
    let pos = 0
    while (pos < max) {
      const buf = Buffer.alloc(16 * 1024)
      const n = fs.readSync(fd, buf, 0, buf.length, pos)
      if (n === 0) break
      const chunk = buf.subarray(0, n)
      const nl = chunk.indexOf(NEWLINE)
      if (nl !== -1) {
        chunks.push(chunk.subarray(0, nl))
        break
      }
      chunks.push(chunk)
      pos += n
    }
    return Buffer.concat(chunks).toString("utf8")
  } finally {
    fs.closeSync(fd)
  }
}

/** What reading a log from a position found: the entries after it, where it now stands, and whether it read the whole log. */
export interface LogRead extends ParsedLog {
  /** Where the next read continues (opaque: the file's identity, how far it was read, a digest of those bytes). */
  readonly at: string
  /** True when the whole log was parsed (no position, or the file shrank or changed before it). */
  readonly whole: boolean
}

interface Position {
  readonly file: string
  readonly offset: number
  readonly lines: number
  readonly lastIndex: number
  readonly digest: string
}

const encodePosition = (p: Position): string => `${p.file}|${p.offset}|${p.lines}|${p.lastIndex}|${p.digest}`

const decodePosition = (s: string | null): Position | null => {
  const parts = (s ?? "").split("|")
  if (parts.length !== 5) return null
  const [file, offset, lines, lastIndex, digest] = [parts[0]!, Number(parts[1]), Number(parts[2]), Number(parts[3]), parts[4]!]
  return Number.isInteger(offset) && offset >= 0 && Number.isInteger(lines) && Number.isInteger(lastIndex) ? { file, offset, lines, lastIndex, digest } : null
}

/**
 * Reads a log from where an earlier read stood (`at`), parsing only the whole lines appended since; the whole
 * log when `at` is null or the file is shorter or not the same bytes up to the position (a digest of them,
 * hashed far faster than lines are parsed). Another file with the same bytes up to a position past its start
 * (the log of a copied or restored data dir, or one replaced by a copy of itself) reads on from there too.
 * A missing file is an empty log. Damaged line numbers count from the file's start.
 */
export const readLogFrom = (file: string, at: string | null): LogRead => {
  let buf: Buffer
  let id: string
  try {
    const fd = fs.openSync(file, READ_NOFOLLOW)
    try {
      const st = fs.fstatSync(fd)
      id = `${st.dev}.${st.ino}`
      buf = fs.readFileSync(fd)
    } finally {
      fs.closeSync(fd)
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e
    id = "none"
    buf = Buffer.alloc(0)
  }
  const from = decodePosition(at)
  const hash = createHash("sha1")
  let resume = false
  if (from !== null && (from.file === id || from.offset > 0) && from.offset <= buf.length) {
    hash.update(buf.subarray(0, from.offset))
    resume = hash.copy().digest("hex") === from.digest
  }
  const start = resume ? from!.offset : 0
  const digest = resume ? hash : createHash("sha1")
  // Only whole lines: a writer may be mid-line (the rest is read next time).
  const end = start + buf.subarray(start).lastIndexOf(NEWLINE) + 1
  const entries: Array<RawLogEntry> = []
  const damagedLines: Array<number> = []
  const firstLine = resume ? from!.lines : 0
  let lastIndex = resume ? from!.lastIndex : -1
  const lines = end > start ? splitLines(buf.subarray(start, end)) : []
  lines.forEach((line, i) => {
    if (line.toString("utf8").trim() === "") return
    const entry = parseLine(line, lastIndex + 1)
    if (entry === null) damagedLines.push(firstLine + i + 1)
    else {
      entries.push(entry)
      lastIndex = entry.index
    }
  })
  digest.update(buf.subarray(start, end))
  return {
    entries,
    damagedLines,
    at: encodePosition({ file: id, offset: end, lines: firstLine + lines.length, lastIndex, digest: digest.digest("hex") }),
    whole: !resume
  }
}
