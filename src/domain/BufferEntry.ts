import { Schema } from "effect"

/** The four families the session buffer catches, in the order they are tried. */
export const BufferEntryType = Schema.Literal("correction", "preference", "fact", "outcome")
export type BufferEntryType = typeof BufferEntryType.Type

/** A statement caught by the session buffer (persisted in the WAL and in snapshots, snake_case like the reference). */
export const BufferEntry = Schema.Struct({
  type: BufferEntryType,
  content: Schema.String,
  /** ISO timestamp of the log entry it came from. */
  timestamp: Schema.String,
  /** 0-based index of the source message in the session log. */
  source_msg: Schema.Int,
  session_id: Schema.String
})
export type BufferEntry = typeof BufferEntry.Type
