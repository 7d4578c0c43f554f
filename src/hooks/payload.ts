import { Data, Effect } from "effect"
import type { AwhmConfigShape } from "../domain/Config.js"
import { PAYLOAD_ERROR, payloadObject } from "./payloadJson.js"
import { projectDir } from "./project.js"

/** Stdin was not a JSON object (Claude Code always sends one). */
export class HookInputError extends Data.TaggedError("HookInputError")<{ readonly message: string }> {}

/**
 * The fields of Claude Code's hook payload that awhm reads. Unknown fields are ignored; a field of the
 * wrong type is treated as absent, so a newer Claude Code never breaks the hooks.
 */
export interface HookPayload {
  readonly sessionId: string | null
  readonly cwd: string | null
  readonly hookEventName: string | null
  readonly prompt: string | null
  readonly lastAssistantMessage: string | null
  readonly transcriptPath: string | null
  /** The project directory (see projectDir): the scope of what the hook logs and recalls. */
  readonly project: string | null
}

const str = (value: unknown): string | null =>
  typeof value === "string" ? value : typeof value === "number" ? String(value) : null

/**
 * Decodes stdin: null when it is empty (nothing to do), a HookInputError when it is not a JSON object.
 * `env` is the hook's environment: Claude Code's project directory and session id come from there too.
 */
export const parsePayload = (text: string, env: NodeJS.ProcessEnv = {}): Effect.Effect<HookPayload | null, HookInputError> => {
  const o = payloadObject(text)
  if (o === null) return Effect.succeed(null)
  if (o === "invalid") return Effect.fail(new HookInputError({ message: PAYLOAD_ERROR }))
  const cwd = str(o.cwd)
  return Effect.succeed({
    sessionId: str(o.session_id) || env.CLAUDE_CODE_SESSION_ID || null,
    cwd,
    hookEventName: str(o.hook_event_name),
    // Claude Code sends `prompt`; `user_prompt` is accepted too, as the reference did.
    prompt: str(o.user_prompt) ?? str(o.prompt),
    lastAssistantMessage: str(o.last_assistant_message),
    transcriptPath: str(o.transcript_path),
    project: projectDir(env, cwd)
  })
}

const PREFIX = "claude-"

/** "claude-" + Claude Code's session id (never prefixed twice; "claude-unknown" when it is missing). */
export const claudeSessionId = (payload: HookPayload): string => {
  const raw = payload.sessionId?.trim() || "unknown"
  return raw.startsWith(PREFIX) ? raw : PREFIX + raw
}

/** The project scope of this payload: its project in "project" mode, none (global memory) in "global" mode. */
export const payloadScope = (payload: HookPayload, config: AwhmConfigShape): string | null =>
  config.scopeMode === "global" ? null : payload.project

/** Raw-log metadata for a message logged by a hook. */
export const scopeMetadata = (scope: string | null): Record<string, unknown> => (scope === null ? {} : { scope })
