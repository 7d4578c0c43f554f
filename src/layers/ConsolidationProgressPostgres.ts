import { Effect, Layer, Predicate } from "effect"
import type { Progress, SessionProgress } from "../domain/Progress.js"
import { settledMark } from "../store/consolidatedLogs.js"
import { ConsolidationProgress, type SettledLogs } from "../services/ConsolidationProgress.js"
import { PostgresDatabase, type PostgresDatabaseShape } from "./postgres/PostgresDatabase.js"

/**
 * Progress rows of the write namespace. `withLock` is one transaction holding the namespace's progress
 * lock (an advisory lock), so the graph update inside it commits or rolls back with the progress.
 */
export const makeConsolidationProgressPostgres = (db: PostgresDatabaseShape) =>
  Effect.sync(() => {
    const { sql, writeNamespace: ns, fail } = db
    const read = Effect.map(
      sql<{ session_id: string; last_msg_index: number; updated_at: string }>`SELECT session_id, last_msg_index, updated_at
        FROM awhm.consolidation_progress WHERE namespace = ${ns}`,
      (rows): Progress => new Map(rows.map((r) => [r.session_id, { lastMsgIndex: r.last_msg_index, updatedAt: r.updated_at } satisfies SessionProgress]))
    )
    const lockProgress = sql`SELECT pg_advisory_xact_lock(hashtext(${"awhm:progress:" + ns}))`
    return ConsolidationProgress.of({
      read: read.pipe(Effect.mapError(fail("read consolidation progress"))),
      withLock: <A, E, R>(f: (progress: Progress) => Effect.Effect<readonly [A, Progress | null], E, R>) =>
        sql
          .withTransaction(
            Effect.gen(function* () {
              yield* lockProgress
              const before = yield* read
              const [a, next] = yield* f(before)
              const changed = next === null ? [] : [...next].filter(([sid, p]) => p.lastMsgIndex !== null && before.get(sid)?.lastMsgIndex !== p.lastMsgIndex)
              if (changed.length > 0) {
                yield* sql`INSERT INTO awhm.consolidation_progress (namespace, session_id, last_msg_index, updated_at)
                  SELECT ${ns}, s, i, u FROM unnest(${changed.map(([sid]) => sid)}::text[], ${changed.map(([, p]) => p.lastMsgIndex!)}::int[],
                    ${changed.map(([, p]) => p.updatedAt)}::text[]) AS r(s, i, u)
                  ON CONFLICT (namespace, session_id) DO UPDATE SET last_msg_index = excluded.last_msg_index, updated_at = excluded.updated_at`
              }
              return a
            })
          )
          .pipe(Effect.mapError((e) => (Predicate.isTagged(e, "SqlError") ? fail("write consolidation progress")(e) : (e as E)))),
      lock: <A, E, R>(body: Effect.Effect<A, E, R>) =>
        sql
          .withTransaction(Effect.zipRight(lockProgress, body))
          .pipe(Effect.mapError((e) => (Predicate.isTagged(e, "SqlError") ? fail("lock consolidation progress")(e) : (e as E)))),
      replace: (progress) => {
        const rows = [...progress].filter(([, p]) => p.lastMsgIndex !== null)
        return sql
          .withTransaction(
            Effect.gen(function* () {
              yield* sql`DELETE FROM awhm.consolidation_progress WHERE namespace = ${ns} AND NOT (session_id = ANY (${rows.map(([sid]) => sid)}::text[]))`
              yield* sql`INSERT INTO awhm.consolidation_progress (namespace, session_id, last_msg_index, updated_at)
                SELECT ${ns}, s, i, u FROM unnest(${rows.map(([sid]) => sid)}::text[], ${rows.map(([, p]) => p.lastMsgIndex!)}::int[],
                  ${rows.map(([, p]) => p.updatedAt)}::text[]) AS r(s, i, u)
                ON CONFLICT (namespace, session_id) DO UPDATE SET last_msg_index = excluded.last_msg_index, updated_at = excluded.updated_at, log_mark = NULL`
            })
          )
          .pipe(Effect.mapError(fail("write consolidation progress")))
      },
      settled: Effect.map(
        sql<{ session_id: string; log_mark: string }>`SELECT session_id, log_mark FROM awhm.consolidation_progress
          WHERE namespace = ${ns} AND log_mark IS NOT NULL`,
        (rows): SettledLogs => ({ logs: new Map(rows.map((r) => [r.session_id, r.log_mark])), listing: null })
      ).pipe(Effect.orElseSucceed((): SettledLogs => ({ logs: new Map(), listing: null }))),
      // Each mark is written only where the row still holds the index it was checked against.
      recordSettled: (settled) => {
        const items = [...settled]
        return sql`UPDATE awhm.consolidation_progress p SET log_mark = r.mark
          FROM unnest(${items.map(([sid]) => sid)}::text[], ${items.map(([, s]) => s.index)}::int[],
            ${items.map(([, s]) => settledMark(s.stamp, s.index))}::text[]) AS r(s, i, mark)
          WHERE p.namespace = ${ns} AND p.session_id = r.s AND p.last_msg_index = r.i`.pipe(Effect.asVoid, Effect.orElse(() => Effect.void))
      }
    })
  })

/** Consolidation progress of `storage_backend: postgres`. */
export const ConsolidationProgressPostgres = Layer.effect(
  ConsolidationProgress,
  Effect.flatMap(PostgresDatabase, makeConsolidationProgressPostgres)
)
