import { Effect } from "effect"
import type { MemoryNode } from "../../domain/Node.js"
import type { NodeFilter } from "../../domain/nodeFilter.js"
import type { GraphStoreShape } from "../../services/GraphStore.js"
import { pool, type GraphCandidates, type Neighbour } from "./engine.js"
import { refKey } from "./rank.js"
import type { RawLogView } from "./RawLogView.js"

export interface CandidateRequest {
  readonly query: string
  readonly queryVector: Float32Array | null
  readonly modelId: string | null
  readonly k: number
  readonly filter: NodeFilter
  /** Ref keys of messages that must not come back: a node made only of them is dropped, so ask for more. */
  readonly excluded: number
  readonly bm25: { readonly k1: number; readonly b: number }
  /** Vector hits at or above this anchor neighbour expansion. */
  readonly embedThreshold: number
  readonly neighborExpansion: boolean
}

// A statement node (a slot, not an entity) hides the raw lines it came from once it is no longer live.
const isStatement = (n: MemoryNode) => n.canonicalKey !== null && n.entityType === null

/**
 * Asks the store for what one query ranks: the lexical and vector top lists, the rows of those nodes and
 * of their neighbours, and the access-count p90. Nothing else of the graph is read.
 */
export const fetchGraphCandidates = (store: GraphStoreShape, req: CandidateRequest) =>
  Effect.gen(function* () {
    const want = pool(req.k) + (req.excluded > 0 ? 20 : 0)
    const lexical = yield* store.lexicalTopK({ text: req.query, k: want, filter: req.filter, ...req.bm25 })
    const semantic =
      req.queryVector === null
        ? null
        : yield* store.vectorTopK({ vector: req.queryVector, modelId: req.modelId, k: want, filter: req.filter })
    // Every lexical hit may turn out an anchor (that depends on the raw log's best score too).
    const anchors = [...lexical.map((h) => h.id), ...(semantic ?? []).filter((h) => h.score >= req.embedThreshold).map((h) => h.id)]
    const edges = req.neighborExpansion && anchors.length > 0 ? yield* store.neighbours(anchors) : []
    const adjacency = new Map<string, Array<Neighbour>>()
    const link = (from: string, to: string, weight: number) => {
      let list = adjacency.get(from)
      if (list === undefined) adjacency.set(from, (list = []))
      list.push({ id: to, weight })
    }
    for (const e of edges) {
      link(e.source, e.target, e.weight)
      link(e.target, e.source, e.weight)
    }
    const ids = new Set<string>([...lexical.map((h) => h.id), ...(semantic ?? []).map((h) => h.id)])
    for (const e of edges) {
      ids.add(e.source)
      ids.add(e.target)
    }
    // A node's vector scores it only against a query vector (engine: lexical hits and neighbours).
    const nodes = new Map((yield* store.getNodes([...ids], { withEmbeddings: req.queryVector !== null })).map((n) => [n.id, n] as const))
    const accessP90 = yield* store.accessP90
    const statements = new Map<string, Array<MemoryNode>>()
    const candidates: GraphCandidates = {
      lexical: lexical.map((h) => ({ key: h.id, score: h.score })),
      semantic,
      modelId: req.modelId,
      nodes,
      adjacency,
      accessP90,
      statementsOf: (key) => statements.get(key),
      missing: new Set()
    }
    return { candidates, statements }
  })

/** Fetches the statement nodes of the messages ranking asked about (see GraphCandidates.statementsOf). */
const fetchStatements = (
  store: GraphStoreShape,
  candidates: GraphCandidates,
  statements: Map<string, Array<MemoryNode>>,
  raw: RawLogView
) =>
  Effect.gen(function* () {
    const keys = [...candidates.missing]
    candidates.missing.clear()
    for (const key of keys) statements.set(key, [])
    const asked = keys.flatMap((key) => {
      const doc = raw.docs.get(key)
      return doc === undefined ? [] : [{ sessionId: doc.sessionId, messageIndex: doc.index }]
    })
    if (asked.length === 0) return
    for (const { ref, node } of yield* store.fromMessages(asked, { keyed: true })) {
      if (isStatement(node)) statements.get(refKey(ref.sessionId, ref.messageIndex))!.push(node)
    }
  })

/**
 * Ranks, then fetches the statements of the raw-log lines ranking asked about and ranks again, until none
 * is missing (usually one more pass).
 */
export const rankWithStatements = <A>(
  store: GraphStoreShape,
  fetched: { readonly candidates: GraphCandidates; readonly statements: Map<string, Array<MemoryNode>> },
  raw: RawLogView,
  rank: () => A
) =>
  Effect.gen(function* () {
    let outcome = rank()
    while (fetched.candidates.missing.size > 0) {
      yield* fetchStatements(store, fetched.candidates, fetched.statements, raw)
      outcome = rank()
    }
    return outcome
  })
