import { Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { ConfigurationError } from "../domain/errors.js"
import { flagMap, jsonOption, output, postgresUrlOption, withConfig } from "./common.js"

const from = Options.directory("from", { exists: "yes" }).pipe(Options.withDescription("The local data dir to copy (SQLite or JSON graph, raw logs, progress)"))
const to = Options.choice("to", ["postgres"]).pipe(Options.withDescription("Where to copy it: postgres (postgres_url)"))
const namespace = Options.text("namespace").pipe(Options.withDescription("The namespace it goes into, e.g. user:alice"))

/** `awhm migrate`: a local data dir copied into a PostgreSQL namespace (again: only what is missing). */
export const migrateCommand = Command.make(
  "migrate",
  { from, to, namespace, postgresUrl: postgresUrlOption, json: jsonOption },
  (args) =>
    withConfig(flagMap(Option.some(args.from), { write_namespace: args.namespace }, args.postgresUrl), (config) =>
      Effect.gen(function* () {
        if (config.postgresUrl === null) {
          return yield* new ConfigurationError({ message: "invalid configuration: awhm migrate --to postgres needs postgres_url (--postgres-url or AWHM_POSTGRES_URL)" })
        }
        // Loaded here: the driver is no cost to the other commands.
        const [{ importDataDir }, { makePostgresDatabase }] = yield* Effect.promise(() =>
          Promise.all([import("../layers/postgres/importDataDir.js"), import("../layers/postgres/PostgresDatabase.js")])
        )
        const db = yield* makePostgresDatabase({ url: config.postgresUrl, writeNamespace: config.writeNamespace ?? args.namespace, readNamespaces: [] })
        const report = yield* importDataDir(db, args.from, (line) => process.stderr.write(`awhm migrate: ${line}\n`))
        yield* output(args.json, report, () =>
          `copied ${report.nodes} nodes, ${report.edges} edges and ${report.messages} messages in ${report.sessions} sessions into ${report.namespace}`
        )
      }).pipe(Effect.scoped)
    )
).pipe(Command.withDescription("Copy a local data dir into a PostgreSQL namespace (idempotent)"))
