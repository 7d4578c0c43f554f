import { Context, Effect } from "effect"
import { InvalidInput } from "../domain/errors.js"

/** The command line as given to the CLI (main provides it). */
export class CliArgv extends Context.Reference<CliArgv>()("awhm/CliArgv", { defaultValue: (): ReadonlyArray<string> => [] }) {}

const OPTION_LIKE = /^--?[A-Za-z]/

/**
 * A positional value that looks like an option (`awhm query --bogus`): @effect/cli fills an empty positional
 * with an option it does not know, so without this a mistyped flag ran as a query. After `--` it is a value.
 */
export const positional = (value: string): Effect.Effect<string, InvalidInput> =>
  Effect.flatMap(CliArgv, (argv) =>
    OPTION_LIKE.test(value) && !argv.includes("--")
      ? Effect.fail(new InvalidInput({ message: `Received unknown argument: '${value}' (a value that starts with '-' goes after '--')` }))
      : Effect.succeed(value)
  )
