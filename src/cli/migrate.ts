import * as fs from "node:fs"
import { Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { ConfigurationError, errorCode, InvalidInput } from "../domain/errors.js"
import { flagMap, jsonOption, output, postgresUrlOption, withConfig } from "./common.js"

const from = Options.text("from").pipe(Options.withDescription("What to copy: a local data dir (SQLite or JSON graph, raw logs, progress), or postgres"))
const to = Options.text("to").pipe(Options.withDescription("Where to copy it: postgres (postgres_url), or a local data dir (created if missing)"))
const namespace = Options.text("namespace").pipe(Options.withDescription("The namespace copied into or out of, e.g. user:alice"))

const USAGE = "awhm migrate copies between a data dir and PostgreSQL: --from DIR --to postgres, or --from postgres --to DIR"

/** Which way a migrate goes, checked before anything connects. */
const direction = (args: { readonly from: string; readonly to: string }) =>
  Effect.gen(function* () {
    if ((args.from === "postgres") === (args.to === "postgres")) return yield* new InvalidInput({ message: USAGE })
    const dir = args.from === "postgres" ? args.to : args.from
    const stat = yield* Effect.try({
      try: () => fs.statSync(dir, { throwIfNoEntry: false }),
      catch: (e) => new InvalidInput({ message: `cannot use ${dir}: ${errorCode(e) ?? String(e)}` })
    })
    if (args.to === "postgres" && stat === undefined) return yield* new InvalidInput({ message: `--from ${dir}: no such data dir` })
    if (stat !== undefined && !stat.isDirectory()) return yield* new InvalidInput({ message: `${dir} is not a directory` })
    return args.to === "postgres" ? { way: "in" as const, dir } : { way: "out" as const, dir }
  })

/** `awhm migrate`: a local data dir copied into a PostgreSQL namespace, or a namespace into a data dir (again: only what is missing). */
export const migrateCommand = Command.make(
  "migrate",
  { from, to, namespace, postgresUrl: postgresUrlOption, json: jsonOption },
  (args) =>
    Effect.gen(function* () {
      const { way, dir } = yield* direction(args)
      return yield* withConfig(flagMap(Option.some(dir), { write_namespace: args.namespace }, args.postgresUrl), (config) =>
        Effect.gen(function* () {
          if (config.postgresUrl === null) {
            const side = way === "in" ? "--to postgres" : "--from postgres"
            return yield* new ConfigurationError({ message: `invalid configuration: awhm migrate ${side} needs postgres_url (--postgres-url or AWHM_POSTGRES_URL)` })
          }
          // Loaded here: the driver is no cost to the other commands.
          const [{ importDataDir }, { exportNamespace }, { makePostgresDatabase }] = yield* Effect.promise(() =>
            Promise.all([
              import("../layers/postgres/importDataDir.js"),
              import("../layers/postgres/exportNamespace.js"),
              import("../layers/postgres/PostgresDatabase.js")
            ])
          )
          const db = yield* makePostgresDatabase({ url: config.postgresUrl, writeNamespace: config.writeNamespace ?? args.namespace, readNamespaces: [] })
          const say = (line: string) => process.stderr.write(`awhm migrate: ${line}\n`)
          const report =
            way === "in"
              ? yield* importDataDir(db, dir, say)
              : yield* exportNamespace(db, dir, config.storageBackend === "json" ? "json" : "sqlite", say)
          yield* output(args.json, report, () =>
            way === "in"
              ? `copied ${report.nodes} nodes, ${report.edges} edges and ${report.messages} messages in ${report.sessions} sessions into ${report.namespace}`
              : `copied ${report.nodes} nodes, ${report.edges} edges and ${report.messages} messages in ${report.sessions} sessions from ${report.namespace} into ${dir}`
          )
        }).pipe(Effect.scoped)
      )
    })
).pipe(Command.withDescription("Copy a local data dir into a PostgreSQL namespace, or a namespace into a data dir (idempotent)"))
