import { Command } from "@effect/cli"
import { Effect } from "effect"
import { VERSION } from "../runtime/version.js"
import { dataDirOption, flagMap, postgresUrlOption, withConfig } from "./common.js"

/** `awhm mcp` (also the bin `awhm-mcp`): the stdio MCP server. */
export const mcpCommand = Command.make("mcp", { dataDir: dataDirOption, postgresUrl: postgresUrlOption }, (args) =>
  withConfig(flagMap(args.dataDir, {}, args.postgresUrl), (config) =>
    Effect.gen(function* () {
      // Loaded on demand: the other commands never pay for the MCP server's code.
      const { serveMcp } = yield* Effect.promise(() => import("../mcp/server.js"))
      yield* serveMcp(config, VERSION)
    })
  )
).pipe(
  Command.withDescription(
    "Serve memory to an MCP client (Claude Code, Claude Desktop…) over stdio: memory_query, memory_log, memory_consolidate, memory_status, memory_snapshot_create, memory_delete_node. Logs go to stderr."
  )
)
