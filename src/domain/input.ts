import { Effect } from "effect"
import { InvalidInput } from "./errors.js"
import { ROLES, type Role } from "./Message.js"
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
 * without its `<private>` spans. Every way a message enters (CLI, MCP, hooks, the library) appends
 * through a RawLog, and every RawLog layer takes its input from here. A message that was nothing but
 * private spans is refused: there is nothing left to store.
 */
export const prepareAppend = (input: {
  readonly sessionId: string
  readonly content: string
  readonly timestamp?: string | undefined
}): Effect.Effect<{ readonly sessionId: string; readonly timestamp: string; readonly content: string }, InvalidInput> =>
  Effect.gen(function* () {
    const sessionId = yield* validateSessionId(input.sessionId)
    const timestamp = yield* resolveTimestamp(input.timestamp)
    const content = withoutPrivate(input.content)
    if (content === "" && content !== input.content) {
      return yield* Effect.fail(new InvalidInput({ message: "the message is all <private> text: nothing was logged" }))
    }
    return { sessionId, timestamp, content }
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
