import * as path from "node:path"
import { Effect } from "effect"
import { makeGraphStorePostgres } from "../../src/layers/GraphStorePostgres.js"
import { openTestDatabase } from "../support/postgres.js"
import { graphStoreContract } from "./contract.js"

// Each temp dir is one namespace of the shared test database: opening the same dir again opens the same graph.
graphStoreContract(
  "postgres",
  (dir) => Effect.flatMap(openTestDatabase("awhm_owner", `test:${path.basename(dir).replace(/[^A-Za-z0-9._-]/g, "")}`), (db) => makeGraphStorePostgres(db)),
  { persistent: true, compactVectors: true }
)
