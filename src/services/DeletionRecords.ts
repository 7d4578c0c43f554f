import { Context, type Effect } from "effect"
import type { StorageError } from "../domain/errors.js"

/** What a delete leaves as proof: a salted hash of the text, never the text. */
export interface TombstoneRecord {
  readonly tombstone_id: string
  readonly timestamp: string
  readonly node_id: string
  readonly content_hash: string
  readonly affected_sessions: ReadonlyArray<string>
  readonly match_strategy: string
  readonly siblings_removed: ReadonlyArray<string>
}

/** What a delete removed, counted. */
export interface LedgerRecord {
  readonly record_id: string
  readonly timestamp: string
  readonly node_id: string
  readonly node_deleted: boolean
  readonly edges_removed: number
  readonly log_entries_removed: number
  readonly buffer_entries_removed: number
  readonly snapshots_touched: number
  readonly tombstone_id: string
  readonly siblings_removed: ReadonlyArray<string>
}

export interface DeletionRecordsShape {
  /** The salted hash (HMAC-SHA256 under the store's own secret salt) a tombstone keeps of a deleted text. */
  readonly contentHash: (content: string) => Effect.Effect<string, StorageError>
  /** Stores one delete's tombstone and ledger record together. */
  readonly append: (tombstone: TombstoneRecord, ledger: LedgerRecord) => Effect.Effect<void, StorageError>
  /** Every record kept, oldest first, as the data dir's meta files hold them (one JSON line each): what an export copies. */
  readonly lines: Effect.Effect<DeletionLines, StorageError>
  /** Keeps the records of `lines` (another store's) not kept yet, by id (`awhm migrate`); how many it added. */
  readonly copyIn: (lines: DeletionLines) => Effect.Effect<number, StorageError>
}

/** Tombstones and ledger records as JSON lines, oldest first. */
export interface DeletionLines {
  readonly tombstones: string
  readonly ledger: string
}

/**
 * The tombstones and the deletion ledger. Layers: the data dir's meta files (with the data dir's salt),
 * PostgreSQL (the write namespace's tables, with a salt of the namespace's own).
 */
export class DeletionRecords extends Context.Tag("awhm/DeletionRecords")<DeletionRecords, DeletionRecordsShape>() {}
