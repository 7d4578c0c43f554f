import { Effect } from "effect"
import { NodeNotFound } from "../domain/errors.js"
import type { EdgeType, Graph, MemoryNode, NodeStatus, NodeType } from "../domain/Node.js"
import type { SourceRef } from "../domain/Message.js"
import { GraphStore } from "../services/GraphStore.js"

/** What a list shows of a node. */
export interface NodeBrief {
  readonly id: string
  readonly type: NodeType
  readonly content: string
  readonly status: NodeStatus
  readonly canonicalKey: string | null
  readonly entityType: string | null
}

/** Everything a node page shows of the node itself. */
export interface NodeDetail extends NodeBrief {
  readonly validFrom: string | null
  readonly validTo: string | null
  readonly createdAt: string
  readonly lastAccessed: string
  readonly confidence: number
  readonly accessCount: number
  readonly strength: number
  readonly scope: string | null
  readonly aliases: ReadonlyArray<string>
  readonly sourceRefs: ReadonlyArray<SourceRef>
  readonly sourceSessions: ReadonlyArray<string>
}

export interface Neighbour {
  readonly node: NodeBrief
  readonly edgeType: EdgeType
  readonly weight: number
  /** "out": this node is the edge's source. */
  readonly direction: "out" | "in"
}

export interface Neighbourhood {
  readonly node: NodeDetail
  /** How many edges touch the node; `neighbours` is one page of them, heaviest first. */
  readonly total: number
  readonly offset: number
  readonly neighbours: ReadonlyArray<Neighbour>
  readonly supersedes: ReadonlyArray<NodeBrief>
  readonly supersededBy: ReadonlyArray<NodeBrief>
}

export const nodeBrief = (n: MemoryNode): NodeBrief => ({
  id: n.id,
  type: n.type,
  content: n.content,
  status: n.status,
  canonicalKey: n.canonicalKey,
  entityType: n.entityType
})

const nodeDetail = (n: MemoryNode): NodeDetail => ({
  ...nodeBrief(n),
  validFrom: n.validFrom,
  validTo: n.validTo,
  createdAt: n.createdAt,
  lastAccessed: n.lastAccessed,
  confidence: n.confidence,
  accessCount: n.accessCount,
  strength: n.strength.composite,
  scope: n.scope,
  aliases: n.aliases,
  sourceRefs: n.sourceRefs,
  sourceSessions: n.sourceSessions
})

/** The edges and supersession links around one node of a graph (pure: the program below reads the graph). */
export const neighbourhoodOf = (graph: Graph, node: MemoryNode, page: { readonly offset: number; readonly limit: number }): Neighbourhood => {
  const touching: Array<Neighbour> = []
  for (const e of graph.edges) {
    const otherId = e.source === node.id ? e.target : e.target === node.id ? e.source : null
    if (otherId === null || otherId === node.id) continue
    const other = graph.nodes.get(otherId)
    if (other === undefined) continue
    touching.push({ node: nodeBrief(other), edgeType: e.type, weight: e.weight, direction: e.source === node.id ? "out" : "in" })
  }
  touching.sort((a, b) => b.weight - a.weight || (a.node.id < b.node.id ? -1 : 1))
  const supersededBy: Array<NodeBrief> = []
  for (const n of graph.nodes.values()) if (n.supersedes.includes(node.id)) supersededBy.push(nodeBrief(n))
  return {
    node: nodeDetail(node),
    total: touching.length,
    offset: page.offset,
    neighbours: touching.slice(page.offset, page.offset + page.limit),
    supersedes: node.supersedes.flatMap((id) => {
      const n = graph.nodes.get(id)
      return n === undefined ? [] : [nodeBrief(n)]
    }),
    supersededBy
  }
}

/** A node and one page of its neighbours (entities, temporal and association edges), to walk the graph. */
export const nodeNeighbourhood = Effect.fn("nodeNeighbourhood")(function* (
  nodeId: string,
  page: { readonly offset: number; readonly limit: number }
) {
  const graph = yield* (yield* GraphStore).load({ withEmbeddings: false })
  const node = graph.nodes.get(nodeId)
  if (node === undefined) return yield* new NodeNotFound({ nodeId, message: `node ${nodeId} not found` })
  return neighbourhoodOf(graph, node, page)
})

export interface NodeSearch {
  readonly text: string
  readonly status: NodeStatus | null
  readonly offset: number
  readonly limit: number
}

/** One page of nodes whose content, id or key contains the text (case-insensitive), newest first. */
export const findNodes = Effect.fn("findNodes")(function* (q: NodeSearch) {
  const graph = yield* (yield* GraphStore).load({ withEmbeddings: false })
  const needle = q.text.trim().toLowerCase()
  const found: Array<MemoryNode> = []
  for (const n of graph.nodes.values()) {
    if (q.status !== null && n.status !== q.status) continue
    if (needle !== "" && !n.content.toLowerCase().includes(needle) && !n.id.startsWith(needle) && !(n.canonicalKey ?? "").includes(needle)) continue
    found.push(n)
  }
  found.reverse() // the store lists oldest first
  return { total: found.length, offset: q.offset, items: found.slice(q.offset, q.offset + q.limit).map(nodeBrief) }
})
