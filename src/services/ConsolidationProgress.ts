import { Context, type Effect } from "effect"
import type { CorruptFile, StorageError } from "../domain/errors.js"
import type { Progress } from "../domain/Progress.js"

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
}

/** Which raw-log messages consolidation has turned into memories. Layers: file (meta/), PostgreSQL, memory. */
export class ConsolidationProgress extends Context.Tag("awhm/ConsolidationProgress")<
  ConsolidationProgress,
  ConsolidationProgressShape
>() {}
