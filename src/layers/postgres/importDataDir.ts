import { Effect, Layer } from "effect"
import { nowIso } from "../../domain/time.js"
import { dataPaths } from "../../store/paths.js"
import { readProgress } from "../../store/progress.js"
import { DeletionRecords } from "../../services/DeletionRecords.js"
import { RawLog } from "../../services/RawLog.js"
import { ConfigFromValues } from "../ConfigLive.js"
import { DeletionRecordsFile } from "../DeletionRecordsFile.js"
import { makeDeletionRecordsPostgres } from "../DeletionRecordsPostgres.js"
import { makeGraphStorePostgres } from "../GraphStorePostgres.js"
import { graphFileKind, openGraphStoreFile } from "../graph/openStore.js"
import { RawLogLive } from "../RawLogLive.js"
import { makeRawLogPostgres } from "../RawLogPostgres.js"
import { copyDeletionRecords } from "./copyDeletionRecords.js"
import { copyLog } from "./copyLog.js"
import type { PostgresDatabaseShape } from "./PostgresDatabase.js"

/** What an import copied (counts of the source; rows already there are left as they are). */
export interface ImportReport {
  readonly namespace: string
  readonly nodes: number
  readonly edges: number
  readonly sessions: number
  readonly messages: number
  readonly tombstones: number
}

/**
 * Copies a local data dir (SQLite or JSON graph, raw logs, consolidation progress, deletion records) into the client's
 * write namespace. Idempotent: nodes are upserted by id, messages keep their indices and are skipped when
 * present, progress and each session's next index only move forward. `onProgress` gets one line per step.
 */
export const importDataDir = (db: PostgresDatabaseShape, dataDir: string, onProgress: (line: string) => void) =>
  Effect.gen(function* () {
    const { sql, writeNamespace: ns, fail } = db
    const paths = dataPaths(dataDir)
    const backend = graphFileKind(dataDir)
    const graph = backend === null ? { nodes: new Map(), edges: [] } : yield* Effect.scoped(Effect.flatMap(openGraphStoreFile(backend, dataDir), (s) => s.load()))
    const store = yield* makeGraphStorePostgres(db, { vacuumOnScrub: false })
    // Upserts by id: what the namespace already holds need not be read first.
    yield* store.commit({ upsertNodes: Array.from(graph.nodes.values()), addEdges: graph.edges })
    onProgress(`graph: ${graph.nodes.size} nodes, ${graph.edges.length} edges`)

    const local = yield* RawLog.pipe(Effect.provide(RawLogLive.pipe(Layer.provide(ConfigFromValues(dataDir)))))
    const { sessions, messages } = yield* copyLog(local, yield* makeRawLogPostgres(db), onProgress)

    const progress = [...(yield* readProgress(paths.progress, nowIso()))].filter(([, p]) => p.lastMsgIndex !== null)
    if (progress.length > 0) {
      yield* sql`INSERT INTO awhm.consolidation_progress (namespace, session_id, last_msg_index, updated_at)
        SELECT ${ns}, p.s, p.i, p.u FROM unnest(${progress.map(([sid]) => sid)}::text[], ${progress.map(([, p]) => p.lastMsgIndex!)}::int[],
          ${progress.map(([, p]) => p.updatedAt)}::text[]) AS p(s, i, u)
        ON CONFLICT (namespace, session_id) DO UPDATE SET last_msg_index = greatest(awhm.consolidation_progress.last_msg_index, excluded.last_msg_index)`.pipe(
        Effect.mapError(fail("import consolidation progress"))
      )
    }
    onProgress(`consolidation progress: ${progress.length} sessions`)
    // Fresh planner statistics, so the first queries after a large copy are planned for its size (owner only).
    if (db.isOwner) yield* sql`ANALYZE awhm.nodes, awhm.node_terms, awhm.node_sources, awhm.edges, awhm.messages`.pipe(Effect.mapError(fail("analyze")))
    const localRecords = yield* DeletionRecords.pipe(Effect.provide(DeletionRecordsFile.pipe(Layer.provide(ConfigFromValues(dataDir)))))
    const tombstones = yield* copyDeletionRecords(localRecords, yield* makeDeletionRecordsPostgres(db), onProgress)
    return { namespace: ns, nodes: graph.nodes.size, edges: graph.edges.length, sessions, messages, tombstones } satisfies ImportReport
  })
