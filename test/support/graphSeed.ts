import * as path from "node:path"
import { Effect } from "effect"
import type { Graph } from "../../src/domain/Node.js"
import { makeGraphStoreJson } from "../../src/layers/GraphStoreJson.js"
import { makeGraphStoreSqlite } from "../../src/layers/GraphStoreSqlite.js"
import { dataPaths } from "../../src/lib/paths.js"

/** Writes a graph straight into a data dir's store file (for CLI tests that need nodes without consolidating). */
export const seedGraph = (dataDir: string, graph: Graph, backend: "sqlite" | "json" = "sqlite") => {
  const paths = dataPaths(dataDir)
  const open =
    backend === "sqlite"
      ? makeGraphStoreSqlite({ file: paths.graphSqlite, importJson: null, snapshotsDir: paths.snapshots })
      : makeGraphStoreJson({ file: paths.graphJson, lockFile: path.join(paths.locks, "graph.lock"), snapshotsDir: paths.snapshots, importSqlite: null })
  return Effect.runPromise(Effect.scoped(Effect.flatMap(open, (store) => store.replaceAll(graph))))
}

export const graphOf = (nodes: ReadonlyArray<Graph["nodes"] extends Map<string, infer N> ? N : never>, edges: Graph["edges"] = []): Graph => ({
  nodes: new Map(nodes.map((n) => [n.id, n])),
  edges
})
