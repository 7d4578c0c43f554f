import { Context, type Effect } from "effect"
import type { BufferEntry } from "../domain/BufferEntry.js"
import type { StorageError } from "../domain/errors.js"
import type { RawLogEntry } from "../domain/Message.js"

export interface BufferHit {
  readonly entry: BufferEntry
  /** Lexical relevance in (0, 1], 1 for the best hit of this search. */
  readonly relevance: number
}

export interface SessionBufferShape {
  /** Runs the buffer patterns on a logged message (user and tool_result only) and keeps what matched. */
  readonly observe: (entry: RawLogEntry) => Effect.Effect<ReadonlyArray<BufferEntry>, StorageError>
  /** All entries of a session (recovered from its WAL on first use). */
  readonly entries: (sessionId: string) => Effect.Effect<ReadonlyArray<BufferEntry>, StorageError>
  /**
   * Entries relevant to a natural-language query (lexical scoring), best first. Unless includeHistory,
   * entries superseded by a later entry (correction-wins) are hidden; with asOf only entries at or
   * before that moment count.
   */
  readonly search: (
    sessionId: string,
    query: string,
    options?: { readonly includeHistory?: boolean; readonly asOf?: string | null }
  ) => Effect.Effect<ReadonlyArray<BufferHit>, StorageError>
  /** Drops matching entries from memory and rewrites the session's WAL at once. Returns how many went. */
  readonly removeWhere: (
    sessionId: string,
    predicate: (entry: BufferEntry) => boolean
  ) => Effect.Effect<number, StorageError>
  /** Replaces a session's entries (snapshot restore) and rewrites its WAL. */
  readonly replace: (sessionId: string, entries: ReadonlyArray<BufferEntry>) => Effect.Effect<void, StorageError>
  /** Writes changed sessions' WALs now (atomic); `force` writes even unchanged ones. */
  readonly flush: (force?: boolean) => Effect.Effect<void, StorageError>
  /** Deletes a session's WAL (session end, after consolidation). */
  readonly clear: (sessionId: string) => Effect.Effect<void, StorageError>
  /** Sessions that have a WAL on disk. */
  readonly sessionsWithWal: Effect.Effect<ReadonlyArray<string>, StorageError>
}

/** The real-time session buffer with its write-ahead log (flushed on a schedule and when the scope closes). */
export class SessionBuffer extends Context.Tag("awhm/SessionBuffer")<SessionBuffer, SessionBufferShape>() {}
