// The raw log's change journal, `<data-dir>/meta/log-changes`: every write through RawLogLive (an append,
// a removal, a copy) adds its session id as one JSON line after the log itself is written. A reader that
// remembers where it stood learns which sessions changed since by reading the new lines, instead of
// stating every session's log. The first line is the journal's random id: a journal replaced (rotated,
// removed, recreated) is a new id, and its readers list every session again. A change the journal cannot
// vouch for (the logs folder itself changed: a log created, removed or renamed, by anyone) does the same.
// A log that an append created is vouched for: the writer adds the folder's stamps from just before and
// just after it created the file, and a reader whose folder stamp those steps lead to the current one needs
// no listing (each new Claude Code session's first prompt would otherwise list every log).
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { appendNoFollow, READ_NOFOLLOW } from "./noFollow.js"
import { ensurePrivateDir } from "./privateDir.js"

/** Past this size the next writer starts a new journal (its readers list every session once). */
const ROTATE_AT = 1 << 20

const journalFile = (metaDir: string) => path.join(metaDir, "log-changes")

const freshJournal = (file: string, replace: boolean): void => {
  ensurePrivateDir(path.dirname(file))
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`
  fs.writeFileSync(tmp, `#${randomBytes(12).toString("hex")}\n`, { mode: 0o600, flag: "wx" })
  try {
    if (replace) fs.renameSync(tmp, file)
    else fs.linkSync(tmp, file) // fails when another writer created it first: theirs is kept
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e
  } finally {
    fs.rmSync(tmp, { force: true })
  }
}

/** What an append that created a session's log tells the journal: the logs folder and its stamp just before. */
export interface CreatedLog {
  readonly logsDir: string
  readonly before: string
}

/**
 * Records that a session's log changed (after the log was written); `created` when this write created the
 * log, so readers need not list every session for it. Never fails the write it follows: a journal that
 * cannot take the line is removed, so every reader lists all sessions again.
 */
export const noteLogChange = (metaDir: string, sessionId: string, created?: CreatedLog): void => {
  const file = journalFile(metaDir)
  try {
    let size = -1
    try {
      size = fs.statSync(file).size
    } catch {
      freshJournal(file, false)
    }
    if (size > ROTATE_AT) freshJournal(file, true)
    // One write for both lines, so a reader never sees the folder step without the session it is for.
    const step = created === undefined ? "" : JSON.stringify({ folder: [created.before, logsFolderStamp(created.logsDir)] }) + "\n"
    appendNoFollow(file, JSON.stringify(sessionId) + "\n" + step)
  } catch {
    try {
      fs.rmSync(file, { force: true })
    } catch {
      // Nothing more can be done; readers still list every session after `FULL_LISTING_MS` (retriever).
    }
  }
}

/** Sessions changed since `mark` (null: unknown, list them all), and the mark to pass next time. */
export interface LogChanges {
  readonly mark: string
  readonly sessions: ReadonlyArray<string> | null
  /**
   * When `sessions` is null only because the logs folder changed (a log created, removed or renamed) while
   * the journal ran on: the sessions it names, which a reader may take first and list the others later.
   */
  readonly named?: ReadonlyArray<string>
}

/** The logs folder's identity and modification time ("none" when it does not exist). */
export const logsFolderStamp = (logsDir: string): string => {
  const st = fs.statSync(logsDir, { bigint: true, throwIfNoEntry: false })
  return st === undefined ? "none" : `${st.ino}.${st.mtimeNs}`
}

/** Whether the folder's recorded steps lead from `from` to `to`: every change between them was a log an append created. */
const reaches = (steps: ReadonlyMap<string, ReadonlyArray<string>>, from: string, to: string): boolean => {
  const seen = new Set([from])
  const todo = [from]
  while (todo.length > 0) {
    for (const after of steps.get(todo.pop()!) ?? []) {
      if (after === to) return true
      if (!seen.has(after)) {
        seen.add(after)
        todo.push(after)
      }
    }
  }
  return false
}

/** Reads the journal from where `mark` stood. */
export const logChangesSince = (metaDir: string, logsDir: string, mark: string | null): LogChanges => {
  const folder = logsFolderStamp(logsDir)
  let fd: number
  try {
    fd = fs.openSync(journalFile(metaDir), READ_NOFOLLOW)
  } catch {
    // No journal yet (nothing written through awhm since the data dir was made): nothing changed while the
    // folder did not; the first write creates the journal, a new id, so readers list every session then.
    const none = `${folder}|none|0`
    return { mark: none, sessions: mark === none ? [] : null }
  }
  try {
    const size = fs.fstatSync(fd).size
    const head = Buffer.alloc(Math.min(size, 64))
    fs.readSync(fd, head, 0, head.length, 0)
    const newline = head.indexOf(10)
    if (head[0] !== 35 || newline < 0) return { mark: `${folder}|none|0`, sessions: null }
    const id = head.toString("latin1", 1, newline)
    const [oldFolder, oldId, oldAt] = (mark ?? "").split("|")
    const from = Number(oldAt)
    if (mark === null || oldId !== id || !(from >= newline + 1) || from > size) {
      return { mark: `${folder}|${id}|${size}`, sessions: null }
    }
    const tail = Buffer.alloc(size - from)
    const got = fs.readSync(fd, tail, 0, tail.length, from)
    // Only whole lines: a writer may be mid-line.
    const end = tail.subarray(0, got).lastIndexOf(10) + 1
    const sessions = new Set<string>()
    // The folder's steps that appends creating a log took: before → after.
    const steps = new Map<string, Array<string>>()
    for (const line of tail.toString("utf8", 0, end).split("\n")) {
      if (line === "") continue
      try {
        const parsed = JSON.parse(line) as unknown
        if (typeof parsed === "string") sessions.add(parsed)
        else {
          const step = (parsed as { folder?: unknown } | null)?.folder
          if (Array.isArray(step) && step.length === 2 && typeof step[0] === "string" && typeof step[1] === "string") {
            steps.set(step[0], [...(steps.get(step[0]) ?? []), step[1]])
          }
        }
      } catch {
        return { mark: `${folder}|${id}|${from + end}`, sessions: null }
      }
    }
    const next = `${folder}|${id}|${from + end}`
    return oldFolder === folder || reaches(steps, oldFolder ?? "", folder)
      ? { mark: next, sessions: [...sessions] }
      : { mark: next, sessions: null, named: [...sessions] }
  } catch {
    return { mark: `${folder}|none|0`, sessions: null }
  } finally {
    fs.closeSync(fd)
  }
}
