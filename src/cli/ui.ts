import { Command, Options } from "@effect/cli"
import { Option } from "effect"
import { serveUi } from "../ui/server.js"
import { dataDirOption, flagMap, jsonOption, withConfig } from "./common.js"

const port = Options.integer("port").pipe(
  Options.withDescription("Port on 127.0.0.1 (default: a free one)"),
  Options.filterMap((n) => (n >= 0 && n <= 65535 ? Option.some(n) : Option.none()), "--port must be a whole number from 0 to 65535"),
  Options.withDefault(0)
)
const open = Options.boolean("open").pipe(Options.withDescription("Open the address in the default browser"))

/** `awhm ui [--port N] [--open]`: the local web viewer. */
export const uiCommand = Command.make("ui", { port, open, dataDir: dataDirOption, json: jsonOption }, (args) =>
  withConfig(flagMap(args.dataDir), (config) => serveUi(config, { port: args.port, open: args.open, json: args.json }))
).pipe(
  Command.withDescription(
    "Serve a web viewer of the memory on 127.0.0.1 (slots and their history, search, graph, sessions, delete, snapshots) until Ctrl-C; the printed address carries this run's secret"
  )
)
