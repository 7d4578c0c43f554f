import { Command, ValidationError } from "@effect/cli"
import { CliArgv } from "./argv.js"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Cause, Effect, Exit, Option } from "effect"
import { stderrLogger } from "../runtime/stderrLogger.js"
import { VERSION } from "../runtime/version.js"
import { loadSubcommands } from "./commands.js"
import { EXIT_USAGE } from "./errors.js"
import { exitCode, firstLine, runAsProcess, withHeldStderr } from "./outcome.js"

const makeCli = (subcommands: Awaited<ReturnType<typeof loadSubcommands>>) =>
  Command.run(
    Command.make("awhm").pipe(
      Command.withDescription("External long-term memory for LLM agents: local, no cloud, no API keys."),
      Command.withSubcommands(subcommands as [(typeof subcommands)[number], ...typeof subcommands])
    ),
    { name: "awhm", version: VERSION }
  )

/** Runs the CLI on argv and returns the contract's exit code; expected errors are one line on stderr. */
export const main = (argv: ReadonlyArray<string>) =>
  withHeldStderr((held) =>
    Effect.promise(() => loadSubcommands(argv)).pipe(
      Effect.flatMap((subcommands) => makeCli(subcommands)(argv)),
      Effect.provideService(CliArgv, argv),
      Effect.provide(NodeContext.layer),
      Effect.provide(stderrLogger("awhm")),
      Effect.exit,
      Effect.map((exit) => {
        const failure = Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : Option.none()
        if (Option.isSome(failure) && ValidationError.isValidationError(failure.value)) {
          process.stderr.write(`awhm: ${firstLine(held)}\n`)
          return EXIT_USAGE
        }
        return exitCode(exit, held)
      })
    )
  )

/** The CLI as a process: ends as soon as the command's output is written (see exitWhenFlushed). */
export const runCli = (argv: ReadonlyArray<string>) => runAsProcess(main(argv))
