import * as fs from "node:fs"
import { Effect, Layer } from "effect"
import { StorageError } from "../domain/errors.js"
import { AppConfig } from "../services/AppConfig.js"
import { DeletionRecords, type LedgerRecord, type TombstoneRecord } from "../services/DeletionRecords.js"
import { dataPaths } from "../store/paths.js"
import { appendDeletionRecords, contentHash, parseRecords, tombstoneSalt } from "../store/tombstones.js"

const failure = (what: string, where: string) => (e: unknown) =>
  new StorageError({ operation: "write", path: where, message: `could not ${what} in ${where}: ${(e as NodeJS.ErrnoException).code ?? String(e)}` })

const readIfPresent = (file: string): string => (fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "")

/** Tombstones and ledger as JSON lines in `<data-dir>/meta/`, hashed with the data dir's salt. */
export const DeletionRecordsFile = Layer.effect(
  DeletionRecords,
  Effect.map(AppConfig, (config) => {
    const paths = dataPaths(config.dataDir)
    return DeletionRecords.of({
      contentHash: (content) => Effect.try({ try: () => contentHash(tombstoneSalt(paths), content), catch: failure("read the tombstone salt", paths.meta) }),
      append: (tombstone, ledger) =>
        Effect.try({
          try: () => appendDeletionRecords(paths, [[paths.tombstones, { ...tombstone }], [paths.ledger, { ...ledger }]]),
          catch: failure("write the deletion records", paths.meta)
        }),
      lines: Effect.try({
        try: () => ({ tombstones: readIfPresent(paths.tombstones), ledger: readIfPresent(paths.ledger) }),
        catch: failure("read the deletion records", paths.meta)
      }),
      copyIn: (lines) =>
        Effect.try({
          try: () => {
            const tombstoneIds = new Set(parseRecords<TombstoneRecord>(readIfPresent(paths.tombstones), (r) => r.tombstone_id).map((r) => r.tombstone_id))
            const ledgerIds = new Set(parseRecords<LedgerRecord>(readIfPresent(paths.ledger), (r) => r.record_id).map((r) => r.record_id))
            const added: Array<readonly [string, Record<string, unknown>]> = [
              ...parseRecords<TombstoneRecord>(lines.tombstones, (r) => r.tombstone_id)
                .filter((r) => !tombstoneIds.has(r.tombstone_id))
                .map((r) => [paths.tombstones, { ...r }] as const),
              ...parseRecords<LedgerRecord>(lines.ledger, (r) => r.record_id)
                .filter((r) => !ledgerIds.has(r.record_id))
                .map((r) => [paths.ledger, { ...r }] as const)
            ]
            if (added.length > 0) appendDeletionRecords(paths, added)
            return added.length
          },
          catch: failure("write the deletion records", paths.meta)
        })
    })
  })
)
