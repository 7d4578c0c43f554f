// Plain TypeScript: the hook client (src/bin/hookClient.ts) parses arguments too, without loading Effect.

/** Claude Code's hooks, then the hook server's own: `serve` runs it, `shutdown` stops it. */
export const HOOK_EVENTS = ["session-start", "prompt", "stop", "session-end", "settings", "serve", "shutdown"] as const
export type HookEvent = (typeof HOOK_EVENTS)[number]

export interface HookArgs {
  readonly event: HookEvent
  /** prompt: how many memories (default 5). */
  readonly k?: number
  /** prompt: use embeddings too. */
  readonly semantic?: boolean
  /** session-end: run Stage 2 as well. */
  readonly stage2?: boolean
  /** session-end: consolidate in this process, before returning (by default a detached process does it). */
  readonly wait?: boolean
  /** settings: the command Claude Code should run (default: the awhm on PATH). */
  readonly command?: string | null
  readonly dataDir?: string | null
  /** serve: exit after this many seconds without a request. */
  readonly idleSeconds?: number
}

export interface ParsedHookArgv {
  /** Null when the event is unknown. */
  readonly args: HookArgs | null
  /** Problems to report on stderr; the hook still runs with the defaults (it must never block the agent). */
  readonly problems: ReadonlyArray<string>
}

const VALUE_OPTIONS = new Set(["-k", "--data-dir", "--command", "--idle-seconds"])
const FLAGS = new Set(["--semantic", "--stage2", "--wait", "--json"])

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
      if (name === "--wait") args.wait = true
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
    } else if (name === "--idle-seconds") {
      if (/^\d+$/.test(value) && Number(value) >= 1) args.idleSeconds = Number(value)
      else problems.push(`--idle-seconds expects a whole number >= 1, got '${value}'`)
    } else if (name === "--data-dir") args.dataDir = value
    else args.command = value
  }
  return { args, problems }
}
