import { Effect, Layer } from "effect"
import { storageFailure } from "../../domain/errors.js"
import type { SessionProgress } from "../../domain/Progress.js"
import { nowIso } from "../../domain/time.js"
import { DeletionRecords } from "../../services/DeletionRecords.js"
import { RawLog } from "../../services/RawLog.js"
import { dataPaths } from "../../store/paths.js"
import { ensurePrivateDir } from "../../store/privateDir.js"
import { readProgress, withConsolidationLock, writeProgress } from "../../store/progress.js"
import { ConfigFromValues } from "../ConfigLive.js"
import { DeletionRecordsFile } from "../DeletionRecordsFile.js"
import { makeDeletionRecordsPostgres } from "../DeletionRecordsPostgres.js"
import { makeConsolidationProgressPostgres } from "../ConsolidationProgressPostgres.js"
import { makeGraphStorePostgres } from "../GraphStorePostgres.js"
import { graphFileKind, openGraphStoreFile } from "../graph/openStore.js"
import { RawLogLive } from "../RawLogLive.js"
import { makeRawLogPostgres } from "../RawLogPostgres.js"
import { copyDeletionRecords } from "./copyDeletionRecords.js"
import { copyLog } from "./copyLog.js"
import type { ImportReport } from "./importDataDir.js"
import type { PostgresDatabaseShape } from "./PostgresDatabase.js"

/**
 * Copies the client's write namespace (graph, raw logs, consolidation progress, deletion records) into a local data dir, the
 * reverse of importDataDir. The graph goes into the dir's graph file (its SQLite or JSON file if it has
 * one, else `backend`'s). Idempotent: nodes are upserted by id, messages keep their indices and are
 * skipped when present, progress and each session's next index only move forward.
 */
export const exportNamespace = (
  db: PostgresDatabaseShape,
  dataDir: string,
  backend: "sqlite" | "json",
  onProgress: (line: string) => void
) =>
  Effect.gen(function* () {
    const paths = dataPaths(dataDir)
    yield* Effect.try({ try: () => ensurePrivateDir(dataDir), catch: storageFailure("create", dataDir) })
    const kind = graphFileKind(dataDir) ?? backend
    const graph = yield* (yield* makeGraphStorePostgres(db, { vacuumOnScrub: false })).load()
    const progress = yield* makeConsolidationProgressPostgres(db).pipe(Effect.flatMap((p) => p.read), Effect.mapError(db.fail("read consolidation progress")))

    // Under the data dir's consolidation lock: no local consolidation commits between the graph and the progress.
    return yield* withConsolidationLock(
      dataDir,
      Effect.scoped(Effect.gen(function* () {
        const local = yield* openGraphStoreFile(kind, dataDir)
        yield* local.commit({ upsertNodes: Array.from(graph.nodes.values()), addEdges: graph.edges })
        onProgress(`graph: ${graph.nodes.size} nodes, ${graph.edges.length} edges`)

        const log = yield* RawLog.pipe(Effect.provide(RawLogLive.pipe(Layer.provide(ConfigFromValues(dataDir)))))
        const { sessions, messages } = yield* copyLog(yield* makeRawLogPostgres(db), log, onProgress)

        const before = yield* readProgress(paths.progress, nowIso())
        const merged = new Map<string, SessionProgress>(before)
        let moved = 0
        for (const [sid, p] of progress) {
          const mine = before.get(sid)?.lastMsgIndex ?? null
          if (p.lastMsgIndex !== null && (mine === null || p.lastMsgIndex > mine)) {
            merged.set(sid, p)
            moved++
          }
        }
        if (moved > 0) yield* writeProgress(paths.progress, merged)
        onProgress(`consolidation progress: ${progress.size} sessions`)
        const localRecords = yield* DeletionRecords.pipe(Effect.provide(DeletionRecordsFile.pipe(Layer.provide(ConfigFromValues(dataDir)))))
        const tombstones = yield* copyDeletionRecords(yield* makeDeletionRecordsPostgres(db), localRecords, onProgress)
        return { namespace: db.writeNamespace, nodes: graph.nodes.size, edges: graph.edges.length, sessions, messages, tombstones } satisfies ImportReport
      }))
    )
  })
