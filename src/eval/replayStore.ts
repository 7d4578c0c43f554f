// What the long-conversation replays (LoCoMo, BEAM) share: a fresh store per conversation with zero LLM
// calls, the ingest loop of the data sets' protocols, and the mapping of results to the data set's turn ids.
import * as crypto from "node:crypto"
import { Effect, Layer } from "effect"
import type { AwhmConfigShape } from "../domain/Config.js"
import type { RetrievalResult } from "../domain/Result.js"
import { AwhmLive } from "../layers/Main.js"
import { makeRetrieverLayer } from "../layers/RetrieverLive.js"
import { Stage2Mock } from "../layers/Stage2Mock.js"
import { refKey } from "../layers/retriever/rank.js"
import type { RetrieverOptions } from "../layers/retriever/service.js"
import { consolidateSession } from "../programs/consolidate.js"
import { Embedder, type EmbedderShape } from "../services/Embedder.js"
import { type AppendInput, RawLog } from "../services/RawLog.js"
import { Retriever } from "../services/Retriever.js"
import { SessionBuffer } from "../services/SessionBuffer.js"
import { scopedTempDir } from "../store/scopedTempDir.js"

export interface ReplayStore {
  /** The data set, for the error a Stage 2 call would raise. */
  readonly name: string
  /** The configuration the store starts from (its data dir is a fresh temp dir; Stage 2 off). */
  readonly config: AwhmConfigShape
  readonly embedder: EmbedderShape
  /** Passed to the retriever (ablations). */
  readonly retriever?: RetrieverOptions | undefined
}

/**
 * On PostgreSQL, a replay gets a namespace of its own (`<kind of the write namespace>:<data set>-replay-<random>`),
 * removed when it ends if the replay's stores opened (`opened()`), so a replay never writes into a namespace
 * people use.
 */
const scratchNamespace = (config: AwhmConfigShape, name: string, opened: () => boolean) =>
  Effect.gen(function* () {
    if (config.storageBackend !== "postgres" || config.postgresUrl === null) return config
    const kind = (config.writeNamespace ?? config.namespaces[0] ?? "eval:x").split(":")[0]!
    const writeNamespace = `${kind}:${name.toLowerCase()}-replay-${crypto.randomBytes(6).toString("hex")}`
    const url = config.postgresUrl
    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        if (!opened()) return
        const [{ makePostgresDatabase }, { dropNamespace }] = yield* Effect.promise(() =>
          Promise.all([import("../layers/postgres/PostgresDatabase.js"), import("../layers/postgres/dropNamespace.js")])
        )
        yield* dropNamespace(yield* makePostgresDatabase({ url, writeNamespace, readNamespaces: [] }))
      }).pipe(
        Effect.scoped,
        Effect.catchAll((e) => Effect.sync(() => process.stderr.write(`awhm eval: could not remove the replay namespace ${writeNamespace}: ${e.message}\n`)))
      )
    )
    return { ...config, writeNamespace, namespaces: [] }
  })

/** Runs `body` against live stores in a temporary data dir, removed afterwards. Zero LLM calls. */
export const inReplayStore = <A, E, R>(store: ReplayStore, body: Effect.Effect<A, E, R>) =>
  Effect.scoped(
    Effect.gen(function* () {
      const dataDir = yield* scopedTempDir(`awhm-${store.name.toLowerCase()}-`)
      let opened = false
      const config = yield* scratchNamespace(store.config, store.name, () => opened)
      const layer = AwhmLive(
        { ...config, dataDir, stage2Enabled: false },
        {
          embedder: Layer.succeed(Embedder, store.embedder),
          // Stage 2 stays off, and would fail loudly if it were ever asked.
          stage2Client: Stage2Mock(() => {
            throw new Error(`the ${store.name} replay makes no LLM calls`)
          }),
          retriever: makeRetrieverLayer({ warn: () => {}, ...store.retriever })
        }
      )
      return yield* Effect.zipRight(Effect.sync(() => (opened = true)), body).pipe(Effect.provide(layer), Effect.scoped)
    })
  )

export interface ReplaySession<T> {
  readonly id: string
  readonly turns: ReadonlyArray<{ readonly turn: T; readonly message: Omit<AppendInput, "sessionId"> }>
}

/**
 * The data sets' protocol: log every turn of each session (raw log and buffer), consolidate the session
 * (unless `consolidate` is false), end it; then one query, so the embedding of every logged message counts
 * as ingest. Returns each logged message's turn by ref key, how many there were and the ingest time.
 */
export const replaySessions = <T>(
  sessions: ReadonlyArray<ReplaySession<T>>,
  options: { readonly consolidate?: boolean; readonly lexicalOnly?: boolean }
) =>
  Effect.gen(function* () {
    const rawLog = yield* RawLog
    const buffer = yield* SessionBuffer
    const retriever = yield* Retriever
    const turns = new Map<string, T>()
    const started = Date.now()
    for (const session of sessions) {
      for (const { turn, message } of session.turns) {
        const entry = yield* rawLog.append({ ...message, sessionId: session.id })
        yield* buffer.observe(entry)
        turns.set(refKey(session.id, entry.index), turn)
      }
      if (options.consolidate !== false) yield* consolidateSession(session.id)
      yield* buffer.clear(session.id)
    }
    yield* retriever.retrieve("warm up", { k: 1, ...(options.lexicalOnly === true ? { lexicalOnly: true } : {}) })
    return { turns, messages: turns.size, ingestSeconds: (Date.now() - started) / 1000 }
  })

/**
 * The turns each result stands for, through its source refs. An entity node keeps a ref to every mention
 * but carries none of their content: it stands for no turn.
 */
export const resultTurns = <T>(
  found: ReadonlyArray<RetrievalResult>,
  turns: ReadonlyMap<string, T>,
  isEntity: (nodeId: string) => boolean
): Array<Array<T>> =>
  found.map((r) =>
    r.nodeId !== undefined && isEntity(r.nodeId)
      ? []
      : [...new Set(r.sourceRefs.flatMap((ref) => {
          const t = turns.get(refKey(ref.sessionId, ref.messageIndex))
          return t === undefined ? [] : [t]
        }))]
  )
