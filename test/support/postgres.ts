import { randomBytes } from "node:crypto"
import { Effect, Redacted } from "effect"
import { makePostgresDatabase } from "../../src/layers/postgres/PostgresDatabase.js"
import { testCluster, type TestRole } from "./pgCluster.js"

/** A namespace no other test uses. */
export const freshNamespace = (kind = "test"): string => `${kind}:${randomBytes(6).toString("hex")}`

/** The database as `role` sees it, reading `read` and writing `write` (the owner grants itself; others need `grantNamespace`). */
export const openTestDatabase = (role: TestRole, write: string, read: ReadonlyArray<string> = []) =>
  makePostgresDatabase({ url: Redacted.make(testCluster().urls[role]), writeNamespace: write, readNamespaces: read })

/** The schema owner grants `role` a namespace (read, or read and write). */
export const grantNamespace = (role: TestRole, namespace: string, write: boolean) =>
  Effect.gen(function* () {
    const owner = yield* openTestDatabase("awhm_owner", freshNamespace("owner"))
    yield* owner.sql`INSERT INTO awhm.grants (role_name, namespace, can_write) VALUES (${role}, ${namespace}, ${write})
      ON CONFLICT (role_name, namespace) DO UPDATE SET can_write = excluded.can_write`
  }).pipe(Effect.scoped, Effect.orDie)
