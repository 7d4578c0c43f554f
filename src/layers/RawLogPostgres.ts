import { Effect, Layer } from "effect"
import { CorruptFile, InvalidInput, type StorageError } from "../domain/errors.js"
import { RawLogEntry, type Role } from "../domain/Message.js"
import { prepareAppend } from "../domain/input.js"
import { AppConfig } from "../services/AppConfig.js"
import { RawLog, type AppendInput, type RawLogShape, type SessionCopy, type SessionInfo } from "../services/RawLog.js"
import { PostgresDatabase, type PostgresDatabaseShape } from "./postgres/PostgresDatabase.js"

/** Rows per INSERT of a copy (PostgreSQL caps a statement's parameters; arrays keep it to seven). */
const COPY_CHUNK = 500

interface MessageRow {
  readonly idx: number
  readonly timestamp: string
  readonly role: Role
  readonly content: string
  readonly metadata: string
}

/**
 * The raw log in PostgreSQL, in the client's write namespace. An append is one statement: it bumps the
 * session's high-water mark (row-locking it until commit) and inserts the message with the old value, so
 * concurrent appends from any number of processes get unique, gap-free indices, and a removed index is
 * never handed out again.
 */
export const makeRawLogPostgres = (db: PostgresDatabaseShape, options: { readonly maxMessageChars?: number } = {}) =>
  Effect.sync(() => {
    const { sql, writeNamespace: ns, where, fail } = db

    const append = Effect.fn("RawLog.append")(function* (input: AppendInput) {
      const { sessionId, timestamp, content, entryAt } = yield* prepareAppend(input, options.maxMessageChars ?? Number.POSITIVE_INFINITY)
      if (sessionId.includes("\u0000")) {
        return yield* new InvalidInput({ message: "the session id must not contain a NUL character (PostgreSQL text cannot hold one)" })
      }
      const metadata = input.metadata ?? {}
      // Content is kept JSON-encoded: PostgreSQL text cannot hold a NUL, which tool output may contain.
      const rows = yield* sql<{ idx: number }>`WITH s AS (
          INSERT INTO awhm.log_sessions (namespace, session_id, next_index, updated_at) VALUES (${ns}, ${sessionId}, 1, now())
          ON CONFLICT (namespace, session_id) DO UPDATE SET next_index = awhm.log_sessions.next_index + 1, updated_at = now()
          RETURNING next_index - 1 AS idx
        )
        INSERT INTO awhm.messages (namespace, session_id, idx, timestamp, role, content, metadata)
        SELECT ${ns}, ${sessionId}, s.idx, ${timestamp}, ${input.role}, ${JSON.stringify(content)}, ${JSON.stringify(metadata)} FROM s
        RETURNING idx`.pipe(Effect.mapError(fail("append to the raw log")))
      return entryAt(rows[0]!.idx)
    })

    const decode = (sessionId: string, rows: ReadonlyArray<MessageRow>) =>
      Effect.try({
        try: () =>
          rows.map(
            (r) =>
              new RawLogEntry({
                timestamp: r.timestamp,
                session_id: sessionId,
                role: r.role,
                content: JSON.parse(r.content) as string,
                metadata: JSON.parse(r.metadata) as Record<string, unknown>,
                index: r.idx
              })
          ),
        catch: () => new CorruptFile({ path: where, message: `a raw-log row of a session in ${where} is damaged` })
      })

    const read = (sessionId: string) =>
      sessionId === "" || sessionId.includes("\u0000")
        ? Effect.succeed([])
        : Effect.flatMap(
            sql<MessageRow>`SELECT idx, timestamp, role, content, metadata FROM awhm.messages
              WHERE namespace = ${ns} AND session_id = ${sessionId} ORDER BY idx`.pipe(Effect.mapError(fail("read the raw log"))),
            (rows) => decode(sessionId, rows)
          )

    const sessions: Effect.Effect<ReadonlyArray<SessionInfo>, StorageError> = Effect.map(
      // The stamp moves with every append (next_index) and removal (updated_at, to the microsecond).
      sql<{ session_id: string; ms: number; stamp: string }>`SELECT session_id, (extract(epoch FROM updated_at) * 1000)::float8 AS ms,
          next_index || ':' || (extract(epoch FROM updated_at) * 1000000)::bigint AS stamp
        FROM awhm.log_sessions WHERE namespace = ${ns} ORDER BY updated_at, session_id`,
      (rows) => rows.map((r) => ({ sessionId: r.session_id, mtimeMs: r.ms, stamp: r.stamp }))
    ).pipe(Effect.mapError(fail("list raw-log sessions")))

    const session = (sessionId: string) => Effect.map(sessions, (all) => all.find((s) => s.sessionId === sessionId) ?? null)
    // Readers list every session (one query; the rows carry their stamps).
    const changesSince = () => Effect.succeed({ mark: "", sessions: null })

    const removeEntries = (sessionId: string, indices: ReadonlySet<number>) =>
      sessionId === "" || indices.size === 0
        ? Effect.succeed(0)
        : sql
            .withTransaction(
              Effect.gen(function* () {
                const gone = yield* sql<{ idx: number }>`DELETE FROM awhm.messages
                  WHERE namespace = ${ns} AND session_id = ${sessionId} AND idx = ANY (${[...indices]}::int[]) RETURNING idx`
                if (gone.length > 0) {
                  yield* sql`UPDATE awhm.log_sessions SET updated_at = now() WHERE namespace = ${ns} AND session_id = ${sessionId}`
                }
                return gone.length
              })
            )
            .pipe(Effect.mapError(fail("remove raw-log entries")))

    const nextIndex = (sessionId: string) =>
      Effect.map(
        sql<{ next_index: number }>`SELECT next_index FROM awhm.log_sessions WHERE namespace = ${ns} AND session_id = ${sessionId}`,
        ([row]) => row?.next_index ?? 0
      ).pipe(Effect.mapError(fail("read the raw log")))

    const copyIn = (copy: SessionCopy) =>
      copy.sessionId.includes("\u0000")
        ? Effect.fail(fail("copy into the raw log")(new Error("the session id contains a NUL character, which PostgreSQL text cannot hold")))
        : sql
            .withTransaction(
              Effect.gen(function* () {
                let added = 0
                for (let at = 0; at < copy.entries.length; at += COPY_CHUNK) {
                  const part = copy.entries.slice(at, at + COPY_CHUNK)
                  const rows = yield* sql<{ idx: number }>`INSERT INTO awhm.messages (namespace, session_id, idx, timestamp, role, content, metadata)
                    SELECT ${ns}, ${copy.sessionId}, m.i, m.t, m.r, m.c, m.d
                    FROM unnest(${part.map((e) => e.index)}::int[], ${part.map((e) => e.timestamp)}::text[], ${part.map((e) => e.role)}::text[],
                      ${part.map((e) => JSON.stringify(e.content))}::text[], ${part.map((e) => JSON.stringify(e.metadata))}::text[]) AS m(i, t, r, c, d)
                    ON CONFLICT (namespace, session_id, idx) DO NOTHING RETURNING idx`
                  added += rows.length
                }
                const next = copy.entries.reduce((m, e) => Math.max(m, e.index + 1), copy.nextIndex)
                yield* sql`INSERT INTO awhm.log_sessions (namespace, session_id, next_index, updated_at)
                  VALUES (${ns}, ${copy.sessionId}, ${next}, to_timestamp(${copy.modifiedAtMs / 1000}))
                  ON CONFLICT (namespace, session_id) DO UPDATE SET next_index = greatest(awhm.log_sessions.next_index, excluded.next_index)`
                return added
              })
            )
            .pipe(Effect.mapError(fail("copy into the raw log")))

    const stats = Effect.map(
      sql<{ sessions: number; messages: number }>`SELECT
        (SELECT count(*)::int FROM awhm.log_sessions WHERE namespace = ${ns}) AS sessions,
        (SELECT count(*)::int FROM awhm.messages WHERE namespace = ${ns}) AS messages`,
      ([row]) => ({ sessions: row?.sessions ?? 0, messages: row?.messages ?? 0 })
    ).pipe(Effect.mapError(fail("count the raw log")))

    return RawLog.of({ append, read, sessions, session, changesSince, removeEntries, nextIndex, copyIn, stats } satisfies RawLogShape)
  })

/** The raw log of `storage_backend: postgres`. */
export const RawLogPostgres: Layer.Layer<RawLog, never, PostgresDatabase | AppConfig> = Layer.effect(
  RawLog,
  Effect.gen(function* () {
    const config = yield* AppConfig
    return yield* makeRawLogPostgres(yield* PostgresDatabase, { maxMessageChars: config.maxMessageChars })
  })
)
