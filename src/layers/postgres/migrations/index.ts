import * as Migrator from "@effect/sql/Migrator"
import createSchema from "./0001_create_schema.js"
import logMarks from "./0002_log_marks.js"
import searchColumns from "./0003_search_columns.js"
import lookupKeys from "./0004_lookup_keys.js"

// Statically imported so the esbuild bundle carries them (no directory scan at run time).
const migrations = {
  "0001_create_schema": createSchema,
  "0002_log_marks": logMarks,
  "0003_search_columns": searchColumns,
  "0004_lookup_keys": lookupKeys
}

export const postgresMigrations = Migrator.fromRecord(migrations)

/** The id of the newest migration: a database at this id needs no write at open. */
export const latestPostgresMigration = Math.max(...Object.keys(migrations).map((name) => Number(name.slice(0, 4))))
