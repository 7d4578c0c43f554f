import * as Reactivity from "@effect/experimental/Reactivity"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Effect, Layer, Redacted } from "effect"
import { ConfigurationError, innermostMessage, StorageError } from "../../domain/errors.js"
import { AppConfig } from "../../services/AppConfig.js"
import { latestPostgresMigration, postgresMigrations } from "./migrations/index.js"

/** One connection pool to the awhm schema, with the namespaces this client reads and writes. */
export interface PostgresDatabaseShape {
  readonly sql: SqlClient.SqlClient
  readonly readNamespaces: ReadonlyArray<string>
  readonly writeNamespace: string
  /** The server and database, without the password (for messages). */
  readonly where: string
  /** True when the connected role owns the schema (it may VACUUM and manage grants). */
  readonly isOwner: boolean
  /** Turns a driver failure into a StorageError naming the operation (never the password, never row data). */
  readonly fail: (operation: string) => (e: unknown) => StorageError
}

export class PostgresDatabase extends Context.Tag("awhm/PostgresDatabase")<PostgresDatabase, PostgresDatabaseShape>() {}

export interface PostgresOptions {
  readonly url: Redacted.Redacted<string>
  readonly readNamespaces: ReadonlyArray<string>
  readonly writeNamespace: string
  readonly maxConnections?: number
}

/** `postgres://user@host:port/db` with the password left out, for messages and `status`. */
export const redactUrl = (url: string): string =>
  url.replace(/^(postgres(?:ql)?:\/\/)([^@/?#]*)@/i, (_m, scheme: string, auth: string) => `${scheme}${auth.split(":")[0]}@`)

/** The connection URL with the namespace settings added as startup options (applied to every pooled connection). */
const withSettings = (url: string, readNamespaces: ReadonlyArray<string>, writeNamespace: string): string => {
  const q = url.indexOf("?")
  const base = q === -1 ? url : url.slice(0, q)
  const params = new URLSearchParams(q === -1 ? "" : url.slice(q + 1))
  const own = `-c app.namespaces=${readNamespaces.join(",")} -c app.write_namespace=${writeNamespace}`
  params.set("options", [params.get("options"), own].filter((s) => s !== null && s !== "").join(" "))
  return `${base}?${params.toString()}`
}

/**
 * Connects, brings the schema up to date (only the schema's owner can; others get a clear error if it
 * is behind), and checks that this role may read and write the configured namespaces. The owner grants
 * itself its configured namespaces; every other role needs grants from the owner.
 */
export const makePostgresDatabase = (options: PostgresOptions) =>
  Effect.gen(function* () {
    const where = redactUrl(Redacted.value(options.url))
    const fail = (operation: string) => (e: unknown): StorageError =>
      e instanceof StorageError
        ? e
        : new StorageError({ operation, path: where, message: `${operation} failed on ${where}: ${innermostMessage(e)}` })
    const readNamespaces = Array.from(new Set([options.writeNamespace, ...options.readNamespaces]))
    const sql = yield* PgClient.make({
      url: Redacted.make(withSettings(Redacted.value(options.url), readNamespaces, options.writeNamespace)),
      applicationName: "awhm",
      // No connectTimeout: the driver would apply it to waiting for a pooled connection too (busy
      // consolidations hold one for a while); the first connect still times out after 5 s.
      maxConnections: options.maxConnections ?? 4
    }).pipe(
      Effect.provide(Reactivity.layer),
      Effect.mapError((e) => new StorageError({ operation: "connect", path: where, message: `could not connect to ${where}: ${innermostMessage(e)}` }))
    )

    const current = yield* sql<{ m: number | null }>`SELECT max(migration_id) AS m FROM awhm.awhm_migrations`.pipe(
      Effect.map(([row]) => row?.m ?? 0),
      Effect.orElseSucceed(() => 0)
    )
    if (current < latestPostgresMigration) {
      yield* sql
        .withTransaction(
          Effect.gen(function* () {
            // One migrator at a time across every client of the server.
            yield* sql`SELECT pg_advisory_xact_lock(hashtext('awhm:migrate'))`
            yield* sql`CREATE SCHEMA IF NOT EXISTS awhm`
            // The Migrator's own "does the table exist" probe fails inside a transaction (aborting it): create it first.
            yield* sql`CREATE TABLE IF NOT EXISTS awhm.awhm_migrations (
              migration_id integer PRIMARY KEY, created_at timestamptz NOT NULL DEFAULT now(), name text NOT NULL
            )`
            yield* Migrator.make({})({ loader: postgresMigrations, table: "awhm.awhm_migrations" }).pipe(
              Effect.provideService(SqlClient.SqlClient, sql)
            )
          })
        )
        .pipe(
          Effect.mapError((e) =>
            new StorageError({
              operation: "migrate",
              path: where,
              message: `the awhm schema on ${where} is missing or older than this awhm needs (migration ${latestPostgresMigration}) and this role cannot create it (${innermostMessage(e)}); run awhm once with the schema owner's postgres_url`
            })
          )
        )
    }

    const [owner] = yield* sql<{ owner: boolean }>`SELECT pg_has_role(current_user, n.nspowner, 'USAGE') AS owner
      FROM pg_namespace n WHERE n.nspname = 'awhm'`.pipe(Effect.mapError(fail("connect")))
    const isOwner = owner?.owner === true
    if (isOwner) {
      yield* sql`INSERT INTO awhm.grants (role_name, namespace, can_write)
        SELECT current_user, r.namespace, r.can_write
        FROM unnest(${readNamespaces}::text[], ${readNamespaces.map((n) => n === options.writeNamespace)}::boolean[]) AS r(namespace, can_write)
        ON CONFLICT (role_name, namespace) DO UPDATE SET can_write = awhm.grants.can_write OR excluded.can_write`.pipe(
        Effect.mapError(fail("grant"))
      )
    }
    const [access] = yield* sql<{ role: string; w: string | null; r: ReadonlyArray<string> }>`SELECT current_user AS role,
      awhm.write_namespace() AS w, awhm.readable_namespaces() AS r`.pipe(Effect.mapError(fail("connect")))
    const role = access?.role ?? "?"
    if (access?.w !== options.writeNamespace) {
      return yield* new StorageError({
        operation: "connect",
        path: where,
        message: `the role ${role} may not write namespace ${options.writeNamespace} on ${where}; the schema owner grants it: INSERT INTO awhm.grants VALUES ('${role}', '${options.writeNamespace}', true)`
      })
    }
    const missing = readNamespaces.filter((ns) => !(access?.r ?? []).includes(ns))
    if (missing.length > 0) {
      return yield* new StorageError({
        operation: "connect",
        path: where,
        message: `the role ${role} may not read namespace ${missing.join(", ")} on ${where}; the schema owner grants it: INSERT INTO awhm.grants VALUES ('${role}', '${missing[0]}', false)`
      })
    }
    return PostgresDatabase.of({ sql, readNamespaces, writeNamespace: options.writeNamespace, where, isOwner, fail })
  })

/** The database of `storage_backend: postgres`, from `postgres_url`, `namespaces` and `write_namespace`. */
export const PostgresDatabaseLive: Layer.Layer<PostgresDatabase, StorageError | ConfigurationError, AppConfig> = Layer.scoped(
  PostgresDatabase,
  Effect.gen(function* () {
    const config = yield* AppConfig
    if (config.postgresUrl === null) {
      return yield* new ConfigurationError({
        message: "invalid configuration: storage_backend postgres needs postgres_url (--postgres-url, AWHM_POSTGRES_URL or config.json)"
      })
    }
    const writeNamespace = config.writeNamespace ?? config.namespaces[0]
    if (writeNamespace === undefined) {
      return yield* new ConfigurationError({
        message: "invalid configuration: storage_backend postgres needs write_namespace (for example user:alice)"
      })
    }
    return yield* makePostgresDatabase({ url: config.postgresUrl, readNamespaces: config.namespaces, writeNamespace })
  })
)
