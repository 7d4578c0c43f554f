import type { Command } from "@effect/cli"

// Every subcommand of `awhm`, one file each, loaded only when it runs: a command must not pay for the
// libraries of the others (NLP for consolidate, MCP for mcp…) at start-up. In the order of the CLI
// contract, which is the order `awhm --help` lists them in.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyCommand = Command.Command<string, never, any, any>

// Each command's own type differs (its options); the CLI only needs "some command".
const lazy = (load: () => Promise<unknown>) => load as () => Promise<AnyCommand>

export const commandLoaders: ReadonlyArray<readonly [string, () => Promise<AnyCommand>]> = [
  ["log", lazy(() => import("./log.js").then((m) => m.logCommand))],
  ["query", lazy(() => import("./query.js").then((m) => m.queryCommand))],
  ["consolidate", lazy(() => import("./consolidate.js").then((m) => m.consolidateCommand))],
  ["nodes", lazy(() => import("./nodes.js").then((m) => m.nodesCommand))],
  ["status", lazy(() => import("./status.js").then((m) => m.statusCommand))],
  ["delete", lazy(() => import("./delete.js").then((m) => m.deleteCommand))],
  ["snapshot", lazy(() => import("./snapshot.js").then((m) => m.snapshotCommand))],
  ["export", lazy(() => import("./export.js").then((m) => m.exportCommand))],
  ["hook", lazy(() => import("./hook.js").then((m) => m.hookCommand))],
  ["doctor", lazy(() => import("./doctor.js").then((m) => m.doctorCommand))],
  ["eval", lazy(() => import("./eval.js").then((m) => m.evalCommand))],
  ["mcp", lazy(() => import("./mcp.js").then((m) => m.mcpCommand))],
  ["model", lazy(() => import("./model.js").then((m) => m.modelCommand))],
  ["ui", lazy(() => import("./ui.js").then((m) => m.uiCommand))],
  ["migrate", lazy(() => import("./migrate.js").then((m) => m.migrateCommand))]
]

/** The subcommands needed for argv: only the one named, or all of them (root help, a typo). */
export const loadSubcommands = (argv: ReadonlyArray<string>): Promise<Array<AnyCommand>> => {
  const named = commandLoaders.find(([name]) => name === argv[2])
  return Promise.all((named === undefined ? commandLoaders : [named]).map(([, load]) => load()))
}
