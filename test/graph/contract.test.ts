import * as path from "node:path"
import { Effect } from "effect"
import { makeGraphStoreMemory } from "../../src/layers/GraphStoreMemory.js"
import { makeGraphStoreJson } from "../../src/layers/GraphStoreJson.js"
import { makeGraphStoreSqlite } from "../../src/layers/GraphStoreSqlite.js"
import { graphStoreContract } from "./contract.js"

graphStoreContract(
  "sqlite",
  (dir) =>
    makeGraphStoreSqlite({
      file: path.join(dir, "graph", "memory_graph.sqlite"),
      importJson: path.join(dir, "graph", "memory_graph.json"),
      snapshotsDir: path.join(dir, "snapshots")
    }),
  { persistent: true, compactVectors: true, readsWithoutVectors: true }
)

graphStoreContract(
  "json",
  (dir) =>
    makeGraphStoreJson({
      file: path.join(dir, "graph", "memory_graph.json"),
      lockFile: path.join(dir, "locks", "graph.lock"),
      snapshotsDir: path.join(dir, "snapshots"),
      importSqlite: path.join(dir, "graph", "memory_graph.sqlite")
    }),
  { persistent: true }
)

graphStoreContract("memory", () => Effect.scoped(makeGraphStoreMemory()), { persistent: false })
