import type { Graph, MemoryNode } from "../../domain/Node.js"
import { analyze } from "../../search/IndexAnalyzer.js"
import { LexicalIndex } from "../../search/LexicalIndex.js"
import { VectorIndex } from "../../search/VectorIndex.js"
import { refKey, windowStart } from "./rank.js"
import { ANALYZER_ID, indexedText } from "./RawLogView.js"

/** Kept between processes beside the graph's lexical index: what each node's indexed text was made from. */
export interface GraphLexicalData {
  readonly version: 2
  readonly analyzer: string
  readonly k1: number
  readonly b: number
  /** In the lexical index's key order (an array: loads several times faster than an object keyed by id). */
  readonly sources: ReadonlyArray<string>
}

// What a node's indexed text is made of (indexedText reads only the year and month of the window start):
// comparing it is a native string comparison, several times cheaper in a short-lived hook than hashing.
const indexSource = (node: MemoryNode): string => `${node.content}\u0000${windowStart(node).slice(0, 7)}`

export interface Neighbour {
  readonly id: string
  readonly weight: number
}

const sameEdges = (a: ReadonlyArray<Graph["edges"][number]>, b: ReadonlyArray<Graph["edges"][number]>): boolean => {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/**
 * The graph as retrieval needs it, kept in step with the store incrementally: a lexical index over node
 * contents, a vector index over the embeddings of one model, adjacency lists, the statement nodes of
 * every message (for hiding the raw lines of superseded statements) and the access-count p90 that
 * strength needs. `sync` re-indexes only the nodes whose content or embedding changed.
 */
export class GraphView {
  nodes: Map<string, MemoryNode> = new Map()
  lexical: LexicalIndex
  vectors: VectorIndex | null = null
  /** indexSource of each node in the lexical index. */
  private readonly indexed = new Map<string, string>()
  /** Work a saved copy would spare the next process: nodes (re)indexed, and whether any was removed. */
  unsaved = { indexed: 0, removed: false }
  /** Whether the view holds embeddings (loaded with them). */
  withEmbeddings = false
  adjacency = new Map<string, Array<Neighbour>>()
  /** Message ref key -> ids of statement nodes (canonical key set) that came from it. */
  statementsByRef = new Map<string, Array<string>>()
  private p90: number | null = null
  private edges: ReadonlyArray<Graph["edges"][number]> = []

  constructor(
    private readonly modelId: string | null,
    private readonly bm25: { readonly k1?: number; readonly b?: number } = {}
  ) {
    // The raw log's analyzer, so lexical scores of both sources are on one footing.
    this.lexical = new LexicalIndex({ ...bm25, analyzer: analyze })
  }

  /** Brings the view in line with a freshly loaded graph. */
  sync(graph: Graph, withEmbeddings: boolean): void {
    if (withEmbeddings === this.withEmbeddings && this.unchanged(graph)) return
    const previous = this.nodes
    for (const [id, node] of graph.nodes) {
      const old = previous.get(id)
      if (old !== undefined && old.content === node.content && windowStart(old) === windowStart(node)) continue
      const source = indexSource(node)
      if (this.indexed.get(id) === source) continue // restored from disk, still current
      this.lexical.add(id, indexedText(node.content, windowStart(node)))
      this.indexed.set(id, source)
      this.unsaved.indexed++
    }
    for (const id of [...this.indexed.keys()]) {
      if (!graph.nodes.has(id)) {
        this.lexical.remove(id)
        this.indexed.delete(id)
        this.vectors?.remove(id)
        this.unsaved.removed = true
      }
    }
    if (withEmbeddings) this.syncVectors(graph, previous)
    else this.vectors = null
    this.withEmbeddings = withEmbeddings
    // A copy: reinforcement updates it in place, the store's graph stays the store's.
    this.nodes = new Map(graph.nodes)
    if (!sameEdges(graph.edges, this.edges)) this.buildAdjacency(graph)
    this.buildStatementRefs()
    this.p90 = null
  }

  // The stores hand out the same node objects while nothing changed (and apply this process's own commits
  // with the objects it wrote), so an identity check is enough.
  private unchanged(graph: Graph): boolean {
    if (graph.nodes.size !== this.nodes.size || !sameEdges(graph.edges, this.edges)) return false
    for (const [id, node] of graph.nodes) if (this.nodes.get(id) !== node) return false
    return true
  }

  /** The lexical index for saving. */
  lexicalData(): GraphLexicalData {
    return {
      version: 2,
      analyzer: ANALYZER_ID,
      k1: this.lexical.k1,
      b: this.lexical.b,
      // The lexical index and `indexed` hold the same ids; toBinary and fromBinary keep keys() order.
      sources: Array.from(this.lexical.keys(), (id) => this.indexed.get(id)!)
    }
  }

  /** Adopts a saved lexical index before the first sync (false when it does not fit). */
  restoreLexical(data: unknown, lexicalBytes: Uint8Array): boolean {
    if (this.nodes.size > 0 || this.indexed.size > 0 || typeof data !== "object" || data === null) return false
    const d = data as Partial<GraphLexicalData>
    if (d.version !== 2 || d.analyzer !== ANALYZER_ID || d.k1 !== this.lexical.k1 || d.b !== this.lexical.b) return false
    const sources = d.sources
    if (!Array.isArray(sources) || sources.some((s) => typeof s !== "string")) return false
    const lexical = LexicalIndex.fromBinary(lexicalBytes, { ...this.bm25, analyzer: analyze })
    if (lexical === null || sources.length !== lexical.size) return false
    this.lexical = lexical
    let i = 0
    for (const id of lexical.keys()) this.indexed.set(id, sources[i++]!)
    return true
  }

  /** Replaces nodes whose content is unchanged (reinforcement written by this process). */
  replaceNodes(updated: ReadonlyArray<MemoryNode>): void {
    // Access counts moved by one for a few nodes: the p90 is left as it was until the next real change.
    for (const n of updated) if (this.nodes.has(n.id)) this.nodes.set(n.id, n)
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
    this.edges = graph.edges.slice()
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
