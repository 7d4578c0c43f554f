import { Context, type Effect } from "effect"
import type { CorruptFile, InvalidInput, StorageError } from "../domain/errors.js"
import type { RawLogEntry, Role } from "../domain/Message.js"

export interface AppendInput {
  readonly sessionId: string
  readonly role: Role
  readonly content: string
  /** Canonical UTC ISO; defaults to now. */
  readonly timestamp?: string
  readonly metadata?: Record<string, unknown>
}

export interface SessionInfo {
  readonly sessionId: string
  /** Last modification time of the session's log (ms since epoch): consolidation walks sessions in this order. */
  readonly mtimeMs: number
  /** Changes whenever the log does (an append, a removal, a replaced file): consolidation skips an unchanged log. */
  readonly stamp: string
}

/** One session of another store, as `RawLog.copyIn` takes it. */
export interface SessionCopy {
  readonly sessionId: string
  readonly entries: ReadonlyArray<RawLogEntry>
  readonly nextIndex: number
  /** When the source last changed the session (ms since epoch): keeps the sessions' order. */
  readonly modifiedAtMs: number
}

export interface RawLogShape {
  /** Appends one message under the session's lock; the index is the next free one (unique, gap-free). */
  readonly append: (input: AppendInput) => Effect.Effect<RawLogEntry, StorageError | InvalidInput>
  /** Every entry of a session in index order; a torn last line is skipped with a warning. Unknown session: []. */
  readonly read: (sessionId: string) => Effect.Effect<ReadonlyArray<RawLogEntry>, StorageError | CorruptFile>
  /**
   * The entries appended to a session's log since `at` (a position an earlier call returned, in this process
   * or another, on this data dir or the one it was copied from), in index order, or all of them (`whole`)
   * when `at` is null or the log was rewritten before the position meanwhile. A long-lived reader keeps the
   * position so that a prompt costs what it appended, not the session's length. Optional: without it,
   * readers use `read`.
   */
  readonly readSince?: (
    sessionId: string,
    at: string | null
  ) => Effect.Effect<{ readonly entries: ReadonlyArray<RawLogEntry>; readonly at: string; readonly whole: boolean }, StorageError | CorruptFile>
  /** Every session that has a log, oldest modification first. */
  readonly sessions: Effect.Effect<ReadonlyArray<SessionInfo>, StorageError>
  /** One session's log as `sessions` lists it, or null when it has none. */
  readonly session: (sessionId: string) => Effect.Effect<SessionInfo | null, StorageError>
  /**
   * The sessions whose logs changed since `mark` (a value an earlier call returned), or null when the store
   * cannot say (no mark, or changes it did not record): then list them all. Cheap: a warm reader asks
   * this instead of listing every session.
   */
  readonly changesSince: (
    mark: string | null
  ) => Effect.Effect<
    {
      readonly mark: string
      readonly sessions: ReadonlyArray<string> | null
      /** With `sessions` null: the sessions it did record, when it also saw changes it cannot name (optional). */
      readonly named?: ReadonlyArray<string>
    },
    StorageError
  >
  /** Removes the entries with these indices (atomic rewrite); the others keep their indices. Returns how many went. */
  readonly removeEntries: (
    sessionId: string,
    indices: ReadonlySet<number>
  ) => Effect.Effect<number, StorageError | CorruptFile>
  /** The index the session's next append gets: above every index it ever handed out, removed ones included. */
  readonly nextIndex: (sessionId: string) => Effect.Effect<number, StorageError>
  /**
   * Adds a copy from another store (`awhm migrate`): the entries the session lacks, with their own indices,
   * and raises its next index to at least `nextIndex`. Entries already there are left as they are. Returns
   * how many were added.
   */
  readonly copyIn: (copy: SessionCopy) => Effect.Effect<number, StorageError | CorruptFile>
  /** Session and message counts without parsing every line (for `status`). */
  readonly stats: Effect.Effect<{ readonly sessions: number; readonly messages: number }, StorageError>
}

/** The append-only per-session message log: the ground truth. */
export class RawLog extends Context.Tag("awhm/RawLog")<RawLog, RawLogShape>() {}
