import { Effect } from "effect"
import { parseHookArgv } from "./argv.js"
import { processIO } from "./io.js"
import { runHook } from "./run.js"

/**
 * `awhm hook …` without the full CLI: the bin dispatches here directly. Always exits 0; problems are
 * one line each on stderr. `stdin`: the payload when the caller has already read it.
 */
export const main = async (argv: ReadonlyArray<string>, stdin?: string): Promise<void> => {
  const io = stdin === undefined ? processIO() : { ...processIO(), readStdin: () => Promise.resolve(stdin) }
  try {
    const { args, problems } = parseHookArgv(argv)
    for (const problem of problems) io.stderr(`awhm hook error: ${problem}\n`)
    if (args !== null) await Effect.runPromise(runHook(args, io))
  } catch (e) {
    // runHook never fails; this is the last guard of the "never block the agent" promise.
    io.stderr(`awhm hook error: ${(e instanceof Error ? e.message : String(e)).split("\n")[0]}\n`)
  }
  process.exitCode = 0
}
