import { Context, type Effect } from "effect"
import type { CorruptFile, StorageError } from "../domain/errors.js"
import type { Edge, Graph, MemoryNode } from "../domain/Node.js"

/** What one save changes; applied in one transaction (SQLite) or one atomic rewrite (JSON). */
export interface GraphChanges {
  readonly upsertNodes?: ReadonlyArray<MemoryNode>
  /** Removes these nodes and every edge that touches them. */
  readonly deleteNodes?: ReadonlyArray<string>
  readonly addEdges?: ReadonlyArray<Edge>
}

export type GraphStoreError = StorageError | CorruptFile

export interface GraphStoreShape {
  readonly backend: "sqlite" | "json" | "postgres" | "memory"
  /** The file behind the store (PostgreSQL: the server and database, without the password), or null in memory. */
  readonly location: string | null
  /** The whole graph. `withEmbeddings: false` skips the vectors (a lexical query need not pay for them). */
  readonly load: (options?: { readonly withEmbeddings?: boolean }) => Effect.Effect<Graph, GraphStoreError>
  readonly getNodes: (ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<MemoryNode>, GraphStoreError>
  readonly counts: Effect.Effect<{ readonly nodes: number; readonly edges: number }, GraphStoreError>
  /** Applies changes incrementally (only what changed is written). */
  readonly commit: (changes: GraphChanges) => Effect.Effect<void, GraphStoreError>
  /**
   * Exclusive read-modify-write: loads the graph under the store's write lock (SQLite: an immediate
   * transaction; JSON: a lock file), runs `f`, and commits its changes before releasing. If `f` fails,
   * nothing is written. Concurrent processes never lose each other's writes.
   */
  readonly update: <A, E, R>(
    f: (graph: Graph) => Effect.Effect<readonly [A, GraphChanges], E, R>
  ) => Effect.Effect<A, E | GraphStoreError, R>
  /** Replaces the whole graph (snapshot restore). */
  readonly replaceAll: (graph: Graph) => Effect.Effect<void, GraphStoreError>
  /** Makes deleted content unrecoverable from the file (SQLite: secure_delete + VACUUM; JSON: rewrite). */
  readonly scrub: Effect.Effect<void, GraphStoreError>
}

/** The long-term memory graph. Layers: GraphStoreSqlite (default), GraphStoreJson, GraphStoreMemory. */
export class GraphStore extends Context.Tag("awhm/GraphStore")<GraphStore, GraphStoreShape>() {}
