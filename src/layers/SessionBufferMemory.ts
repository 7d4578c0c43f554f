import { Effect, Layer, Option } from "effect"
import type { BufferEntry } from "../domain/BufferEntry.js"
import type { RawLogEntry } from "../domain/Message.js"
import { bufferEntriesFor, bufferEntryKey, compareBufferEntries } from "../text/bufferPatterns.js"
import { searchEntries } from "../search/bufferSearch.js"
import { AppConfig } from "../services/AppConfig.js"
import { SessionBuffer } from "../services/SessionBuffer.js"

/**
 * An in-memory session buffer for tests: the same patterns, correction-wins rule and search as
 * SessionBufferLive, no WAL. Uses AppConfig's correction window and BM25 parameters when provided,
 * else the defaults (3 messages, k1 1.5, b 0.75).
 */
export const SessionBufferMemory = Layer.effect(
  SessionBuffer,
  Effect.gen(function* () {
    const config = Option.getOrNull(yield* Effect.serviceOption(AppConfig))
    const buffers = new Map<string, Array<BufferEntry>>()
    const get = (sessionId: string) => buffers.get(sessionId) ?? []

    const observe = (message: RawLogEntry) =>
      Effect.sync(() => {
        const have = new Set(get(message.session_id).map(bufferEntryKey))
        const added = bufferEntriesFor(message).filter((e) => !have.has(bufferEntryKey(e)))
        if (added.length > 0) buffers.set(message.session_id, [...get(message.session_id), ...added].sort(compareBufferEntries))
        return added
      })

    return SessionBuffer.of({
      observe,
      entries: (sessionId) => Effect.sync(() => [...get(sessionId)]),
      search: (sessionId, query, options) =>
        Effect.sync(() =>
          searchEntries(get(sessionId), query, {
            correctionWindow: config?.correctionWindowMessages ?? 3,
            bm25: { k1: config?.bm25K1 ?? 1.5, b: config?.bm25B ?? 0.75 },
            ...(options?.includeHistory !== undefined ? { includeHistory: options.includeHistory } : {}),
            ...(options?.asOf !== undefined ? { asOf: options.asOf } : {})
          })
        ),
      removeWhere: (sessionId, predicate) =>
        Effect.sync(() => {
          const before = get(sessionId)
          const keep = before.filter((e) => !predicate(e))
          if (buffers.has(sessionId)) buffers.set(sessionId, keep)
          return before.length - keep.length
        }),
      replace: (sessionId, entries) =>
        Effect.sync(() => {
          buffers.set(sessionId, entries.map((e) => ({ ...e, session_id: sessionId })).sort(compareBufferEntries))
        }),
      flush: () => Effect.void,
      clear: (sessionId) => Effect.sync(() => void buffers.delete(sessionId)),
      // Memory has no WAL files: the sessions that hold entries stand in for them.
      sessionsWithWal: Effect.sync(() => [...buffers.keys()])
    })
  })
)
