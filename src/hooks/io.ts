import type { Effect } from "effect"
import { readProcessStdin } from "../runtime/stdin.js"
import type { HookArgs } from "./argv.js"
import type { HookServices } from "./services.js"

/** Where a hook's output goes: stdout is what Claude Code reads, stderr is for people. */
export interface HookIO {
  readonly readStdin: () => Promise<string>
  readonly stdout: (text: string) => void
  readonly stderr: (text: string) => void
  readonly env: NodeJS.ProcessEnv
  /**
   * Called once the hook's output is complete, before its stores close (the session buffer's WAL is written
   * then): the hook server sends its answer at this point. What is written after it is the server's own.
   */
  readonly answered?: () => void
}

/** Runs one hook event (the in-process runner, which the hook server also uses). */
export type HookRunner = (args: HookArgs, io: HookIO, services?: HookServices) => Effect.Effect<void>

export const processIO = (): HookIO => ({
  readStdin: readProcessStdin,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env
})
