import { Context, type Effect } from "effect"
import type { CorruptFile, StorageError } from "../domain/errors.js"
import type { Progress } from "../domain/Progress.js"
import type { Listing, SettledLogs } from "../domain/SettledLogs.js"

export type { Listing, SettledLogs }

export interface ConsolidationProgressShape {
  /** The progress as last committed. */
  readonly read: Effect.Effect<Progress, StorageError | CorruptFile>
  /**
   * Runs `f` holding the progress lock (one consolidation commit at a time across processes), with the
   * progress re-read under it, and stores the progress `f` returns (null: unchanged). If `f` fails, nothing
   * is stored. On PostgreSQL `f`'s graph update joins the same transaction, so graph and progress commit together.
   */
  readonly withLock: <A, E, R>(
    f: (progress: Progress) => Effect.Effect<readonly [A, Progress | null], E, R>
  ) => Effect.Effect<A, E | StorageError | CorruptFile, R>
  /**
   * Runs `body` holding the progress lock and nothing else (a snapshot reads graph and progress under it, a
   * restore replaces both). On PostgreSQL `body`'s statements join one transaction.
   */
  readonly lock: <A, E, R>(body: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StorageError, R>
  /** Replaces the whole progress (sessions not in `progress` start over); call it holding `lock`. */
  readonly replace: (progress: Progress) => Effect.Effect<void, StorageError>
  /**
   * Per session, the mark ("stamp@index", `settledMark`) recorded when a full run found its log with that
   * stamp fully consolidated up to that index; and where the raw log's change journal stood when the last
   * full run began (null when not recorded). A hint: empty when unknown.
   */
  readonly settled: Effect.Effect<SettledLogs>
  /**
   * Records marks, each kept only while the stored progress still holds its index, and (with `listing`)
   * where the journal stood when the full run that found them began. Best effort.
   */
  readonly recordSettled: (
    settled: ReadonlyMap<string, { readonly stamp: string; readonly index: number }>,
    listing?: Listing
  ) => Effect.Effect<void>
}

/** Which raw-log messages consolidation has turned into memories. Layers: file (meta/), PostgreSQL, memory. */
export class ConsolidationProgress extends Context.Tag("awhm/ConsolidationProgress")<
  ConsolidationProgress,
  ConsolidationProgressShape
>() {}
