import { Effect, Layer } from "effect"
import { RawLogEntry } from "../domain/Message.js"
import { prepareAppend } from "../domain/input.js"
import { RawLog, type AppendInput } from "../services/RawLog.js"

/** An in-memory raw log for tests: same validation and numbering as RawLogLive, nothing on disk. */
export const RawLogMemory = Layer.sync(RawLog, () => {
  const logs = new Map<string, { entries: Array<RawLogEntry>; mtimeMs: number; next: number }>()
  // A logical clock keeps "oldest modification first" deterministic within a millisecond.
  let tick = 0

  const append = Effect.fn("RawLog.append")(function* (input: AppendInput) {
    const { sessionId, entryAt } = yield* prepareAppend(input, Number.POSITIVE_INFINITY)
    return yield* Effect.sync(() => {
      let log = logs.get(sessionId)
      if (log === undefined) logs.set(sessionId, (log = { entries: [], mtimeMs: 0, next: 0 }))
      const entry = entryAt(log.next++)
      log.entries.push(entry)
      log.mtimeMs = ++tick
      return entry
    })
  })

  return RawLog.of({
    append,
    read: (sessionId) => Effect.sync(() => [...(logs.get(sessionId)?.entries ?? [])]),
    sessions: Effect.sync(() =>
      [...logs.entries()].map(([sessionId, l]) => ({ sessionId, mtimeMs: l.mtimeMs, stamp: String(l.mtimeMs) })).sort((a, b) => a.mtimeMs - b.mtimeMs)
    ),
    session: (sessionId) =>
      Effect.sync(() => {
        const l = logs.get(sessionId)
        return l === undefined ? null : { sessionId, mtimeMs: l.mtimeMs, stamp: String(l.mtimeMs) }
      }),
    // No journal here: readers list every session (cheap in memory).
    changesSince: () => Effect.succeed({ mark: "", sessions: null }),
    removeEntries: (sessionId, indices) =>
      Effect.sync(() => {
        const log = logs.get(sessionId)
        if (log === undefined) return 0
        // Indices of deleted messages are never handed out again (log.next only grows).
        const before = log.entries.length
        log.entries = log.entries.filter((e) => !indices.has(e.index))
        if (log.entries.length !== before) log.mtimeMs = ++tick
        return before - log.entries.length
      }),
    nextIndex: (sessionId) => Effect.sync(() => logs.get(sessionId)?.next ?? 0),
    copyIn: (copy) =>
      Effect.sync(() => {
        let log = logs.get(copy.sessionId)
        if (log === undefined) logs.set(copy.sessionId, (log = { entries: [], mtimeMs: 0, next: 0 }))
        const held = new Set(log.entries.map((e) => e.index))
        const added = copy.entries.filter((e) => !held.has(e.index)).map((e) => new RawLogEntry({ ...e, session_id: copy.sessionId }))
        log.entries = [...log.entries, ...added].sort((a, b) => a.index - b.index)
        log.next = Math.max(log.next, copy.nextIndex, ...log.entries.map((e) => e.index + 1))
        if (added.length > 0) log.mtimeMs = ++tick
        return added.length
      }),
    stats: Effect.sync(() => {
      let messages = 0
      for (const l of logs.values()) messages += l.entries.length
      return { sessions: logs.size, messages }
    })
  })
})
