import { Effect } from "effect"
import { InvalidInput } from "./errors.js"
import { RawLogEntry, ROLES, type Role } from "./Message.js"
import { withoutPrivate } from "./privateSpans.js"
import { nowIso, parseTimestamp } from "./time.js"

/** Checks a session id: any string but the empty one (file names are made safe by encodeSessionId). */
export const validateSessionId = (sessionId: string): Effect.Effect<string, InvalidInput> =>
  sessionId === ""
    ? Effect.fail(new InvalidInput({ message: "the session id must not be empty" }))
    : Effect.succeed(sessionId)

/** The canonical timestamp of a new message: the given one (a replayed history) or now. */
export const resolveTimestamp = (timestamp: string | undefined): Effect.Effect<string, InvalidInput> => {
  if (timestamp === undefined) return Effect.sync(nowIso)
  const parsed = parseTimestamp(timestamp)
  return parsed === null
    ? Effect.fail(
        new InvalidInput({ message: `invalid timestamp '${timestamp.slice(0, 64)}': expected an ISO date such as 2026-03-01T10:00:00Z` })
      )
    : Effect.succeed(parsed)
}

/**
 * What every raw log stores of a new message, checked: the session id, the timestamp, and the content
 * without its `<private>` spans, non-empty and at most `maxChars` characters (max_message_chars). Every
 * way a message enters (CLI, MCP, hooks, the library) appends through a RawLog, and every RawLog layer
 * takes its input from here. A message that was nothing but private spans is refused: there is nothing
 * left to store.
 */
export const prepareAppend = (
  input: {
    readonly sessionId: string
    readonly role: Role
    readonly content: string
    readonly timestamp?: string | undefined
    readonly metadata?: Record<string, unknown> | undefined
  },
  maxChars: number
): Effect.Effect<
  { readonly sessionId: string; readonly timestamp: string; readonly content: string; readonly entryAt: (index: number) => RawLogEntry },
  InvalidInput
> =>
  Effect.gen(function* () {
    const sessionId = yield* validateSessionId(input.sessionId)
    const timestamp = yield* resolveTimestamp(input.timestamp)
    const kept = withoutPrivate(input.content)
    if (kept === "" && kept !== input.content) {
      return yield* Effect.fail(new InvalidInput({ message: "the message is all <private> text: nothing was logged" }))
    }
    const content = yield* validateContent(kept, maxChars)
    const entryAt = (index: number) =>
      new RawLogEntry({ timestamp, session_id: sessionId, role: input.role, content, metadata: input.metadata ?? {}, index })
    return { sessionId, timestamp, content, entryAt }
  })

/** Parses a role name as the reference did (trimmed, lower-cased). */
export const parseRole = (input: string): Effect.Effect<Role, InvalidInput> => {
  const role = input.trim().toLowerCase()
  return (ROLES as ReadonlyArray<string>).includes(role)
    ? Effect.succeed(role as Role)
    : Effect.fail(
        new InvalidInput({ message: `invalid role '${input.slice(0, 64)}': expected one of ${ROLES.join(", ")}` })
      )
}

/** Parses a user-supplied as-of date (`--as-of`, `as_of`, `asOf`: the name the user typed) into canonical UTC ISO. */
export const parseAsOf = (input: string | null | undefined, name = "--as-of"): Effect.Effect<string | null, InvalidInput> => {
  if (input === null || input === undefined) return Effect.succeed(null)
  const parsed = parseTimestamp(input)
  return parsed === null
    ? Effect.fail(
        new InvalidInput({ message: `invalid ${name} '${input.slice(0, 64)}': expected an ISO date such as 2026-03-01 or 2026-03-01T10:00:00Z` })
      )
    : Effect.succeed(parsed)
}

/** Checks a message's text: something to remember, and at most `maxChars` characters (max_message_chars). */
const validateContent = (content: string, maxChars: number): Effect.Effect<string, InvalidInput> =>
  content.trim() === ""
    ? Effect.fail(new InvalidInput({ message: "the message is empty: there is nothing to remember" }))
    : content.length > maxChars
      ? Effect.fail(
          new InvalidInput({
            message: `the message has ${content.length} characters, more than max_message_chars (${maxChars}); split it or raise the limit`
          })
        )
      : Effect.succeed(content)

/** Checks a query's length against the same limit (a query of megabytes would hold up every search). */
export const validateQuery = (query: string, maxChars: number): Effect.Effect<string, InvalidInput> =>
  query.length > maxChars
    ? Effect.fail(
        new InvalidInput({ message: `the query has ${query.length} characters, more than max_message_chars (${maxChars})` })
      )
    : Effect.succeed(query)

/**
 * A message cut to at most `maxChars` characters, ending with a note that says how much was left out. The
 * hooks store an over-long prompt or reply this way: refusing it would lose it, and the agent must not wait.
 */
export const truncateMessage = (content: string, maxChars: number): string => {
  if (content.length <= maxChars) return content
  const note = `\n[awhm: cut to max_message_chars; ${content.length} characters in all]`
  let cut = Math.max(0, maxChars - note.length)
  // Never split a surrogate pair.
  const last = content.charCodeAt(cut - 1)
  if (cut > 0 && last >= 0xd800 && last <= 0xdbff) cut--
  return content.slice(0, cut) + note.slice(0, maxChars - cut)
}
