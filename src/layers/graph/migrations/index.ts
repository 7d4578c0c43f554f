import * as Migrator from "@effect/sql/Migrator"
import createGraph from "./0001_create_graph.js"

// Statically imported so the esbuild bundle carries them (no directory scan at run time).
const migrations = {
  "0001_create_graph": createGraph
}

export const graphMigrations = Migrator.fromRecord(migrations)

/** The id of the newest migration: a database at this id needs no write at open. */
export const latestGraphMigration = Math.max(...Object.keys(migrations).map((name) => Number(name.slice(0, 4))))
