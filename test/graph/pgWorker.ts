// A separate process logging and consolidating into one PostgreSQL namespace (built by
// postgresConcurrency.test.ts with esbuild, run with node). Usage: pgWorker <namespace> <worker> <count>
// with AWHM_TEST_POSTGRES set; hard-deletes a few of its own memories as it goes; prints "done" and the
// [session, index] of the messages it deleted when every message is logged and consolidated.
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { ConsolidationProgressPostgres } from "../../src/layers/ConsolidationProgressPostgres.js"
import { loadConfig } from "../../src/layers/ConfigLive.js"
import { EmbedderMock } from "../../src/layers/EmbedderMock.js"
import { GraphStorePostgres } from "../../src/layers/GraphStorePostgres.js"
import { PostgresDatabaseLive } from "../../src/layers/postgres/PostgresDatabase.js"
import { RawLogPostgres } from "../../src/layers/RawLogPostgres.js"
import { SessionBufferLive } from "../../src/layers/SessionBufferLive.js"
import { Stage2Mock } from "../../src/layers/Stage2Mock.js"
import { UnusedGraphFileLive } from "../../src/layers/graph/UnusedGraphFileLive.js"
import { DeletionRecordsPostgres } from "../../src/layers/DeletionRecordsPostgres.js"
import { consolidateSession } from "../../src/programs/consolidate.js"
import { hardDelete } from "../../src/programs/hardDelete.js"
import { AppConfig } from "../../src/services/AppConfig.js"
import { GraphStore } from "../../src/services/GraphStore.js"
import { RawLog } from "../../src/services/RawLog.js"
import { testCluster } from "../support/pgCluster.js"
import { isDeleted, messageText } from "./pgWorkerTexts.js"

const [namespace, worker, countText] = process.argv.slice(2) as [string, string, string]
const count = Number(countText)
const SESSIONS = 5

const program = Effect.gen(function* () {
  const log = yield* RawLog
  const store = yield* GraphStore
  const deleted: Array<readonly [string, number]> = []
  yield* Effect.forEach(
    Array.from({ length: count }, (_, i) => i),
    (i) =>
      Effect.gen(function* () {
        const sessionId = `shared-${i % SESSIONS}`
        const entry = yield* log.append({ sessionId, role: "user", content: messageText(worker, i) })
        yield* consolidateSession(sessionId)
        if (!isDeleted(i)) return
        // While the other workers go on logging and consolidating into the same sessions.
        const [made] = yield* store.fromMessages([{ sessionId, messageIndex: entry.index }])
        if (made === undefined) return yield* Effect.die(new Error(`no memory was made from message ${i}`))
        yield* hardDelete(made.node.id)
        deleted.push([sessionId, entry.index])
      }),
    { concurrency: "unbounded", discard: true }
  )
  return deleted
})

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "awhm-pg-worker-"))
const main = Effect.gen(function* () {
  const config = yield* loadConfig(
    {
      data_dir: dataDir,
      storage_backend: "postgres",
      embedder: "mock",
      postgres_url: testCluster().urls.awhm_alice,
      write_namespace: namespace,
      // A client role may not VACUUM (it would only say so on every delete).
      postgres_vacuum_on_delete: "false"
    },
    {}
  )
  // No NER: the slots under test come from the statement rules, and NER would only add CPU time.
  const configLayer = Layer.succeed(AppConfig, { ...config, nerLabels: [] })
  const stores = Layer.mergeAll(RawLogPostgres, GraphStorePostgres, ConsolidationProgressPostgres, DeletionRecordsPostgres, SessionBufferLive, UnusedGraphFileLive).pipe(
    Layer.provide(PostgresDatabaseLive),
    Layer.provideMerge(configLayer)
  )
  return yield* program.pipe(Effect.provide(Layer.mergeAll(stores, EmbedderMock, Stage2Mock([]))))
})

Effect.runPromise(main.pipe(Effect.ensuring(Effect.sync(() => fs.rmSync(dataDir, { recursive: true, force: true }))))).then(
  (deleted) => console.log(`done ${JSON.stringify(deleted)}`),
  (e) => {
    console.error(String(e))
    process.exit(1)
  }
)
