import type { Edge, Graph } from "../../domain/Node.js"
import type { GraphChanges } from "../../services/GraphStore.js"

/** Edges are identified by (source, target, type): adding an existing one replaces its weight and time. */
export const edgeKey = (e: Pick<Edge, "source" | "target" | "type">): string =>
  `${e.source}\u0000${e.target}\u0000${e.type}`

/** A copy of the graph sharing the (immutable) node objects, so callers may mutate the Map and array freely. */
export const copyGraph = (graph: Graph): Graph => ({ nodes: new Map(graph.nodes), edges: graph.edges.slice() })

/**
 * Applies changes to a graph in place, in the order every backend uses: delete nodes (and their edges),
 * upsert nodes, add edges (an existing edge keeps its place). Edges whose endpoints do not exist are
 * dropped, so no backend ever holds a dangling edge.
 */
export const applyChanges = (graph: Graph, changes: GraphChanges): void => {
  const deleted = new Set(changes.deleteNodes ?? [])
  for (const id of deleted) graph.nodes.delete(id)
  for (const n of changes.upsertNodes ?? []) graph.nodes.set(n.id, n)
  const added = new Map<string, Edge>()
  for (const e of changes.addEdges ?? []) {
    if (graph.nodes.has(e.source) && graph.nodes.has(e.target)) added.set(edgeKey(e), e)
  }
  if (deleted.size === 0 && added.size === 0) return
  const kept: Array<Edge> = []
  for (const e of graph.edges) {
    if (deleted.has(e.source) || deleted.has(e.target)) continue
    const k = edgeKey(e)
    const replacement = added.get(k)
    if (replacement !== undefined) {
      kept.push(replacement)
      added.delete(k)
    } else kept.push(e)
  }
  for (const e of added.values()) kept.push(e)
  graph.edges.length = 0
  for (const e of kept) graph.edges.push(e)
}

/** True when the changes write nothing. */
export const isEmptyChange = (changes: GraphChanges): boolean =>
  (changes.upsertNodes?.length ?? 0) === 0 &&
  (changes.deleteNodes?.length ?? 0) === 0 &&
  (changes.addEdges?.length ?? 0) === 0
