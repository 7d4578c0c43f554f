import * as Command from "@effect/platform/Command"
import * as CommandExecutor from "@effect/platform/CommandExecutor"
import type { PlatformError } from "@effect/platform/Error"
import * as NodeCommandExecutor from "@effect/platform-node/NodeCommandExecutor"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { Duration, Effect, Layer, Stream } from "effect"
import { AppConfig } from "../services/AppConfig.js"
import { Stage2Client, Stage2Error, type Stage2Request } from "../services/Stage2Client.js"

const CLIENT = "claude-code"
/** More output than any real answer: a runaway child is cut off rather than filling memory. */
const MAX_STDOUT_BYTES = 8 * 1024 * 1024
const MAX_STDERR_BYTES = 64 * 1024
/** Set in the child so the memory hooks do not fire inside the Stage 2 session. */
export const HOOK_GUARD_ENV = "AWHM_HOOK_ACTIVE"
/** Set by a running Claude Code session; the child must not think it is nested in one. */
const NESTED_SESSION_VARS = ["CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT"]

export interface Stage2ClaudeCodeOptions {
  /** The executable looked up on PATH (default "claude"). */
  readonly executable?: string
  /** The environment the child starts from (default process.env); PATH in it is used to find the binary. */
  readonly env?: NodeJS.ProcessEnv
}

/** The `claude -p` arguments (after the executable) for one request. */
export const claudeArgs = (request: Stage2Request, model: string | null): Array<string> => [
  "-p", request.user,
  "--system-prompt", request.system,
  "--output-format", "json",
  "--json-schema", JSON.stringify(request.schema),
  "--tools", "",
  "--no-session-persistence",
  "--max-turns", "1",
  ...(model === null ? [] : ["--model", model])
]

/** The child's environment: the parent's without the nested-session markers, with the hook guard. */
export const childEnv = (env: NodeJS.ProcessEnv): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(env)) if (v !== undefined && !NESTED_SESSION_VARS.includes(k)) out[k] = v
  out[HOOK_GUARD_ENV] = "1"
  return out
}

const fail = (message: string) => new Stage2Error({ client: CLIENT, message })

/** Collects a byte stream up to `limit` bytes; past it, fails (stdout) or stops keeping bytes (stderr). */
const collect = (stream: Stream.Stream<Uint8Array, PlatformError>, limit: number, onOverflow: "fail" | "truncate") =>
  Stream.runFoldEffect(stream, { chunks: [] as Array<Uint8Array>, size: 0 }, (acc, chunk) => {
    if (acc.size + chunk.length > limit) {
      if (onOverflow === "fail") return Effect.fail(fail(`claude -p wrote more than ${limit} bytes`))
      return Effect.succeed(acc)
    }
    acc.chunks.push(chunk)
    acc.size += chunk.length
    return Effect.succeed(acc)
  }).pipe(Effect.map((acc) => Buffer.concat(acc.chunks).toString("utf8")))

// Platform errors carry the full command line (the prompt): report only their kind.
const platformFailure = (executable: string) => (e: PlatformError | Stage2Error) =>
  e._tag === "Stage2Error"
    ? e
    : e._tag === "SystemError" && e.reason === "NotFound"
      ? fail(`Claude Code CLI "${executable}" not found on PATH: install Claude Code, or use --stage2-client anthropic`)
      : fail(`could not run ${executable} (${e._tag === "SystemError" ? e.reason : "bad argument"})`)

const firstLine = (text: string, max = 300): string => text.trim().split("\n")[0]!.slice(0, max)

const envelopeError = (stdout: string): string => {
  try {
    const e = JSON.parse(stdout) as { is_error?: unknown; result?: unknown }
    return e.is_error === true && typeof e.result === "string" ? firstLine(e.result) : ""
  } catch {
    return ""
  }
}

/** Reads the `--output-format json` envelope: structured_output if present, else the result text. */
export const readEnvelope = (stdout: string): Effect.Effect<unknown, Stage2Error> => {
  let envelope: unknown
  try {
    envelope = JSON.parse(stdout)
  } catch {
    return Effect.fail(fail("claude -p returned non-JSON output"))
  }
  if (typeof envelope !== "object" || envelope === null || Array.isArray(envelope)) {
    return Effect.fail(fail("claude -p returned an unexpected JSON value"))
  }
  const e = envelope as Record<string, unknown>
  if (e.is_error === true) {
    const detail = typeof e.result === "string" ? firstLine(e.result) : typeof e.subtype === "string" ? e.subtype : "unknown error"
    return Effect.fail(fail(`claude -p reported an error: ${detail}`))
  }
  if (e.structured_output !== undefined && e.structured_output !== null) return Effect.succeed(e.structured_output)
  if (typeof e.result === "string" && e.result.trim() !== "") return Effect.succeed(e.result)
  return Effect.fail(fail("claude -p returned no result"))
}

/**
 * Stage 2 through the Claude Code CLI (`claude -p`, the user's own login, no API key): no tools, no
 * session persistence, one turn, stdin closed, killed after stage2_timeout_seconds.
 */
export const makeStage2ClaudeCode = (options: Stage2ClaudeCodeOptions = {}): Layer.Layer<Stage2Client, never, AppConfig> =>
  Layer.effect(
    Stage2Client,
    Effect.gen(function* () {
      const config = yield* AppConfig
      const executor = yield* CommandExecutor.CommandExecutor
      const executable = options.executable ?? "claude"
      const timeout = Duration.seconds(config.stage2TimeoutSeconds)
      const complete = (request: Stage2Request) => {
        const command = Command.make(executable, ...claudeArgs(request, config.stage2Model)).pipe(
          Command.env(childEnv(options.env ?? process.env), { extendEnv: false }),
          // An empty stdin stream: the child sees end-of-file at once, as with /dev/null.
          Command.stdin(Stream.empty)
        )
        return Effect.scoped(
          Effect.gen(function* () {
            const proc = yield* executor.start(command)
            const [stdout, stderr, code] = yield* Effect.all(
              [collect(proc.stdout, MAX_STDOUT_BYTES, "fail"), collect(proc.stderr, MAX_STDERR_BYTES, "truncate"), proc.exitCode],
              { concurrency: "unbounded" }
            )
            if (code !== 0) {
              // The CLI reports some failures (not logged in, …) as an is_error envelope on stdout.
              const detail = firstLine(stderr) || envelopeError(stdout)
              return yield* fail(`claude -p exited with code ${code}${detail === "" ? "" : `: ${detail}`}`)
            }
            return yield* readEnvelope(stdout)
          })
        ).pipe(
          Effect.mapError(platformFailure(executable)),
          // Interrupting the scope kills the child's process group.
          Effect.timeoutFail({
            duration: timeout,
            onTimeout: () => fail(`claude -p timed out after ${config.stage2TimeoutSeconds} s`)
          })
        )
      }
      return Stage2Client.of({ name: CLIENT, complete })
    })
  ).pipe(Layer.provide(NodeCommandExecutor.layer), Layer.provide(NodeFileSystem.layer))

/** The default Stage 2 client: the `claude` on PATH. */
export const Stage2ClaudeCode: Layer.Layer<Stage2Client, never, AppConfig> = makeStage2ClaudeCode()
