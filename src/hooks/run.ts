import { Cause, Effect, Option } from "effect"
import { errorLine } from "../domain/errors.js"
import { loadConfig } from "../layers/ConfigLive.js"
import { stderrLogger } from "../runtime/stderrLogger.js"
import { parsePayload } from "./payload.js"
import { renderSettings } from "./settings.js"
import type { HookArgs } from "./argv.js"
import type { HookIO, HookRunner } from "./io.js"
import type { HookServices } from "./services.js"

const hookErrorLine = (cause: Cause.Cause<unknown>): string => {
  const failure = Cause.failureOption(cause)
  return `awhm hook error: ${errorLine(Option.isSome(failure) ? failure.value : Cause.squash(cause))}`
}

const DEFAULT_K = 5

const runEvent = (args: HookArgs, io: HookIO, services: HookServices | undefined) =>
  Effect.gen(function* () {
    if (args.event === "settings") {
      io.stdout(renderSettings(args.command ?? null) + "\n")
      return
    }
    if (args.event === "serve" || args.event === "shutdown") {
      const { runServerEvent } = yield* Effect.promise(() => import("./serverEvents.js"))
      yield* runServerEvent(args, io, runHook)
      return
    }
    // Set by Stage 2's `claude -p` child (and by anyone who wants the hooks off): no recursion.
    if (io.env.AWHM_HOOK_ACTIVE) return
    const payload = yield* parsePayload(yield* Effect.promise(io.readStdin), io.env)
    if (payload === null) return
    const flags: Record<string, string> = {}
    if (args.dataDir) flags.data_dir = args.dataDir
    if (args.stage2) flags.stage2_enabled = "true"
    const config = yield* loadConfig(flags, io.env)
    // Each event loads only its own code: the prompt hook never loads consolidation or the model.
    switch (args.event) {
      case "session-start": {
        const { runSessionStart } = yield* Effect.promise(() => import("./wiring.js"))
        const out = yield* runSessionStart(config, payload)
        if (out !== null) io.stdout(out + "\n")
        return
      }
      case "prompt": {
        const { runPrompt } = yield* Effect.promise(() => import("./wiring.js"))
        // The answer goes out before the hook's stores close (the hook server replies then).
        yield* runPrompt(config, payload, { k: args.k ?? DEFAULT_K, semantic: args.semantic ?? false }, services, io.stderr, (out) => {
          if (out !== null) io.stdout(out + "\n")
          io.answered?.()
        })
        return
      }
      case "stop": {
        const { runStop } = yield* Effect.promise(() => import("./wiring.js"))
        yield* runStop(config, payload)
        return
      }
      case "session-end": {
        const { memories, runSessionEnd } = yield* Effect.promise(() => import("./sessionEndWiring.js"))
        io.stderr(`awhm: consolidated ${memories(yield* runSessionEnd(config, payload))}\n`)
        return
      }
    }
  })

/**
 * Runs one Claude Code hook. Never fails: any problem becomes one "awhm hook error: …" line on
 * stderr, so a hook can never block the agent.
 */
export const runHook: HookRunner = (args, io, services) =>
  runEvent(args, io, services).pipe(
    Effect.catchAllCause((cause) => Effect.sync(() => io.stderr(hookErrorLine(cause) + "\n"))),
    Effect.provide(stderrLogger("awhm hook", io.stderr))
  )
