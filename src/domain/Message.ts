import { Schema } from "effect"

/** Who said a message. */
export const Role = Schema.Literal("user", "assistant", "tool_call", "tool_result")
export type Role = typeof Role.Type
export const ROLES: ReadonlyArray<Role> = Role.literals

/**
 * One raw-log line, as stored on disk (snake_case, compatible with the reference's JSONL).
 * `index` is the 0-based message index within the session; it never changes once written.
 */
export class RawLogEntry extends Schema.Class<RawLogEntry>("RawLogEntry")({
  timestamp: Schema.String,
  session_id: Schema.String,
  role: Role,
  content: Schema.String,
  metadata: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Unknown }), {
    default: () => ({})
  }),
  index: Schema.Int
}) {}

/** Where a memory came from: one message of one session. */
export const SourceRef = Schema.Struct({
  sessionId: Schema.String,
  messageIndex: Schema.Int
})
export type SourceRef = typeof SourceRef.Type
