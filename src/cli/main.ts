import { Command, ValidationError } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Cause, Effect, Exit, Option } from "effect"
import { stderrLogger } from "../lib/stderrLogger.js"
import { subcommands } from "./commands.js"
import { describeFailure, EXIT_USAGE } from "./errors.js"

export const VERSION = "0.1.0"

const root = Command.make("awhm").pipe(
  Command.withDescription("External long-term memory for LLM agents: local, no cloud, no API keys."),
  Command.withSubcommands([...subcommands])
)

const cli = Command.run(root, { name: "awhm", version: VERSION })

/** Runs the CLI on argv and exits with the contract's code; expected errors are one line on stderr. */
export const main = (argv: ReadonlyArray<string>) =>
  cli(argv).pipe(
    Effect.provide(NodeContext.layer),
    Effect.provide(stderrLogger("awhm")),
    Effect.exit,
    Effect.map((exit) => {
      if (Exit.isSuccess(exit)) return 0
      const failure = Cause.failureOption(exit.cause)
      if (Option.isSome(failure)) {
        // @effect/cli has already printed its own message for bad arguments.
        if (ValidationError.isValidationError(failure.value)) return EXIT_USAGE
        const { line, code } = describeFailure(failure.value)
        process.stderr.write(line + "\n")
        return code
      }
      if (Cause.isInterruptedOnly(exit.cause)) return 130
      const defect = Cause.squash(exit.cause)
      process.stderr.write(describeFailure(defect).line + "\n")
      return 1
    })
  )

export const runCli = (argv: ReadonlyArray<string>) =>
  NodeRuntime.runMain(
    main(argv).pipe(Effect.flatMap((code) => Effect.sync(() => (process.exitCode = code)))),
    { disableErrorReporting: true, disablePrettyLogger: true }
  )
