import { Options } from "@effect/cli"

/** `--data-dir DIR`, accepted by every command (overrides AWHM_DATA_DIR). */
export const dataDirOption = Options.directory("data-dir", { exists: "either" }).pipe(
  Options.withDescription("Data directory (default: $AWHM_DATA_DIR or ~/.awhm)"),
  Options.optional
)

/**
 * `--postgres-url URL`: the server of `storage_backend: postgres` (overrides AWHM_POSTGRES_URL). A password
 * in a flag shows in the process list: prefer the variable, config.json or ~/.pgpass.
 */
export const postgresUrlOption = Options.redacted("postgres-url").pipe(
  Options.withDescription("PostgreSQL server for storage_backend postgres (default: $AWHM_POSTGRES_URL)"),
  Options.optional
)

/** `--json`: print exactly one JSON value on stdout and nothing else. */
export const jsonOption = Options.boolean("json").pipe(Options.withDescription("Print one JSON value on stdout"))

// What a command runs with (no @effect/cli in it, so `awhm query`'s short path can load it alone).
export { flagMap, output, withConfig } from "./commandRun.js"
