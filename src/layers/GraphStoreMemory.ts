import { Effect, Layer } from "effect"
import type { Graph } from "../domain/Node.js"
import { GraphStore } from "../services/GraphStore.js"
import { applyChanges, copyGraph } from "./graph/applyChanges.js"

/** A graph store held in memory (tests, and apps that persist elsewhere). */
export const makeGraphStoreMemory = (initial?: Graph) =>
  Effect.gen(function* () {
    const graph: Graph = initial ? copyGraph(initial) : { nodes: new Map(), edges: [] }
    // One writer at a time, as with the file-backed stores.
    const lock = yield* Effect.makeSemaphore(1)
    return GraphStore.of({
      backend: "memory",
      location: null,
      // Vectors are already in memory: `withEmbeddings: false` has nothing to save here.
      load: () => Effect.sync(() => copyGraph(graph)),
      getNodes: (ids) =>
        Effect.sync(() => ids.flatMap((id) => {
          const n = graph.nodes.get(id)
          return n === undefined ? [] : [n]
        })),
      counts: Effect.sync(() => ({ nodes: graph.nodes.size, edges: graph.edges.length })),
      commit: (changes) => lock.withPermits(1)(Effect.sync(() => applyChanges(graph, changes))),
      update: (f) =>
        lock.withPermits(1)(
          Effect.suspend(() => f(copyGraph(graph))).pipe(
            Effect.flatMap(([a, changes]) => Effect.as(Effect.sync(() => applyChanges(graph, changes)), a))
          )
        ),
      replaceAll: (next) =>
        lock.withPermits(1)(
          Effect.sync(() => {
            const copy = copyGraph(next)
            graph.nodes.clear()
            for (const [id, n] of copy.nodes) graph.nodes.set(id, n)
            graph.edges.length = 0
            applyChanges(graph, { addEdges: copy.edges })
          })
        ),
      scrub: Effect.void
    })
  })

/** GraphStore in memory, empty at start. */
export const GraphStoreMemory: Layer.Layer<GraphStore> = Layer.effect(GraphStore, makeGraphStoreMemory())
