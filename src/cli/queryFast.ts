import { Effect, Option } from "effect"
import { stderrLogger } from "../runtime/stderrLogger.js"
import { CliArgv } from "./argv.js"
import { exitCode, runAsProcess, withHeldStderr } from "./outcome.js"
import type { ShortQuery } from "./queryArgv.js"
import { runQuery } from "./queryRun.js"

/**
 * `awhm query` in its common forms (queryArgv.ts) without @effect/cli and the command tree: the same
 * program, output, errors and exit codes as through main.ts, less start-up.
 */
export const runShortQuery = (argv: ReadonlyArray<string>, query: ShortQuery) =>
  runAsProcess(
    withHeldStderr((held) =>
      runQuery({
        text: query.text,
        k: Option.fromNullable(query.k),
        includeHistory: query.includeHistory,
        trace: query.trace,
        asOf: Option.none(),
        session: Option.none(),
        lexicalOnly: query.lexicalOnly,
        dataDir: Option.none(),
        postgresUrl: Option.none(),
        json: query.json
      }).pipe(
        Effect.provideService(CliArgv, argv),
        Effect.provide(stderrLogger("awhm")),
        Effect.exit,
        Effect.map((exit) => exitCode(exit, held))
      )
    )
  )
