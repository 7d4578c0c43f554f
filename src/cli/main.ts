import { Command, ValidationError } from "@effect/cli"
import { CliArgv } from "./argv.js"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { defaultTeardown } from "@effect/platform/Runtime"
import { Cause, Console, Effect, Exit, Option } from "effect"
import { exitWhenFlushed } from "../runtime/exitWhenFlushed.js"
import { stderrLogger } from "../runtime/stderrLogger.js"
import { VERSION } from "../runtime/version.js"
import { loadSubcommands } from "./commands.js"
import { describeFailure, EXIT_USAGE } from "./errors.js"


const makeCli = (subcommands: Awaited<ReturnType<typeof loadSubcommands>>) =>
  Command.run(
    Command.make("awhm").pipe(
      Command.withDescription("External long-term memory for LLM agents: local, no cloud, no API keys."),
      Command.withSubcommands(subcommands as [(typeof subcommands)[number], ...typeof subcommands])
    ),
    { name: "awhm", version: VERSION }
  )

// eslint-disable-next-line no-control-regex -- ANSI colour codes are what is being removed
const stripAnsi = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, "")

/**
 * @effect/cli prints a multi-line help document for bad arguments; the contract wants one line. So its
 * stderr output is held back and, for a usage error, only the first meaningful line is printed. Its
 * stdout (help, and every command's output) is written as is, without colours when not a terminal.
 */
const withHeldStderr = <A, E, R>(body: (held: Array<string>) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.console, (base) => {
    const held: Array<string> = []
    const hold = (...args: ReadonlyArray<unknown>) => {
      held.push(args.map(String).join(" "))
    }
    // Help text carries ANSI colours; a pipe or file gets plain text.
    const plain = !process.stdout.isTTY
    const log = (...args: ReadonlyArray<unknown>) => {
      const text = args.map(String).join(" ")
      globalThis.console.log(plain ? stripAnsi(text) : text)
    }
    const console: Console.Console = {
      ...base,
      log: (...args) => Effect.sync(() => log(...args)),
      error: (...args) => Effect.sync(() => hold(...args)),
      unsafe: { ...base.unsafe, log, error: hold }
    }
    return Effect.withConsole(body(held), console)
  })

const firstLine = (held: ReadonlyArray<string>): string =>
  held
    .flatMap((t) => stripAnsi(t).split("\n"))
    .map((l) => l.trim())
    .find((l) => l !== "") ?? "invalid arguments (see --help)"

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
        for (const text of held) process.stderr.write(text + "\n")
        if (Exit.isSuccess(exit)) return 0
        if (Option.isSome(failure)) {
          const { line, code } = describeFailure(failure.value)
          process.stderr.write(line + "\n")
          return code
        }
        if (Cause.isInterruptedOnly(exit.cause)) return 130
        process.stderr.write(describeFailure(Cause.squash(exit.cause)).line + "\n")
        return 1
      })
    )
  )

/** The CLI as a process: ends as soon as the command's output is written (see exitWhenFlushed). */
export const runCli = (argv: ReadonlyArray<string>) =>
  NodeRuntime.runMain(
    main(argv).pipe(Effect.flatMap((code) => Effect.sync(() => (process.exitCode = code)))),
    { disableErrorReporting: true, disablePrettyLogger: true, teardown: (exit, onExit) => (Exit.isSuccess(exit) ? exitWhenFlushed() : defaultTeardown(exit, onExit)) }
  )
