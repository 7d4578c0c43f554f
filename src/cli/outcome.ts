import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { defaultTeardown } from "@effect/platform/Runtime"
import { Cause, type Console, Effect, Exit, Option } from "effect"
import { exitWhenFlushed } from "../runtime/exitWhenFlushed.js"
import { describeFailure } from "./errors.js"

// What the CLI does with a command's output and outcome, apart from @effect/cli (main.ts adds its usage
// errors): `awhm query`'s short path (queryFast.ts) ends the same way without loading it.

// eslint-disable-next-line no-control-regex -- ANSI colour codes are what is being removed
export const stripAnsi = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, "")

/**
 * @effect/cli prints a multi-line help document for bad arguments; the contract wants one line. So its
 * stderr output is held back and, for a usage error, only the first meaningful line is printed. Its
 * stdout (help, and every command's output) is written as is, without colours when not a terminal.
 */
export const withHeldStderr = <A, E, R>(body: (held: Array<string>) => Effect.Effect<A, E, R>) =>
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

export const firstLine = (held: ReadonlyArray<string>): string =>
  held
    .flatMap((t) => stripAnsi(t).split("\n"))
    .map((l) => l.trim())
    .find((l) => l !== "") ?? "invalid arguments (see --help)"

/** A command's exit code; held stderr lines, then an expected error as one line, are written on stderr. */
export const exitCode = <A, E>(exit: Exit.Exit<A, E>, held: ReadonlyArray<string>): number => {
  for (const text of held) process.stderr.write(text + "\n")
  if (Exit.isSuccess(exit)) return 0
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure)) {
    const { line, code } = describeFailure(failure.value)
    process.stderr.write(line + "\n")
    return code
  }
  if (Cause.isInterruptedOnly(exit.cause)) return 130
  process.stderr.write(describeFailure(Cause.squash(exit.cause)).line + "\n")
  return 1
}

/** Runs a command's effect (its exit code) as the process: ends as soon as its output is written (see exitWhenFlushed). */
export const runAsProcess = (program: Effect.Effect<number>) =>
  NodeRuntime.runMain(
    program.pipe(Effect.flatMap((code) => Effect.sync(() => (process.exitCode = code)))),
    { disableErrorReporting: true, disablePrettyLogger: true, teardown: (exit, onExit) => (Exit.isSuccess(exit) ? exitWhenFlushed() : defaultTeardown(exit, onExit)) }
  )
