// Every subcommand of `awhm`, one file each; add new ones here.
import { hookCommand } from "./hook.js"
import { logCommand } from "./log.js"
import { mcpCommand } from "./mcp.js"
import { statusCommand } from "./status.js"

export const subcommands = [
  logCommand,
  statusCommand,
  hookCommand,
  mcpCommand,
] as const
