import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Effect } from "effect"
import { loadConfig } from "../layers/ConfigLive.js"
import { describeFailure } from "../cli/errors.js"
import { VERSION } from "../runtime/version.js"
import { serveMcp } from "./server.js"

/**
 * `awhm-mcp [--data-dir DIR]`: the stdio MCP server without building the whole CLI, so that a client's
 * initialize is answered sooner. A bad configuration is one line on stderr and exit code 2, as `awhm mcp`.
 */
export const main = (args: { readonly dataDir?: string }): void =>
  NodeRuntime.runMain(
    loadConfig(args.dataDir === undefined ? {} : { data_dir: args.dataDir }).pipe(
      Effect.flatMap((config) => serveMcp(config, VERSION)),
      Effect.catchAllCause((cause) =>
        Effect.sync(() => {
          if (Cause.isInterruptedOnly(cause)) return
          const failure = Cause.failureOption(cause)
          const { line, code } = describeFailure(failure._tag === "Some" ? failure.value : Cause.squash(cause))
          process.stderr.write(line + "\n")
          process.exitCode = code
        })
      )
    ),
    { disableErrorReporting: true, disablePrettyLogger: true }
  )
