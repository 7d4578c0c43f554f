import { Context, type Effect } from "effect"
import type { CorruptFile, StorageError } from "../domain/errors.js"
import type { SourceRef } from "../domain/Message.js"
import type { Edge, Graph, MemoryNode, Strength } from "../domain/Node.js"
import type { NodeFilter } from "../domain/nodeFilter.js"

export type { NodeFilter }

/** What one save changes; applied in one transaction (SQLite) or one atomic rewrite (JSON). */
export interface GraphChanges {
  readonly upsertNodes?: ReadonlyArray<MemoryNode>
  /** Removes these nodes and every edge that touches them. */
  readonly deleteNodes?: ReadonlyArray<string>
  readonly addEdges?: ReadonlyArray<Edge>
}

export type GraphStoreError = StorageError | CorruptFile

/** A node id with its score, best first in every list the store returns. */
export interface ScoredId {
  readonly id: string
  readonly score: number
}

export interface LexicalQuery {
  /** The query as typed; the store analyzes it (search/IndexAnalyzer `analyze`). */
  readonly text: string
  readonly k: number
  readonly filter: NodeFilter
  /** BM25 parameters (config bm25_k1, bm25_b). */
  readonly k1: number
  readonly b: number
}

export interface VectorQuery {
  readonly vector: Float32Array
  /** Nodes embedded by another model are not searched (a node with no model recorded is). */
  readonly modelId: string | null
  readonly k: number
  readonly filter: NodeFilter
}

/**
 * What one consolidation batch may touch: the nodes matching any part (every status unless said). The
 * lookup keys are text/lookupKeys' (statement keys, attribute heads, entity first tokens).
 */
export interface NodeKeyQuery {
  readonly ids: ReadonlyArray<string>
  readonly lookupKeys: ReadonlyArray<string>
  readonly canonicalKeys: ReadonlyArray<string>
  /** Active nodes whose canonical key is `<family>:…`. */
  readonly keyFamilies: ReadonlyArray<string>
}

/** A normalised entity name and its label (text/entities EntityIndex.forms). */
export interface EntityForm {
  readonly form: string
  readonly label: string | null
}

/** One returned memory to reinforce: seen with this content and window end, at `at`, with this strength. */
export interface Reinforcement {
  readonly id: string
  readonly content: string
  readonly validTo: string | null
  readonly at: string
  readonly strength: Strength
}

/**
 * Candidate search inside the store: what a query needs, without reading the whole graph. Every
 * backend gives the same answers (test/graph/contract.ts); a database server implements these as queries.
 */
export interface GraphSearchShape {
  /**
   * BM25 top k over each node's indexed text (search/indexedText: content plus the month and year its window
   * starts): Lucene IDF ln(1 + (N − df + 0.5)/(df + 0.5)), N, df and the mean length over every node in the
   * store, then the k best with score > 0 among the nodes `filter` admits (ties: the earlier stored node).
   * The scores are exactly LexicalIndex's; a backend may preselect with its own full-text index.
   */
  readonly lexicalTopK: (query: LexicalQuery) => Effect.Effect<ReadonlyArray<ScoredId>, GraphStoreError>
  /**
   * Exact dot-product top k over the nodes `filter` admits that hold a vector of the query's model and
   * dimension, each vector as the store holds it (a file store: int8 with a scale, store/compactVector.ts),
   * summed in float64. Null when the store holds no such vector at all (semantic search is off for the graph).
   */
  readonly vectorTopK: (query: VectorQuery) => Effect.Effect<ReadonlyArray<ScoredId> | null, GraphStoreError>
  /** Every edge with an end among `ids` (in the order load() gives edges). */
  readonly neighbours: (ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Edge>, GraphStoreError>
  /** Nodes whose canonical key is one of `keys` (all statuses), in store order. */
  readonly bySlot: (keys: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<MemoryNode>, GraphStoreError>
  /**
   * Nodes with one of these messages among their source refs, each with the ref that matched; their vectors
   * may be left out (SQLite, PostgreSQL), so never write one back. `keyed`: only the nodes with a canonical
   * key (what hides a raw-log line is a slot's statement: the others need not be read at all).
   */
  readonly fromMessages: (
    refs: ReadonlyArray<SourceRef>,
    options?: { readonly keyed?: boolean }
  ) => Effect.Effect<ReadonlyArray<{ readonly ref: SourceRef; readonly node: MemoryNode }>, GraphStoreError>
  /** The nodes matching any part of `query`, in store order (the order load() gives), vectors included. */
  readonly nodesByKeys: (query: NodeKeyQuery) => Effect.Effect<ReadonlyArray<MemoryNode>, GraphStoreError>
  /**
   * Every normalised surface form of every entity node, each once, with the label of the first node (store
   * order) that has it: EntityIndex.forms() over the whole graph, without reading it.
   */
  readonly entityForms: Effect.Effect<ReadonlyArray<EntityForm>, GraphStoreError>
  /** How many nodes have each access count (ascending counts): the whole graph's distribution for percentiles. */
  readonly accessCounts: Effect.Effect<ReadonlyArray<{ readonly count: number; readonly nodes: number }>, GraphStoreError>
  /** The 90th-percentile access count over all nodes, at least 1 (strength's frequency term). */
  readonly accessP90: Effect.Effect<number, GraphStoreError>
  /**
   * An opaque value that changes whenever the graph changes (a commit by any process, this one's
   * reinforcement flush included). Equal values from one store instance: nothing changed in between.
   * One cheap check per query (SQLite: PRAGMA data_version; a server: a version row).
   */
  readonly changeStamp: Effect.Effect<string, GraphStoreError>
  /**
   * Records reinforcement of returned memories. Batched: kept in the process and written every few seconds
   * and when the store's scope closes, merged per node (access count + the number of reinforcements,
   * lastAccessed the latest, the latest strength). Skipped for a node that is gone, no longer active, or
   * whose content or window end changed meanwhile. This store's own reads (getNodes, load) already show it.
   */
  readonly reinforce: (items: ReadonlyArray<Reinforcement>) => Effect.Effect<void, GraphStoreError>
  /** Writes pending reinforcement now. */
  readonly flushReinforcement: Effect.Effect<void, GraphStoreError>
}

export interface GraphStoreShape extends GraphSearchShape {
  readonly backend: "sqlite" | "json" | "postgres" | "memory"
  /** The file behind the store (PostgreSQL: the server and database, without the password), or null in memory. */
  readonly location: string | null
  /**
   * Lets go of what it holds read from saved files (SQLite: the vector image, whose file a hard delete replaced),
   * so no deleted file stays open; called after a delete elsewhere, between queries. Absent: nothing held.
   */
  readonly releaseFiles?: () => void
  /** The whole graph. `withEmbeddings: false` skips the vectors (a lexical query need not pay for them). */
  readonly load: (options?: { readonly withEmbeddings?: boolean }) => Effect.Effect<Graph, GraphStoreError>
  /**
   * These nodes in the order asked; unknown ids are left out. Vectors included unless `withEmbeddings` is
   * false (a lexical query need not pay for them; a store may still include them). Never write back a node
   * read without its vector.
   */
  readonly getNodes: (
    ids: ReadonlyArray<string>,
    options?: { readonly withEmbeddings?: boolean }
  ) => Effect.Effect<ReadonlyArray<MemoryNode>, GraphStoreError>
  readonly counts: Effect.Effect<{ readonly nodes: number; readonly edges: number }, GraphStoreError>
  /** Applies changes incrementally (only what changed is written). */
  readonly commit: (changes: GraphChanges) => Effect.Effect<void, GraphStoreError>
  /**
   * Exclusive read-modify-write: loads the graph under the store's write lock (SQLite: an immediate
   * transaction; JSON: a lock file; PostgreSQL: the namespace's advisory lock), runs `f`, and commits its changes before releasing. If `f` fails,
   * nothing is written. Concurrent processes never lose each other's writes.
   */
  readonly update: <A, E, R>(
    f: (graph: Graph) => Effect.Effect<readonly [A, GraphChanges], E, R>
  ) => Effect.Effect<A, E | GraphStoreError, R>
  /**
   * Exclusive read-modify-write over part of the graph: as `update`, under the same write lock, but `f`
   * reads through the store's queries (`GraphReader`: getNodes and the candidate searches, answered inside
   * the lock's transaction) instead of being handed the whole graph.
   */
  readonly updatePart: <A, E, R>(
    f: (reader: GraphReader) => Effect.Effect<readonly [A, GraphChanges], E, R>
  ) => Effect.Effect<A, E | GraphStoreError, R>
  /** Replaces the whole graph (snapshot restore). */
  readonly replaceAll: (graph: Graph) => Effect.Effect<void, GraphStoreError>
  /** Makes deleted content unrecoverable from the file (SQLite: secure_delete + VACUUM; JSON: rewrite; PostgreSQL: VACUUM). */
  readonly scrub: Effect.Effect<void, GraphStoreError>
}

/** What a read-modify-write over part of the graph reads with. */
export type GraphReader = GraphSearchShape & Pick<GraphStoreShape, "getNodes">

/** The long-term memory graph. Layers: GraphStoreSqlite (default), GraphStoreJson, GraphStorePostgres, GraphStoreMemory. */
export class GraphStore extends Context.Tag("awhm/GraphStore")<GraphStore, GraphStoreShape>() {}
