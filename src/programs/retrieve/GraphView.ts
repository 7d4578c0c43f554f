import type { Graph, MemoryNode } from "../../domain/Node.js"
import { analyze } from "../../lib/IndexAnalyzer.js"
import { LexicalIndex } from "../../lib/LexicalIndex.js"
import { VectorIndex } from "../../lib/VectorIndex.js"
import { refKey, windowStart } from "./rank.js"
import { indexedText } from "./RawLogView.js"

export interface Neighbour {
  readonly id: string
  readonly weight: number
}

/**
 * The graph as retrieval needs it, kept in step with the store incrementally: a lexical index over node
 * contents, a vector index over the embeddings of one model, adjacency lists, the statement nodes of
 * every message (for hiding the raw lines of superseded statements) and the access-count p90 that
 * strength needs. `sync` re-indexes only the nodes whose content or embedding changed.
 */
export class GraphView {
  nodes: ReadonlyMap<string, MemoryNode> = new Map()
  readonly lexical: LexicalIndex
  vectors: VectorIndex | null = null
  /** Whether the view holds embeddings (loaded with them). */
  withEmbeddings = false
  adjacency = new Map<string, Array<Neighbour>>()
  /** Message ref key -> ids of statement nodes (canonical key set) that came from it. */
  statementsByRef = new Map<string, Array<string>>()
  private p90: number | null = null
  private edgesSeen: Graph["edges"] | null = null
  private edgeCount = -1

  constructor(
    private readonly modelId: string | null,
    bm25: { readonly k1?: number; readonly b?: number } = {}
  ) {
    // The raw log's analyzer, so lexical scores of both sources are on one footing.
    this.lexical = new LexicalIndex({ ...bm25, analyzer: analyze })
  }

  /** Brings the view in line with a freshly loaded graph. */
  sync(graph: Graph, withEmbeddings: boolean): void {
    const previous = this.nodes
    for (const [id, node] of graph.nodes) {
      const old = previous.get(id)
      if (old === undefined || old.content !== node.content || windowStart(old) !== windowStart(node)) {
        this.lexical.add(id, indexedText(node.content, windowStart(node)))
      }
    }
    for (const id of previous.keys()) {
      if (!graph.nodes.has(id)) {
        this.lexical.remove(id)
        this.vectors?.remove(id)
      }
    }
    if (withEmbeddings) this.syncVectors(graph, previous)
    else this.vectors = null
    this.withEmbeddings = withEmbeddings
    this.nodes = graph.nodes
    if (graph.edges !== this.edgesSeen || graph.edges.length !== this.edgeCount) this.buildAdjacency(graph)
    this.buildStatementRefs()
    this.p90 = null
  }

  /** Replaces nodes whose content is unchanged (reinforcement written by this process). */
  replaceNodes(updated: ReadonlyArray<MemoryNode>): void {
    const nodes = new Map(this.nodes)
    for (const n of updated) if (nodes.has(n.id)) nodes.set(n.id, n)
    this.nodes = nodes
    this.p90 = null
  }

  /** Whether the node's embedding is in the vector index (same model and dimension as the others). */
  hasVector(id: string): boolean {
    return this.vectors?.has(id) ?? false
  }

  /** The 90th-percentile access count over all nodes (at least 1), as strength's frequency needs. */
  accessP90(): number {
    if (this.p90 === null) {
      const counts = Array.from(this.nodes.values(), (n) => n.accessCount).sort((a, b) => a - b)
      const n = counts.length
      this.p90 = n === 0 ? 1 : Math.max(1, counts[Math.min(Math.floor(0.9 * n), n - 1)]!)
    }
    return this.p90
  }

  private syncVectors(graph: Graph, previous: ReadonlyMap<string, MemoryNode>): void {
    for (const [id, node] of graph.nodes) {
      const v = node.embedding
      const usable = v !== null && v.length > 0 && (node.embedModel === null || this.modelId === null || node.embedModel === this.modelId)
      if (!usable) {
        this.vectors?.remove(id)
        continue
      }
      if (this.vectors === null) this.vectors = new VectorIndex(v.length)
      if (v.length !== this.vectors.dim) continue
      const old = this.withEmbeddings ? previous.get(id) : undefined
      if (old?.embedding !== v || !this.vectors.has(id)) this.vectors.add(id, v)
    }
  }

  private buildAdjacency(graph: Graph): void {
    const adjacency = new Map<string, Array<Neighbour>>()
    const link = (from: string, to: string, weight: number) => {
      let list = adjacency.get(from)
      if (list === undefined) adjacency.set(from, (list = []))
      list.push({ id: to, weight })
    }
    for (const e of graph.edges) {
      link(e.source, e.target, e.weight)
      link(e.target, e.source, e.weight)
    }
    this.adjacency = adjacency
    this.edgesSeen = graph.edges
    this.edgeCount = graph.edges.length
  }

  private buildStatementRefs(): void {
    const map = new Map<string, Array<string>>()
    for (const node of this.nodes.values()) {
      if (node.canonicalKey === null || node.entityType !== null) continue
      for (const ref of node.sourceRefs) {
        const key = refKey(ref.sessionId, ref.messageIndex)
        const list = map.get(key)
        if (list === undefined) map.set(key, [node.id])
        else list.push(node.id)
      }
    }
    this.statementsByRef = map
  }
}
