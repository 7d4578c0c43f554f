import { Effect } from "effect"
import type { Graph } from "../../src/domain/Node.js"
import { openGraphStoreFile } from "../../src/layers/graph/openStore.js"

/** Writes a graph straight into a data dir's store file (for CLI tests that need nodes without consolidating). */
export const seedGraph = (dataDir: string, graph: Graph, backend: "sqlite" | "json" = "sqlite") => {
  return Effect.runPromise(Effect.scoped(Effect.flatMap(openGraphStoreFile(backend, dataDir), (store) => store.replaceAll(graph))))
}

export const graphOf = (nodes: ReadonlyArray<Graph["nodes"] extends Map<string, infer N> ? N : never>, edges: Graph["edges"] = []): Graph => ({
  nodes: new Map(nodes.map((n) => [n.id, n])),
  edges
})
