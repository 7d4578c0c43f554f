import type { SourceRef } from "../../domain/Message.js"
import type { Edge, Graph, MemoryNode } from "../../domain/Node.js"
import { admits } from "../../domain/nodeFilter.js"
import { p90 } from "../../domain/strength.js"
import { windowStart } from "../../domain/validity.js"
import { analyze } from "../../search/IndexAnalyzer.js"
import { indexedText } from "../../search/indexedText.js"
import { LexicalIndex } from "../../search/LexicalIndex.js"
import { VectorIndex } from "../../search/VectorIndex.js"
import type { EntityForm, LexicalQuery, NodeKeyQuery, ScoredId, VectorQuery } from "../../services/GraphStore.js"
import { EntityIndex } from "../../text/entities.js"
import { lookupKeys } from "../../text/lookupKeys.js"

// A node's lookup keys, computed once per node object (a store hands the same objects while nothing changed).
const keysOf = new WeakMap<MemoryNode, ReadonlyArray<string>>()
const keysOfNode = (n: MemoryNode): ReadonlyArray<string> => {
  let keys = keysOf.get(n)
  if (keys === undefined) keysOf.set(n, (keys = lookupKeys(n)))
  return keys
}

const refKey = (sessionId: string, messageIndex: number) => `${sessionId}\u0000${messageIndex}`

/** Whether a node's vector may be compared with a query of this model. */
const usableVector = (node: MemoryNode, modelId: string | null): boolean =>
  node.embedding !== null &&
  node.embedding.length > 0 &&
  (node.embedModel === null || modelId === null || node.embedModel === modelId)

/**
 * Candidate search over a graph held in memory (the JSON, PostgreSQL and in-memory stores): lexical and vector indexes
 * kept in step with the graph by node identity, so a store that hands the same node objects while nothing
 * changed re-indexes only what did.
 */
export class MemoryGraphSearch {
  private graph: Graph = { nodes: new Map(), edges: [] }
  private lexical: LexicalIndex | null = null
  private readonly lexicalOf = new Map<string, MemoryNode>()
  private vectors: VectorIndex | null = null
  private vectorModel: string | null | undefined = undefined
  private readonly vectorOf = new Map<string, MemoryNode>()
  private byRef: Map<string, Array<string>> | null = null
  private p90: number | null = null

  private version = -1
  private lexicalVersion = -1
  private vectorVersion = -1

  /** Points the search at the store's current graph; `version` changes whenever the graph does. */
  use(graph: Graph, version: number): void {
    if (graph === this.graph && version === this.version) return
    this.graph = graph
    this.version = version
    this.byRef = null
    this.p90 = null
  }

  lexicalTopK(q: LexicalQuery): Array<ScoredId> {
    const index = this.lexicalIndex(q.k1, q.b)
    const nodes = this.graph.nodes
    return index
      .search(q.text, q.k, (id) => admits(nodes.get(id)!, q.filter))
      .map((h) => ({ id: h.key, score: h.score }))
  }

  vectorTopK(q: VectorQuery): Array<ScoredId> | null {
    const index = this.vectorIndex(q.modelId)
    if (index === null || index.dim !== q.vector.length) return null
    const nodes = this.graph.nodes
    return index.search(q.vector, q.k, (id) => admits(nodes.get(id)!, q.filter))
  }

  neighbours(ids: ReadonlyArray<string>): Array<Edge> {
    const wanted = new Set(ids)
    return this.graph.edges.filter((e) => wanted.has(e.source) || wanted.has(e.target))
  }

  bySlot(keys: ReadonlyArray<string>): Array<MemoryNode> {
    const wanted = new Set(keys)
    return [...this.graph.nodes.values()].filter((n) => n.canonicalKey !== null && wanted.has(n.canonicalKey))
  }

  fromMessages(refs: ReadonlyArray<SourceRef>, keyed = false): Array<{ ref: SourceRef; node: MemoryNode }> {
    if (this.byRef === null) {
      const map = new Map<string, Array<string>>()
      for (const n of this.graph.nodes.values()) {
        for (const r of n.sourceRefs) {
          const key = refKey(r.sessionId, r.messageIndex)
          const list = map.get(key)
          if (list === undefined) map.set(key, [n.id])
          else if (!list.includes(n.id)) list.push(n.id)
        }
      }
      this.byRef = map
    }
    const out: Array<{ ref: SourceRef; node: MemoryNode }> = []
    for (const ref of refs) {
      for (const id of this.byRef.get(refKey(ref.sessionId, ref.messageIndex)) ?? []) {
        const node = this.graph.nodes.get(id)!
        if (!keyed || node.canonicalKey !== null) out.push({ ref, node })
      }
    }
    return out
  }

  nodesByKeys(q: NodeKeyQuery): Array<MemoryNode> {
    const ids = new Set(q.ids)
    const keys = new Set(q.lookupKeys)
    const slots = new Set(q.canonicalKeys)
    const families = new Set(q.keyFamilies)
    return [...this.graph.nodes.values()].filter((n) =>
      ids.has(n.id) ||
      (n.canonicalKey !== null &&
        (slots.has(n.canonicalKey) || (n.status === "active" && families.has(n.canonicalKey.split(":", 1)[0]!)))) ||
      keysOfNode(n).some((k) => keys.has(k))
    )
  }

  entityForms(): Array<EntityForm> {
    return new EntityIndex(this.graph.nodes.values()).forms()
  }

  /** The access-count distribution, each node as `view` shows it (a store's pending reinforcement). */
  accessCountsWith(view: (n: MemoryNode) => MemoryNode = (n) => n): Array<{ count: number; nodes: number }> {
    const counts = new Map<number, number>()
    for (const node of this.graph.nodes.values()) {
      const n = view(node)
      counts.set(n.accessCount, (counts.get(n.accessCount) ?? 0) + 1)
    }
    return [...counts].sort((a, b) => a[0] - b[0]).map(([count, nodes]) => ({ count, nodes }))
  }

  accessP90(): number {
    if (this.p90 === null) this.p90 = p90(Array.from(this.graph.nodes.values(), (n) => n.accessCount))
    return this.p90
  }

  private lexicalIndex(k1: number, b: number): LexicalIndex {
    if (this.lexical === null || this.lexical.k1 !== k1 || this.lexical.b !== b) {
      this.lexical = new LexicalIndex({ k1, b, analyzer: analyze })
      this.lexicalOf.clear()
      this.lexicalVersion = -1
    }
    const index = this.lexical
    if (this.lexicalVersion === this.version) return index
    this.lexicalVersion = this.version
    for (const [id, node] of this.graph.nodes) {
      const old = this.lexicalOf.get(id)
      if (old === node) continue
      if (old === undefined || old.content !== node.content || windowStart(old) !== windowStart(node)) {
        index.add(id, indexedText(node.content, windowStart(node)))
      }
      this.lexicalOf.set(id, node)
    }
    if (this.lexicalOf.size > this.graph.nodes.size) {
      for (const id of [...this.lexicalOf.keys()]) {
        if (this.graph.nodes.has(id)) continue
        index.remove(id)
        this.lexicalOf.delete(id)
      }
    }
    return index
  }

  private vectorIndex(modelId: string | null): VectorIndex | null {
    if (this.vectorModel !== modelId) {
      this.vectors = null
      this.vectorOf.clear()
      this.vectorModel = modelId
      this.vectorVersion = -1
    }
    if (this.vectorVersion === this.version) return this.vectors
    this.vectorVersion = this.version
    for (const [id, node] of this.graph.nodes) {
      const old = this.vectorOf.get(id)
      if (old === node) continue
      this.vectorOf.set(id, node)
      if (old !== undefined && old.embedding === node.embedding) continue
      const v = node.embedding
      if (v === null || !usableVector(node, modelId)) {
        this.vectors?.remove(id)
        continue
      }
      if (this.vectors === null) this.vectors = new VectorIndex(v.length)
      if (v.length === this.vectors.dim) this.vectors.add(id, v)
      else this.vectors.remove(id)
    }
    if (this.vectorOf.size > this.graph.nodes.size) {
      for (const id of [...this.vectorOf.keys()]) {
        if (this.graph.nodes.has(id)) continue
        this.vectors?.remove(id)
        this.vectorOf.delete(id)
      }
    }
    return this.vectors
  }
}
