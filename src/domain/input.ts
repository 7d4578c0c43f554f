import { Effect } from "effect"
import { InvalidInput } from "./errors.js"
import { ROLES, type Role } from "./Message.js"
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
