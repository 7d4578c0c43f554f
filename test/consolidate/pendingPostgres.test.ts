import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { makeConsolidationProgressPostgres } from "../../src/layers/ConsolidationProgressPostgres.js"
import { ConfigFromValues } from "../../src/layers/ConfigLive.js"
import { EmbedderMock } from "../../src/layers/EmbedderMock.js"
import { makeGraphStorePostgres } from "../../src/layers/GraphStorePostgres.js"
import { makeRawLogPostgres } from "../../src/layers/RawLogPostgres.js"
import { Stage2Mock } from "../../src/layers/Stage2Mock.js"
import { consolidatePending } from "../../src/programs/consolidate.js"
import { ConsolidationProgress } from "../../src/services/ConsolidationProgress.js"
import { GraphStore } from "../../src/services/GraphStore.js"
import { RawLog } from "../../src/services/RawLog.js"
import { tempDir } from "../support/graphFixtures.js"
import { freshNamespace, openTestDatabase } from "../support/postgres.js"
import { readsOnlyChangedLogs } from "./support.js"

// The settled-log marks of a full consolidation run live beside the progress rows on PostgreSQL.

describe("finding pending sessions on PostgreSQL", () => {
  it.scopedLive("a run reads only the logs that changed since they were consolidated (appends, removals, progress moved back)", () =>
    Effect.gen(function* () {
      const db = yield* openTestDatabase("awhm_owner", freshNamespace())
      const rawLog = yield* makeRawLogPostgres(db)
      const reads: Array<string> = []
      const layer = Layer.mergeAll(
        Layer.succeed(RawLog, RawLog.of({ ...rawLog, read: (sid) => Effect.zipRight(Effect.sync(() => reads.push(sid)), rawLog.read(sid)) })),
        Layer.succeed(GraphStore, yield* makeGraphStorePostgres(db)),
        Layer.succeed(ConsolidationProgress, yield* makeConsolidationProgressPostgres(db)),
        EmbedderMock,
        Stage2Mock([]),
        ConfigFromValues(yield* tempDir("awhm-consolidate-"))
      )
      yield* Effect.gen(function* () {
        yield* readsOnlyChangedLogs(reads)
        reads.length = 0
        yield* consolidatePending()
        expect(reads).toEqual([])
        // Progress moved back: b is read again, whatever the mark says.
        yield* db.sql`UPDATE awhm.consolidation_progress SET last_msg_index = 0 WHERE namespace = ${db.writeNamespace} AND session_id = 'b'`
        yield* consolidatePending()
        expect(reads).toEqual(["b"])
        // A removed message changes the log's stamp: it is read again.
        reads.length = 0
        yield* consolidatePending()
        expect(reads).toEqual([])
        expect(yield* rawLog.removeEntries("c", new Set([0]))).toBe(1)
        yield* consolidatePending()
        expect(reads).toEqual(["c"])
      }).pipe(Effect.provide(layer))
    })
  )
})
