import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { storageFailure } from "../domain/errors.js"
import { RawLogEntry } from "../domain/Message.js"
import { atomicWriteFileSync } from "../store/atomicWrite.js"
import { withFileLock } from "../store/fileLock.js"
import { logStamp } from "../store/consolidatedLogs.js"
import { countLogMessages, readFirstLine, readLogFile, readLogFrom, readLogTail } from "../store/logFile.js"
import { logChangesSince, logsFolderStamp, noteLogChange } from "../store/logJournal.js"
import { adoptLiteDataDir } from "../store/liteImport.js"
import { appendNoFollow, readFileNoFollow } from "../store/noFollow.js"
import { dataPaths, decodeSessionId, encodeSessionId } from "../store/paths.js"
import { ensurePrivateDir } from "../store/privateDir.js"
import { prepareAppend } from "../domain/input.js"
import { AppConfig } from "../services/AppConfig.js"
import { RawLog, type SessionCopy, type SessionInfo } from "../services/RawLog.js"

const storageError = storageFailure

/** Serialises an entry as one JSONL line in the reference's field order (plus `index`). */
const toLine = (entry: RawLogEntry): string =>
  JSON.stringify({
    timestamp: entry.timestamp,
    session_id: entry.session_id,
    role: entry.role,
    content: entry.content,
    metadata: entry.metadata,
    index: entry.index
  }) + "\n"

/**
 * The raw log on disk: `<data-dir>/logs/<encoded id>.jsonl`, one JSON line per message. Appends take the
 * session's lock file, so concurrent hook and CLI processes get unique, gap-free indices.
 */
export const RawLogLive = Layer.effect(
  RawLog,
  Effect.gen(function* () {
    const config = yield* AppConfig
    const paths = dataPaths(config.dataDir)
    // Sessions AWHM Lite wrote under its own file names become one session each, and its deleted text goes.
    yield* Effect.sync(() => adoptLiteDataDir(paths))
    // The lock file is per process (a second fiber of this process would wait on itself): serialise here first.
    const mutex = yield* Effect.makeSemaphore(1)
    const locked = <A, E>(sessionId: string, body: Effect.Effect<A, E>) =>
      mutex.withPermits(1)(withFileLock(path.join(paths.locks, `log-${encodeSessionId(sessionId)}.lock`), body))
    // High-water mark written when a delete removes the last messages, so their indices are never reused
    // (consolidation progress is kept by index). Hidden name: never listed as a session.
    const markFile = (sessionId: string) => path.join(paths.logs, `.${encodeSessionId(sessionId)}.next`)
    const readMark = (sessionId: string): number => {
      try {
        const n = Number(readFileNoFollow(markFile(sessionId)).toString("utf8").trim())
        return Number.isInteger(n) && n >= 0 ? n : 0
      } catch {
        return 0
      }
    }

    const warnDamaged = (file: string, lines: ReadonlyArray<number>) =>
      lines.length === 0
        ? Effect.void
        : Effect.logWarning(`skipped ${lines.length} damaged line(s) (line ${lines.join(", ")}) in ${file}`)

    const read = (sessionId: string) =>
      Effect.gen(function* () {
        if (sessionId === "") return []
        const file = paths.logFile(sessionId)
        const parsed = yield* Effect.try({ try: () => readLogFile(file), catch: storageError("read", file) })
        yield* warnDamaged(file, parsed.damagedLines)
        return parsed.entries.sort((a, b) => a.index - b.index)
      })

    const readSince = (sessionId: string, at: string | null) =>
      Effect.gen(function* () {
        if (sessionId === "") return { entries: [], at: "", whole: true }
        const file = paths.logFile(sessionId)
        const got = yield* Effect.try({ try: () => readLogFrom(file, at), catch: storageError("read", file) })
        yield* warnDamaged(file, got.damagedLines)
        return { entries: got.entries.sort((a, b) => a.index - b.index), at: got.at, whole: got.whole }
      })

    const append = Effect.fn("RawLog.append")(function* (input: {
      readonly sessionId: string
      readonly role: RawLogEntry["role"]
      readonly content: string
      readonly timestamp?: string
      readonly metadata?: Record<string, unknown>
    }) {
      const { sessionId, entryAt } = yield* prepareAppend(input, config.maxMessageChars)
      const file = paths.logFile(sessionId)
      return yield* locked(
        sessionId,
        Effect.try({
          try: () => {
            ensurePrivateDir(paths.logs)
            // A log this append creates changes the logs folder: the journal is told the folder's stamp before and after.
            const before = fs.existsSync(file) ? null : logsFolderStamp(paths.logs)
            const tail = readLogTail(file)
            const entry = entryAt(Math.max(tail.nextIndex, readMark(sessionId)))
            // A torn last line (a crash mid-write) must not swallow this message: start on a fresh line.
            appendNoFollow(file, (tail.needsNewline ? "\n" : "") + toLine(entry))
            noteLogChange(paths.meta, sessionId, before === null ? undefined : { logsDir: paths.logs, before })
            return entry
          },
          catch: storageError("append to", file)
        })
      )
    })

    const sessions = Effect.try({
      try: (): Array<SessionInfo> => {
        let names: Array<string>
        try {
          names = fs.readdirSync(paths.logs)
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === "ENOENT") return []
          throw e
        }
        const out: Array<SessionInfo> = []
        for (const name of names) {
          if (!name.endsWith(".jsonl") || name.startsWith(".")) continue
          const file = path.join(paths.logs, name)
          const stem = name.slice(0, -".jsonl".length)
          let sessionId: string | null
          try {
            sessionId = decodeSessionId(stem)
          } catch {
            sessionId = null // not a name we wrote
          }
          if (sessionId === null) {
            try {
              const first = JSON.parse(readFirstLine(file)) as { session_id?: unknown }
              sessionId = typeof first.session_id === "string" ? first.session_id : null
            } catch {
              sessionId = null
            }
          }
          if (sessionId === null || encodeSessionId(sessionId) !== stem) continue
          const st = fs.statSync(file)
          out.push({ sessionId, mtimeMs: st.mtimeMs, stamp: logStamp(st) })
        }
        return out.sort((a, b) => a.mtimeMs - b.mtimeMs || (a.sessionId < b.sessionId ? -1 : 1))
      },
      catch: storageError("list", paths.logs)
    })

    const session = (sessionId: string) =>
      Effect.try({
        try: (): SessionInfo | null => {
          if (sessionId === "") return null
          const st = fs.statSync(paths.logFile(sessionId), { throwIfNoEntry: false })
          return st === undefined ? null : { sessionId, mtimeMs: st.mtimeMs, stamp: logStamp(st) }
        },
        catch: storageError("read", paths.logFile(sessionId))
      })

    const changesSince = (mark: string | null) =>
      Effect.try({ try: () => logChangesSince(paths.meta, paths.logs, mark), catch: storageError("read", paths.meta) })

    const removeEntries = (sessionId: string, indices: ReadonlySet<number>) =>
      Effect.gen(function* () {
        if (sessionId === "" || indices.size === 0) return 0
        const file = paths.logFile(sessionId)
        return yield* locked(
          sessionId,
          Effect.gen(function* () {
            const parsed = yield* Effect.try({ try: () => readLogFile(file), catch: storageError("read", file) })
            yield* warnDamaged(file, parsed.damagedLines)
            const keep = parsed.entries.filter((e) => !indices.has(e.index))
            const removed = parsed.entries.length - keep.length
            // Damaged lines are dropped too: they may hold fragments of what is being deleted.
            if (removed === 0 && parsed.damagedLines.length === 0) return 0
            const nextOf = (es: ReadonlyArray<RawLogEntry>) => es.reduce((m, e) => Math.max(m, e.index + 1), 0)
            const next = Math.max(readMark(sessionId), nextOf(parsed.entries))
            yield* Effect.try({
              try: () => {
                if (next > nextOf(keep)) atomicWriteFileSync(markFile(sessionId), String(next))
                atomicWriteFileSync(file, keep.map(toLine).join(""))
                noteLogChange(paths.meta, sessionId)
              },
              catch: storageError("rewrite", file)
            })
            return removed
          })
        )
      })

    const nextIndexOf = (sessionId: string) => Math.max(readLogTail(paths.logFile(sessionId)).nextIndex, readMark(sessionId))

    const nextIndex = (sessionId: string) =>
      sessionId === "" ? Effect.succeed(0) : Effect.try({ try: () => nextIndexOf(sessionId), catch: storageError("read", paths.logFile(sessionId)) })

    const copyIn = (copy: SessionCopy) =>
      Effect.gen(function* () {
        if (copy.sessionId === "") return 0
        const file = paths.logFile(copy.sessionId)
        return yield* locked(
          copy.sessionId,
          Effect.gen(function* () {
            const parsed = yield* Effect.try({ try: () => readLogFile(file), catch: storageError("read", file) })
            yield* warnDamaged(file, parsed.damagedLines)
            const held = new Set(parsed.entries.map((e) => e.index))
            const added = copy.entries.filter((e) => !held.has(e.index)).map((e) => new RawLogEntry({ ...e, session_id: copy.sessionId }))
            // The file was just read whole: its last index and the mark give the session's next index.
            const all = [...parsed.entries, ...added].sort((a, b) => a.index - b.index)
            const lastPlusOne = all.length === 0 ? 0 : all[all.length - 1]!.index + 1
            const next = Math.max(copy.nextIndex, readMark(copy.sessionId), lastPlusOne)
            yield* Effect.try({
              try: () => {
                ensurePrivateDir(paths.logs)
                if (added.length > 0) {
                  atomicWriteFileSync(file, all.map(toLine).join(""))
                  const mtime = new Date(copy.modifiedAtMs)
                  fs.utimesSync(file, mtime, mtime)
                  noteLogChange(paths.meta, copy.sessionId)
                }
                if (next > lastPlusOne) atomicWriteFileSync(markFile(copy.sessionId), String(next))
              },
              catch: storageError("copy into", file)
            })
            return added.length
          })
        )
      })

    const stats = Effect.try({
      try: () => {
        let names: Array<string>
        try {
          names = fs.readdirSync(paths.logs)
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === "ENOENT") return { sessions: 0, messages: 0 }
          throw e
        }
        const logs = names.filter((n) => n.endsWith(".jsonl") && !n.startsWith("."))
        let messages = 0
        for (const n of logs) messages += countLogMessages(path.join(paths.logs, n))
        return { sessions: logs.length, messages }
      },
      catch: storageError("count", paths.logs)
    })

    return RawLog.of({ append, read, readSince, sessions, session, changesSince, removeEntries, nextIndex, copyIn, stats })
  })
)
