// Every subcommand of `awhm`, one file each; add new ones here.
import { consolidateCommand } from "./consolidate.js"
import { deleteCommand } from "./delete.js"
import { evalCommand } from "./eval.js"
import { hookCommand } from "./hook.js"
import { logCommand } from "./log.js"
import { mcpCommand } from "./mcp.js"
import { nodesCommand } from "./nodes.js"
import { queryCommand } from "./query.js"
import { snapshotCommand } from "./snapshot.js"
import { statusCommand } from "./status.js"

// In the order of the CLI contract, which is the order `awhm --help` lists them in.
export const subcommands = [
  logCommand,
  queryCommand,
  consolidateCommand,
  nodesCommand,
  statusCommand,
  deleteCommand,
  snapshotCommand,
  hookCommand,
  evalCommand,
  mcpCommand,
] as const
