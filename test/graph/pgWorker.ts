// A separate process logging and consolidating into one PostgreSQL namespace (built by
// postgresConcurrency.test.ts with esbuild, run with node). Usage: pgWorker <namespace> <worker> <count>
// with AWHM_TEST_POSTGRES set; prints "done" when every message is logged and consolidated.
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
import { Stage2Mock } from "../../src/layers/Stage2Mock.js"
import { consolidateSession } from "../../src/programs/consolidate.js"
import { AppConfig } from "../../src/services/AppConfig.js"
import { RawLog } from "../../src/services/RawLog.js"
import { testCluster } from "../support/pgCluster.js"

const [namespace, worker, countText] = process.argv.slice(2) as [string, string, string]
const count = Number(countText)
const SESSIONS = 5

/** Message `i` of this worker: two slots (where I live, the staging host), every text unique. */
export const messageText = (w: string, i: number): string =>
  i % 2 === 0 ? `I live in Town${w}x${i}` : `The staging host is stg-${w}-${i}`

const program = Effect.gen(function* () {
  const log = yield* RawLog
  yield* Effect.forEach(
    Array.from({ length: count }, (_, i) => i),
    (i) =>
      Effect.gen(function* () {
        const sessionId = `shared-${i % SESSIONS}`
        yield* log.append({ sessionId, role: "user", content: messageText(worker, i) })
        yield* consolidateSession(sessionId)
      }),
    { concurrency: "unbounded", discard: true }
  )
})

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "awhm-pg-worker-"))
const main = Effect.gen(function* () {
  const config = yield* loadConfig(
    {
      data_dir: dataDir,
      storage_backend: "postgres",
      embedder: "mock",
      postgres_url: testCluster().urls.awhm_alice,
      write_namespace: namespace
    },
    {}
  )
  // No NER: the slots under test come from the statement rules, and NER would only add CPU time.
  const configLayer = Layer.succeed(AppConfig, { ...config, nerLabels: [] })
  const stores = Layer.mergeAll(RawLogPostgres, GraphStorePostgres, ConsolidationProgressPostgres).pipe(
    Layer.provide(PostgresDatabaseLive),
    Layer.provideMerge(configLayer)
  )
  yield* program.pipe(Effect.provide(Layer.mergeAll(stores, EmbedderMock, Stage2Mock([]))))
})

Effect.runPromise(main.pipe(Effect.ensuring(Effect.sync(() => fs.rmSync(dataDir, { recursive: true, force: true }))))).then(
  () => console.log("done"),
  (e) => {
    console.error(String(e))
    process.exit(1)
  }
)
