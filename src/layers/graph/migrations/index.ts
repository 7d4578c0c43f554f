import * as Migrator from "@effect/sql/Migrator"
import createGraph from "./0001_create_graph.js"

/** Statically imported so the esbuild bundle carries them (no directory scan at run time). */
export const graphMigrations = Migrator.fromRecord({
  "0001_create_graph": createGraph
})
