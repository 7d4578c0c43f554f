import { HOOK_EVENTS, type HookArgs, type HookEvent } from "./run.js"

export interface ParsedHookArgv {
  /** Null when the event is unknown. */
  readonly args: HookArgs | null
  /** Problems to report on stderr; the hook still runs with the defaults (it must never block the agent). */
  readonly problems: ReadonlyArray<string>
}

const VALUE_OPTIONS = new Set(["-k", "--data-dir", "--command"])
const FLAGS = new Set(["--semantic", "--stage2", "--json"])

/**
 * Parses `awhm hook <event> [options]` without building the whole CLI (the prompt hook runs on every
 * prompt, so its start-up time matters). Accepts what the full CLI accepts: `-k N`, `--semantic`,
 * `--stage2`, `--command X`, `--data-dir DIR`, with a space or "=".
 */
export const parseHookArgv = (argv: ReadonlyArray<string>): ParsedHookArgv => {
  const [event, ...rest] = argv
  if (event === undefined || !(HOOK_EVENTS as ReadonlyArray<string>).includes(event)) {
    return {
      args: null,
      problems: [`unknown hook '${event ?? ""}' (expected one of: ${HOOK_EVENTS.join(", ")})`]
    }
  }
  const problems: Array<string> = []
  const args: { -readonly [K in keyof HookArgs]: HookArgs[K] } = { event: event as HookEvent }
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!
    const eq = arg.startsWith("-") ? arg.indexOf("=") : -1
    const name = eq > 0 ? arg.slice(0, eq) : arg
    if (FLAGS.has(name)) {
      if (name === "--semantic") args.semantic = true
      if (name === "--stage2") args.stage2 = true
      continue
    }
    if (!VALUE_OPTIONS.has(name)) {
      problems.push(`ignored unknown argument '${arg}'`)
      continue
    }
    const value = eq > 0 ? arg.slice(eq + 1) : rest[++i]
    if (value === undefined) {
      problems.push(`${name} needs a value`)
      continue
    }
    if (name === "-k") {
      if (/^\d+$/.test(value) && Number(value) >= 1) args.k = Number(value)
      else problems.push(`-k expects a whole number >= 1, got '${value}'`)
    } else if (name === "--data-dir") args.dataDir = value
    else args.command = value
  }
  return { args, problems }
}
