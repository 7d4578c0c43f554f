import { randomBytes } from "node:crypto"
import { Effect, Layer } from "effect"
import { DeletionRecords, type LedgerRecord, type TombstoneRecord } from "../services/DeletionRecords.js"
import { chunks } from "./graph/rows.js"
import { contentHash, parseRecords } from "../store/tombstones.js"
import { PostgresDatabase, type PostgresDatabaseShape } from "./postgres/PostgresDatabase.js"

const SALT_KEY = "tombstone_salt"

/**
 * Tombstones and ledger in the write namespace's tables, hashed with a salt of the namespace's own
 * (`awhm.namespace_meta`, made once by the first delete), so every machine of a team hashes alike.
 */
export const makeDeletionRecordsPostgres = (db: PostgresDatabaseShape) =>
  Effect.sync(() => {
    const { sql, writeNamespace: ns, readNamespaces, fail } = db
    const salt = Effect.gen(function* () {
      yield* sql`INSERT INTO awhm.namespace_meta (namespace, key, value) VALUES (${ns}, ${SALT_KEY}, ${randomBytes(32).toString("hex")})
        ON CONFLICT (namespace, key) DO NOTHING`
      const [row] = yield* sql<{ value: string }>`SELECT value FROM awhm.namespace_meta WHERE namespace = ${ns} AND key = ${SALT_KEY}`
      return row!.value
    }).pipe(Effect.mapError(fail("read the tombstone salt")))
    /** Inserts the records not kept yet (by id) into one of the two tables; how many it added. */
    const copyRecords = (
      table: "tombstones" | "deletion_ledger",
      idColumn: "tombstone_id" | "record_id",
      records: ReadonlyArray<readonly [string, TombstoneRecord | LedgerRecord]>
    ) =>
      Effect.reduce(chunks(records), 0, (added, part) =>
        Effect.map(
          sql.unsafe<{ id: string }>(
            `INSERT INTO awhm.${table} (namespace, ${idColumn}, timestamp, record)
            SELECT $1, t.i, t.ts, t.r FROM unnest($2::text[], $3::text[], $4::text[]) AS t(i, ts, r)
            ON CONFLICT DO NOTHING RETURNING ${idColumn} AS id`,
            [ns, part.map(([id]) => id), part.map(([, r]) => String(r.timestamp)), part.map(([, r]) => JSON.stringify(r))]
          ),
          (rows) => added + rows.length
        )
      )
    return DeletionRecords.of({
      contentHash: (content) => Effect.map(salt, (s) => contentHash(s, content)),
      append: (tombstone, ledger) =>
        sql
          .withTransaction(
            Effect.zipRight(
              copyRecords("tombstones", "tombstone_id", [[tombstone.tombstone_id, tombstone]]),
              copyRecords("deletion_ledger", "record_id", [[ledger.record_id, ledger]])
            )
          )
          .pipe(Effect.mapError(fail("write the deletion records"))),
      // Those of every namespace read: an export holds their nodes too.
      lines: Effect.gen(function* () {
        const jsonLines = (rows: ReadonlyArray<{ record: string }>) => rows.map((r) => r.record + "\n").join("")
        const tombstones = yield* sql<{ record: string }>`SELECT record FROM awhm.tombstones
          WHERE namespace = ANY (${readNamespaces}) ORDER BY timestamp, namespace, tombstone_id`
        const ledger = yield* sql<{ record: string }>`SELECT record FROM awhm.deletion_ledger
          WHERE namespace = ANY (${readNamespaces}) ORDER BY timestamp, namespace, record_id`
        return { tombstones: jsonLines(tombstones), ledger: jsonLines(ledger) }
      }).pipe(Effect.mapError(fail("read the deletion records"))),
      copyIn: (lines) =>
        Effect.gen(function* () {
          const tombstones = parseRecords<TombstoneRecord>(lines.tombstones, (r) => r.tombstone_id)
          const ledger = parseRecords<LedgerRecord>(lines.ledger, (r) => r.record_id)
          return (
            (yield* copyRecords("tombstones", "tombstone_id", tombstones.map((r) => [r.tombstone_id, r] as const))) +
            (yield* copyRecords("deletion_ledger", "record_id", ledger.map((r) => [r.record_id, r] as const)))
          )
        }).pipe(Effect.mapError(fail("copy the deletion records")))
    })
  })

/** The deletion records of `storage_backend: postgres`. */
export const DeletionRecordsPostgres: Layer.Layer<DeletionRecords, never, PostgresDatabase> = Layer.effect(
  DeletionRecords,
  Effect.flatMap(PostgresDatabase, makeDeletionRecordsPostgres)
)
