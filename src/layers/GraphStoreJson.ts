import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { CorruptFile, StorageError } from "../domain/errors.js"
import type { Graph } from "../domain/Node.js"
import { withFileLock } from "../store/fileLock.js"
import { dataPaths } from "../store/paths.js"
import { AppConfig } from "../services/AppConfig.js"
import { GraphStore, type GraphChanges, type GraphReader } from "../services/GraphStore.js"
import { applyChanges, copyGraph, isEmptyChange } from "./graph/applyChanges.js"
import { readJsonGraphFileSync, writeJsonGraphFileSync } from "./graph/jsonFile.js"
import { removeStaleTempFiles } from "../store/tempFiles.js"
import { makeGraphStoreSqlite } from "./GraphStoreSqlite.js"
import { MemoryGraphSearch } from "./graph/memorySearch.js"
import { flushPeriodically, PendingReinforcement, REINFORCE_FLUSH_MS, reinforced } from "./graph/reinforcement.js"

export interface JsonStoreOptions {
  /** The graph file (`<data-dir>/graph/memory_graph.json`). */
  readonly file: string
  /** The lock file that serialises writers across processes. */
  readonly lockFile: string
  readonly snapshotsDir: string
  /** A SQLite graph imported once when the JSON file does not exist yet (switching backend). */
  readonly importSqlite?: string | null
  /** How often gathered reinforcement is written (ms; also when the store's scope closes). */
  readonly reinforceFlushMs?: number
}

const asStoreError = (file: string, operation: string) => (e: unknown): StorageError | CorruptFile =>
  e instanceof StorageError || e instanceof CorruptFile
    ? e
    : new StorageError({ operation, path: file, message: `${operation} failed on ${file}: ${e instanceof Error ? e.message : String(e)}` })

/** The reference's one-file graph store: every save rewrites the file atomically under a lock. */
export const makeGraphStoreJson = (options: JsonStoreOptions) =>
  Effect.gen(function* () {
    const { file, lockFile, snapshotsDir } = options
    // Fibers of this process queue here; processes queue on the lock file.
    const local = yield* Effect.makeSemaphore(1)
    const locked = <A, E, R>(body: Effect.Effect<A, E, R>) => local.withPermits(1)(withFileLock(lockFile, body))

    // The parsed file, reused while the file on disk is unchanged (every write replaces its inode).
    let cache: { readonly graph: Graph; readonly stamp: string | null } | null = null
    // Bumped whenever `cache` holds another graph: the search indexes follow it.
    let version = 0
    const search = new MemoryGraphSearch()
    const pending = new PendingReinforcement()
    const stampOf = (): string | null => {
      try {
        const st = fs.statSync(file)
        return `${st.ino}:${st.size}:${st.mtimeMs}`
      } catch {
        return null
      }
    }
    const current = (): Graph => {
      const stamp = stampOf()
      if (cache !== null && cache.stamp === stamp) return cache.graph
      const graph = stamp === null ? { nodes: new Map(), edges: [] } : readJsonGraphFileSync(file, snapshotsDir)
      cache = { graph, stamp }
      version++
      return graph
    }
    const write = (graph: Graph) => {
      cache = null
      writeJsonGraphFileSync(file, graph)
      cache = { graph, stamp: stampOf() }
      version++
    }
    const sync = <A>(operation: string, f: () => A) => Effect.try({ try: f, catch: asStoreError(file, operation) })

    const importSqlite = options.importSqlite
    if (importSqlite != null && !fs.existsSync(file) && fs.existsSync(importSqlite)) {
      yield* locked(
        Effect.gen(function* () {
          if (fs.existsSync(file)) return
          const graph = yield* Effect.scoped(
            Effect.flatMap(makeGraphStoreSqlite({ file: importSqlite, importJson: null, snapshotsDir }), (s) => s.load())
          )
          yield* sync("import", () => write(graph))
        })
      )
    }

    const update = <A, E, R>(f: (graph: Graph) => Effect.Effect<readonly [A, GraphChanges], E, R>) =>
      locked(
        Effect.gen(function* () {
          const base = yield* sync("load", current)
          const [a, changes] = yield* f(copyGraph(base))
          if (!isEmptyChange(changes)) {
            const next = copyGraph(base)
            applyChanges(next, changes)
            yield* sync("save", () => write(next))
          }
          return a
        })
      )

    const searchNow = (): MemoryGraphSearch => {
      const g = current()
      search.use(g, version)
      return search
    }
    const flushReinforcement = Effect.suspend(() => {
      if (pending.size === 0) return Effect.void
      const taken = pending.take()
      return update((g) => Effect.succeed([undefined, { upsertNodes: reinforced(taken, (id) => g.nodes.get(id)) }] as const)).pipe(
        Effect.tapError(() => Effect.sync(() => pending.restore(taken)))
      )
    })
    yield* flushPeriodically(flushReinforcement, options.reinforceFlushMs ?? REINFORCE_FLUSH_MS)

    const reader: GraphReader = {
      getNodes: (ids) =>
        sync("load", () => {
          const g = current()
          return ids.flatMap((id) => {
            const n = g.nodes.get(id)
            return n === undefined ? [] : [pending.overlay(n)]
          })
        }),
      lexicalTopK: (q) => sync("search", () => searchNow().lexicalTopK(q)),
      vectorTopK: (q) => sync("search", () => searchNow().vectorTopK(q)),
      neighbours: (ids) => sync("search", () => searchNow().neighbours(ids)),
      bySlot: (keys) => sync("search", () => searchNow().bySlot(keys).map((n) => pending.overlay(n))),
      fromMessages: (refs, options) =>
        sync("search", () => searchNow().fromMessages(refs, options?.keyed === true).map(({ ref, node }) => ({ ref, node: pending.overlay(node) }))),
      nodesByKeys: (q) => sync("search", () => searchNow().nodesByKeys(q).map((n) => pending.overlay(n))),
      entityForms: sync("search", () => searchNow().entityForms()),
      accessCounts: sync("search", () => searchNow().accessCountsWith((n) => pending.overlay(n))),
      accessP90: sync("search", () => searchNow().accessP90()),
      changeStamp: sync("search", () => {
        current()
        return String(version)
      }),
      reinforce: (items) => Effect.sync(() => pending.add(items)),
      flushReinforcement
    }

    return GraphStore.of({
      backend: "json",
      location: file,
      load: () => sync("load", () => pending.overlayGraph(current())),
      counts: sync("load", () => {
        const g = current()
        return { nodes: g.nodes.size, edges: g.edges.length }
      }),
      commit: (changes) =>
        isEmptyChange(changes) ? Effect.void : update(() => Effect.succeed([undefined, changes] as const)),
      update,
      updatePart: (f) => update(() => f(reader)),
      replaceAll: (graph) =>
        locked(
          sync("restore", () => {
            const next: Graph = { nodes: new Map(), edges: [] }
            applyChanges(next, { upsertNodes: Array.from(graph.nodes.values()), addEdges: graph.edges })
            write(next)
          })
        ),
      // Every save already rewrites the whole file; what may remain is a temp file of a killed writer.
      scrub: locked(sync("scrub", () => removeStaleTempFiles(path.dirname(file), (n) => n.startsWith(`.${path.basename(file)}.`)))),
      ...reader
    })
  })

/** The reference's JSON backend: `<data-dir>/graph/memory_graph.json`, importing a SQLite graph found there once. */
export const GraphStoreJson: Layer.Layer<GraphStore, StorageError | CorruptFile, AppConfig> = Layer.scoped(
  GraphStore,
  Effect.gen(function* () {
    const config = yield* AppConfig
    const paths = dataPaths(config.dataDir)
    return yield* makeGraphStoreJson({
      file: paths.graphJson,
      lockFile: paths.graphLock,
      snapshotsDir: paths.snapshots,
      importSqlite: paths.graphSqlite
    })
  })
)
