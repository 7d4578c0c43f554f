// Every subcommand of `awhm`, one file each; add new ones here.
import { consolidateCommand } from "./consolidate.js"
import { deleteCommand } from "./delete.js"
import { hookCommand } from "./hook.js"
import { logCommand } from "./log.js"
import { mcpCommand } from "./mcp.js"
import { nodesCommand } from "./nodes.js"
import { snapshotCommand } from "./snapshot.js"
import { statusCommand } from "./status.js"

export const subcommands = [
  logCommand,
  statusCommand,
  hookCommand,
  mcpCommand,
  nodesCommand,
  snapshotCommand,
  deleteCommand,
  consolidateCommand,
] as const
