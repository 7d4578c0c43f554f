import { Effect, Layer } from "effect"
import type { Graph } from "../domain/Node.js"
import { GraphStore, type GraphReader } from "../services/GraphStore.js"
import { applyChanges, copyGraph } from "./graph/applyChanges.js"
import { MemoryGraphSearch } from "./graph/memorySearch.js"
import { reinforced, PendingReinforcement } from "./graph/reinforcement.js"

/** A graph store held in memory (tests, and apps that persist elsewhere). */
export const makeGraphStoreMemory = (initial?: Graph) =>
  Effect.gen(function* () {
    const graph: Graph = initial ? copyGraph(initial) : { nodes: new Map(), edges: [] }
    let version = 0
    const search = new MemoryGraphSearch()
    const current = () => {
      search.use(graph, version)
      return search
    }
    const apply = (changes: Parameters<typeof applyChanges>[1]) => {
      applyChanges(graph, changes)
      version++
    }
    // One writer at a time, as with the file-backed stores.
    const lock = yield* Effect.makeSemaphore(1)
    const getNodes = (ids: ReadonlyArray<string>) =>
      Effect.sync(() => ids.flatMap((id) => {
        const n = graph.nodes.get(id)
        return n === undefined ? [] : [n]
      }))
    const reader: GraphReader = {
      getNodes,
      lexicalTopK: (q) => Effect.sync(() => current().lexicalTopK(q)),
      vectorTopK: (q) => Effect.sync(() => current().vectorTopK(q)),
      neighbours: (ids) => Effect.sync(() => current().neighbours(ids)),
      bySlot: (keys) => Effect.sync(() => current().bySlot(keys)),
      fromMessages: (refs, options) => Effect.sync(() => current().fromMessages(refs, options?.keyed === true)),
      nodesByKeys: (q) => Effect.sync(() => current().nodesByKeys(q)),
      entityForms: Effect.sync(() => current().entityForms()),
      accessCounts: Effect.sync(() => current().accessCountsWith()),
      accessP90: Effect.sync(() => current().accessP90()),
      changeStamp: Effect.sync(() => String(version)),
      // Nothing to share with other processes: written at once.
      reinforce: (items) =>
        lock.withPermits(1)(
          Effect.sync(() => {
            const pending = new PendingReinforcement()
            pending.add(items)
            const taken = pending.take()
            const upsertNodes = reinforced(taken, (id) => graph.nodes.get(id))
            if (upsertNodes.length > 0) apply({ upsertNodes })
          })
        ),
      flushReinforcement: Effect.void
    }
    return GraphStore.of({
      backend: "memory",
      location: null,
      // Vectors are already in memory: `withEmbeddings: false` has nothing to save here.
      load: () => Effect.sync(() => copyGraph(graph)),
      counts: Effect.sync(() => ({ nodes: graph.nodes.size, edges: graph.edges.length })),
      commit: (changes) => lock.withPermits(1)(Effect.sync(() => apply(changes))),
      update: (f) =>
        lock.withPermits(1)(
          Effect.suspend(() => f(copyGraph(graph))).pipe(
            Effect.flatMap(([a, changes]) => Effect.as(Effect.sync(() => apply(changes)), a))
          )
        ),
      updatePart: (f) =>
        lock.withPermits(1)(
          Effect.suspend(() => f(reader)).pipe(Effect.flatMap(([a, changes]) => Effect.as(Effect.sync(() => apply(changes)), a)))
        ),
      replaceAll: (next) =>
        lock.withPermits(1)(
          Effect.sync(() => {
            const copy = copyGraph(next)
            graph.nodes.clear()
            for (const [id, n] of copy.nodes) graph.nodes.set(id, n)
            graph.edges.length = 0
            apply({ addEdges: copy.edges })
          })
        ),
      scrub: Effect.void,
      ...reader
    })
  })

/** GraphStore in memory, empty at start. */
export const GraphStoreMemory: Layer.Layer<GraphStore> = Layer.effect(GraphStore, makeGraphStoreMemory())
