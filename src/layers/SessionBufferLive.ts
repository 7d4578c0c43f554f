import * as fs from "node:fs"
import * as path from "node:path"
import { Duration, Effect, Layer, Schema } from "effect"
import { type BufferEntry, BufferEntryType } from "../domain/BufferEntry.js"
import { type StorageError, storageFailure } from "../domain/errors.js"
import type { RawLogEntry } from "../domain/Message.js"
import { atomicWriteFileSync } from "../store/atomicWrite.js"
import { bufferEntriesFor, bufferEntryKey, compareBufferEntries } from "../text/bufferPatterns.js"
import { searchEntries } from "../search/bufferSearch.js"
import { DeletionWatch } from "../store/deletionNotices.js"
import { acquireLockSync } from "../store/fileLock.js"
import { adoptLiteDataDir } from "../store/liteImport.js"
import { readFileNoFollow } from "../store/noFollow.js"
import { dataPaths, decodeSessionId, encodeSessionId } from "../store/paths.js"
import { AppConfig } from "../services/AppConfig.js"
import { SessionBuffer } from "../services/SessionBuffer.js"

/** A WAL line as stored; `session_id` is optional so the reference's WAL files load too. */
const WalFile = Schema.Array(
  Schema.Struct({
    type: BufferEntryType,
    content: Schema.String,
    timestamp: Schema.String,
    source_msg: Schema.Int,
    session_id: Schema.optional(Schema.String)
  })
)
const decodeWal = Schema.decodeUnknownEither(Schema.parseJson(WalFile))

/** What this process holds for one session. */
interface SessionState {
  entries: Array<BufferEntry>
  /** Bumped on every change; the WAL is rewritten only when it differs from `flushedVersion`. */
  version: number
  flushedVersion: number
  /** Keys of the entries on disk when this process last read or wrote the WAL (the merge base). */
  known: Set<string>
  /** Deletions made here: a merge never brings back what they removed. */
  removedBy: Array<(entry: BufferEntry) => boolean>
}

class WalDamaged {
  constructor(readonly file: string) {}
}

/**
 * The session buffer with a write-ahead log per session (`<data-dir>/wal/<encoded id>.wal`, a JSON array
 * of entries). A session's entries are recovered from its WAL on first use; changed sessions are flushed
 * every `buffer_flush_interval` seconds and always when the layer's scope closes. Flushes merge with the
 * file under a lock, so concurrent processes never drop each other's entries.
 */
export const SessionBufferLive = Layer.scoped(
  SessionBuffer,
  Effect.gen(function* () {
    const config = yield* AppConfig
    const paths = dataPaths(config.dataDir)
    // AWHM Lite's data dir: WAL names renamed with their logs and deleted text scrubbed before any WAL is read.
    yield* Effect.sync(() => adoptLiteDataDir(paths))
    const sessions = new Map<string, SessionState>()
    // One disk operation at a time in this process: the file lock is per process and must not be re-entered.
    const mutex = yield* Effect.makeSemaphore(1)
    const lockFile = (sessionId: string) => path.join(paths.locks, `wal-${encodeSessionId(sessionId)}.lock`)

    const storageError = storageFailure

    /** Reads a session's WAL; missing → []; damaged → WalDamaged (never content in the message). */
    const readWal = (sessionId: string): Array<BufferEntry> | WalDamaged => {
      const file = paths.walFile(sessionId)
      let text: string
      try {
        text = readFileNoFollow(file).toString("utf8")
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "ENOENT") return []
        throw e
      }
      const decoded = decodeWal(text)
      if (decoded._tag === "Left") return new WalDamaged(file)
      return decoded.right.map((e) => ({ ...e, session_id: e.session_id ?? sessionId }))
    }

    const warned = new Set<string>()
    // Once per file per process: loading and the final flush both see the same damage.
    const warnDamaged = (d: WalDamaged) =>
      Effect.suspend(() => {
        if (warned.has(d.file)) return Effect.void
        warned.add(d.file)
        return Effect.logWarning(`ignored a damaged session buffer WAL ${d.file}; it will be rewritten`)
      })

    const readWalEffect = (sessionId: string) =>
      Effect.try({ try: () => readWal(sessionId), catch: storageError("read", paths.walFile(sessionId)) }).pipe(
        Effect.flatMap((r) => (r instanceof WalDamaged ? Effect.as(warnDamaged(r), []) : Effect.succeed(r)))
      )

    // Deletes made by other processes: what they remove leaves this process's memory before its next answer
    // or write, and a WAL read while one is under way may still hold what it removes.
    const deletions = new DeletionWatch(paths)
    const deleted = (e: BufferEntry) => deletions.isDeleted(e.session_id, e.source_msg, e.content)
    const followDeletions = () => {
      const gone = deletions.poll()
      if (gone === null) return
      for (const state of sessions.values()) {
        const keep = state.entries.filter((e) => !gone(e.session_id, e.source_msg, e.content))
        if (keep.length === state.entries.length) continue
        state.entries = keep
        state.version++
      }
    }

    /** The session's state, recovered from its WAL the first time it is used in this process. */
    const load = (sessionId: string) =>
      Effect.suspend(() => {
        followDeletions()
        const existing = sessions.get(sessionId)
        if (existing !== undefined) return Effect.succeed(existing)
        return readWalEffect(sessionId).pipe(
          Effect.map((entries) => {
            const again = sessions.get(sessionId) // another fiber may have loaded it meanwhile
            if (again !== undefined) return again
            const state: SessionState = {
              entries: entries.filter((e) => !deleted(e)).sort(compareBufferEntries),
              version: 0,
              flushedVersion: 0,
              known: new Set(entries.map(bufferEntryKey)),
              removedBy: []
            }
            sessions.set(sessionId, state)
            return state
          })
        )
      })

    /**
     * Three-way merge of this process's entries with the file: keep what the file has, add what this process
     * added since it last synced, drop what someone else removed meanwhile and what this process deleted.
     */
    const merge = (state: SessionState, disk: ReadonlyArray<BufferEntry>, diskDamaged: boolean): Array<BufferEntry> => {
      const diskKeys = new Set(disk.map(bufferEntryKey))
      const out = new Map<string, BufferEntry>()
      for (const e of state.entries) {
        const key = bufferEntryKey(e)
        // Gone from an intact file since we last synced: another process deleted it. A damaged file proves nothing.
        if (!diskDamaged && state.known.has(key) && !diskKeys.has(key)) continue
        out.set(key, e)
      }
      for (const e of disk) if (!out.has(bufferEntryKey(e))) out.set(bufferEntryKey(e), e)
      return [...out.values()].filter((e) => !state.removedBy.some((p) => p(e)) && !deleted(e)).sort(compareBufferEntries)
    }

    /** Under the session's lock: read the file, compute the new content, write it if needed. */
    const syncWithDisk = <A>(
      sessionId: string,
      state: SessionState,
      f: (merged: Array<BufferEntry>) => readonly [Array<BufferEntry>, A],
      force: boolean
    ) =>
      mutex.withPermits(1)(
        Effect.try({
          try: () => {
            const file = paths.walFile(sessionId)
            const release = acquireLockSync(lockFile(sessionId))
            try {
              // Under the lock: a delete announced before it was taken is applied before anything is written.
              followDeletions()
              const disk = readWal(sessionId)
              const damaged = disk instanceof WalDamaged
              const diskEntries = damaged ? [] : disk
              const [next, result] = f(merge(state, diskEntries, damaged))
              const text = JSON.stringify(next)
              // Never create an empty file, never rewrite an identical one (unless forced).
              const unchanged = !damaged && (fs.existsSync(file) ? text === JSON.stringify(diskEntries) : next.length === 0)
              if (force || !unchanged) atomicWriteFileSync(file, text)
              state.entries = next
              state.known = new Set(next.map(bufferEntryKey))
              state.flushedVersion = state.version
              return [result, damaged ? new WalDamaged(file) : null] as const
            } finally {
              release()
            }
          },
          catch: storageError("write", paths.walFile(sessionId))
        }).pipe(Effect.flatMap(([result, damaged]) => (damaged === null ? Effect.succeed(result) : Effect.as(warnDamaged(damaged), result))))
      )

    const flushSession = (sessionId: string, state: SessionState, force: boolean) =>
      force || state.version !== state.flushedVersion
        ? syncWithDisk(sessionId, state, (merged) => [merged, undefined] as const, force)
        : Effect.void

    // Suspended: the set of sessions is read when the flush runs, not when the effect is built.
    const flush = (force = false) =>
      Effect.suspend(() =>
        Effect.forEach([...sessions.entries()], ([id, state]) => flushSession(id, state, force), { discard: true })
      )

    const observe = (message: RawLogEntry) =>
      Effect.gen(function* () {
        const found = bufferEntriesFor(message)
        if (found.length === 0) return []
        const state = yield* load(message.session_id)
        const have = new Set(state.entries.map(bufferEntryKey))
        const added = found.filter((e) => !have.has(bufferEntryKey(e)))
        if (added.length > 0) {
          state.entries = [...state.entries, ...added].sort(compareBufferEntries)
          state.version++
        }
        return added
      })

    const removeWhere = (sessionId: string, predicate: (entry: BufferEntry) => boolean) =>
      Effect.gen(function* () {
        const state = yield* load(sessionId)
        state.version++
        // Rewrite the WAL at once: deleted text must not wait for the next flush to leave the disk.
        // The count includes entries only the file had (written by other processes).
        const removed = yield* syncWithDisk(
          sessionId,
          state,
          (merged) => {
            const keep = merged.filter((e) => !predicate(e))
            return [keep, merged.length - keep.length] as const
          },
          false
        )
        state.removedBy.push(predicate)
        return removed
      })

    const replace = (sessionId: string, entries: ReadonlyArray<BufferEntry>) =>
      Effect.gen(function* () {
        const state = yield* load(sessionId)
        const next = entries.map((e) => ({ ...e, session_id: sessionId })).sort(compareBufferEntries)
        // A restore is authoritative: the file becomes exactly the given entries.
        state.removedBy = []
        state.version++
        yield* syncWithDisk(sessionId, state, () => [next, undefined] as const, true)
      })

    const clear = (sessionId: string) =>
      mutex.withPermits(1)(
        Effect.try({
          try: () => {
            const release = acquireLockSync(lockFile(sessionId))
            try {
              fs.rmSync(paths.walFile(sessionId), { force: true })
            } finally {
              release()
            }
            const state = sessions.get(sessionId)
            if (state !== undefined) {
              state.entries = []
              state.known = new Set()
              state.version++
              state.flushedVersion = state.version
            }
          },
          catch: storageError("delete", paths.walFile(sessionId))
        })
      )

    const sessionsWithWal = Effect.try({
      try: () => {
        let names: Array<string>
        try {
          names = fs.readdirSync(paths.wal)
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === "ENOENT") return []
          throw e
        }
        const ids: Array<string> = []
        for (const name of names.sort()) {
          if (!name.endsWith(".wal") || name.startsWith(".")) continue
          const stem = name.slice(0, -".wal".length)
          let id: string | null = null
          try {
            id = decodeSessionId(stem)
          } catch {
            id = null
          }
          if (id === null && stem.startsWith("~")) {
            // A hashed (very long) id: the entries carry it.
            try {
              const first = (JSON.parse(readFileNoFollow(path.join(paths.wal, name)).toString("utf8")) as Array<{ session_id?: unknown }>)[0]
              id = typeof first?.session_id === "string" ? first.session_id : null
            } catch {
              id = null
            }
          }
          if (id !== null && encodeSessionId(id) === stem) ids.push(id)
        }
        return ids
      },
      catch: storageError("list", paths.wal)
    })

    const warnFlushFailure = (e: StorageError) => Effect.logWarning(e.message)

    // The final flush: a command or hook finishing, Ctrl-C or an error all close the scope.
    yield* Effect.addFinalizer(() => flush(false).pipe(Effect.catchAll(warnFlushFailure)))
    // Periodic flush for long-lived processes (MCP server); waits first, so a short command never flushes twice.
    const every = Duration.millis(Math.max(1, Math.round(config.bufferFlushInterval * 1000)))
    yield* Effect.sleep(every).pipe(
      Effect.zipRight(flush(false).pipe(Effect.catchAll(warnFlushFailure))),
      Effect.forever,
      Effect.forkScoped
    )

    return SessionBuffer.of({
      observe,
      entries: (sessionId) => Effect.map(load(sessionId), (s) => [...s.entries]),
      search: (sessionId, query, options) =>
        Effect.map(load(sessionId), (s) =>
          searchEntries(s.entries, query, {
            correctionWindow: config.correctionWindowMessages,
            bm25: { k1: config.bm25K1, b: config.bm25B },
            ...(options?.includeHistory !== undefined ? { includeHistory: options.includeHistory } : {}),
            ...(options?.asOf !== undefined ? { asOf: options.asOf } : {})
          })
        ),
      removeWhere,
      replace,
      flush,
      clear,
      sessionsWithWal
    })
  })
)
