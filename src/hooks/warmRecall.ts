import * as fs from "node:fs"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import type { AwhmConfigShape } from "../domain/Config.js"
import { configLayer, embedderLayer, graphStoreLayer, rawLogLayer, sessionBufferLayer } from "../layers/Main.js"
import { makeRetrieverLayer } from "../layers/RetrieverLive.js"
import { dataPaths } from "../store/paths.js"
import { RetrieverState } from "../layers/retriever/service.js"
import { Embedder } from "../services/Embedder.js"
import { GraphStore } from "../services/GraphStore.js"
import { Retriever, type RetrieverShape } from "../services/Retriever.js"
import { SessionBuffer, type SessionBufferShape } from "../services/SessionBuffer.js"
import type { HookServices, WarmRetriever } from "./services.js"

/**
 * Questions of the kinds prompts ask (when, where, who, how many, a named period, a summary, a statement), put
 * to the warm stores while the server is idle: a new server's first prompts run code V8 has not optimised yet,
 * at about twice the CPU of the same prompts after some dozens.
 */
export const PRACTICE_QUESTIONS: ReadonlyArray<string> = [
  "When did we last change the deployment settings?",
  "Where did I say the staging database runs?",
  "How many tests failed in the build last week?",
  "What did we decide about the API in March 2024?",
  "Who reviewed the pull request on 3 May, 2024?",
  "Summarize what we discussed about the release.",
  "Which library do I prefer for testing, and why?",
  "I moved the config file to the shared folder yesterday."
]

interface Warm {
  /** The configuration it was opened with, and as JSON. */
  readonly config: AwhmConfigShape
  readonly key: string
  /** Device and inode of the SQLite file it opened: a file put in its place (a restore) means reopening. */
  readonly fileId: string | null
  readonly scope: Scope.CloseableScope
  readonly context: Context.Context<GraphStore | Embedder>
  readonly state: RetrieverState
  /** The retriever over these stores, built by the first hook that asks and kept until they close. */
  served: ServedRetriever | null
}

/**
 * One retriever for every hook while the stores stay open: building it per hook (its layers, its raw-log reader)
 * cost a few ms of each prompt. What belongs to one hook, its session buffer (whose scope flushes its WAL when
 * the hook ends) and where its warnings go, is the hook's, set before each use.
 */
interface ServedRetriever {
  readonly retriever: RetrieverShape
  buffer: SessionBufferShape | null
  warn: (line: string) => void
}

/** A session buffer that is whichever one the hook being answered opened. */
const forwardingBuffer = (served: () => ServedRetriever): SessionBufferShape => {
  const buffer = () => {
    const b = served().buffer
    if (b === null) throw new Error("the served retriever ran outside a hook")
    return b
  }
  return {
    observe: (entry) => Effect.suspend(() => buffer().observe(entry)),
    entries: (sessionId) => Effect.suspend(() => buffer().entries(sessionId)),
    search: (sessionId, query, options) => Effect.suspend(() => buffer().search(sessionId, query, options)),
    removeWhere: (sessionId, predicate) => Effect.suspend(() => buffer().removeWhere(sessionId, predicate)),
    replace: (sessionId, entries) => Effect.suspend(() => buffer().replace(sessionId, entries)),
    flush: (force) => Effect.suspend(() => buffer().flush(force)),
    clear: (sessionId) => Effect.suspend(() => buffer().clear(sessionId)),
    sessionsWithWal: Effect.suspend(() => buffer().sessionsWithWal)
  }
}

const fileId = (file: string): string | null => {
  try {
    const st = fs.statSync(file)
    return `${st.dev}:${st.ino}`
  } catch {
    return null
  }
}

const graphFile = (config: AwhmConfigShape): string | null =>
  config.storageBackend === "sqlite" ? dataPaths(config.dataDir).graphSqlite : null

/**
 * The hook server's long-lived recall: one graph store, embedder and set of indexes, reopened when the
 * configuration changes or the graph file is replaced. The stores keep themselves in step with other
 * processes' writes (SQLite's data_version, the raw log's mtimes), so a consolidation, a delete or a
 * restore made elsewhere is seen by the next prompt.
 */
export const makeWarmRecall = () => {
  let warm: Warm | null = null

  const release = Effect.suspend(() => {
    const w = warm
    warm = null
    return w === null ? Effect.void : Scope.close(w.scope, Exit.void)
  })

  const open = (config: AwhmConfigShape, key: string) =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(Layer.merge(graphStoreLayer(config), embedderLayer(config)), scope).pipe(
        Effect.onError(() => Scope.close(scope, Exit.void))
      )
      const embedder = Context.get(context, Embedder)
      const file = graphFile(config)
      const state = new RetrieverState(embedder.enabled ? embedder.modelId : null, { k1: config.bm25K1, b: config.bm25B })
      // Rewriting the saved index and listing every log wait until the hook has its answer (listDeferred, saveDeferred).
      state.deferSaves = true
      state.deferListing = true
      const opened: Warm = {
        config,
        key,
        fileId: file === null ? null : fileId(file),
        scope,
        context,
        state,
        served: null
      }
      return opened
    })

  /** The open stores for this configuration, reopened first when it changed or the graph file was replaced. */
  const current = (config: AwhmConfigShape) =>
    Effect.gen(function* () {
      const key = JSON.stringify(config)
      const file = graphFile(config)
      if (warm !== null && (warm.key !== key || (file !== null && fileId(file) !== warm.fileId))) yield* release
      if (warm === null) warm = yield* open(config, key)
      return warm
    })

  /** The long-lived graph store and embedder themselves (for programs beside retrieval). */
  const context = (config: AwhmConfigShape) => Effect.map(current(config), (w) => w.context)

  /** The open stores' retriever, built in their scope the first time (with their configuration: the hook's, as the key says). */
  const served = (w: Warm) =>
    Effect.gen(function* () {
      if (w.served !== null) return w.served
      let made: ServedRetriever | null = null
      const self = () => made!
      const layer = makeRetrieverLayer({ state: w.state, warn: (line) => self().warn(line) }).pipe(
        Layer.provide(
          Layer.mergeAll(
            Layer.succeedContext(w.context),
            Layer.succeed(SessionBuffer, SessionBuffer.of(forwardingBuffer(self))),
            rawLogLayer(w.config),
            configLayer(w.config)
          )
        )
      )
      const context = yield* Layer.buildWithScope(layer, w.scope)
      made = { retriever: Context.get(context, Retriever), buffer: null, warn: () => {} }
      w.served = made
      return made
    })

  const retriever = (config: AwhmConfigShape, warn: (line: string) => void) =>
    Effect.flatMap(current(config), (w) =>
      Effect.map(served(w), (s): WarmRetriever =>
        Layer.effect(
          Retriever,
          Effect.map(SessionBuffer, (buffer) => {
            s.buffer = buffer
            s.warn = warn
            return s.retriever
          })
        )
      )
    )

  const services: HookServices = { retriever }

  /** Opens the stores and builds the indexes ahead of the first prompt (an empty query returns nothing). */
  const warmUp = (config: AwhmConfigShape) =>
    Effect.gen(function* () {
      const layer = yield* retriever(config, () => {})
      yield* Effect.flatMap(Retriever, (r) => r.retrieve("", { k: 1, lexicalOnly: true })).pipe(
        Effect.provide(layer),
        Effect.provide(Layer.mergeAll(rawLogLayer(config), sessionBufferLayer(config), configLayer(config)))
      )
    })

  /**
   * Asks one practice question (PRACTICE_QUESTIONS, the n-th, round and round) of the open stores, with the
   * configuration the last hook used, as a prompt's recall would, but as a look, not a use: nothing is logged
   * and nothing returned is reinforced. What it leaves is what any query leaves (the indexes followed to the
   * stores, a save left to saveDeferred). With no stores open it does nothing (it never opens them).
   */
  const practice = (n: number) =>
    Effect.gen(function* () {
      if (warm === null) return
      const { config } = warm
      const w = yield* current(config)
      const store = Context.get(w.context, GraphStore)
      const lookOnly = Context.add(w.context, GraphStore, GraphStore.of({ ...store, reinforce: () => Effect.void }))
      const layer = makeRetrieverLayer({ state: w.state, warn: () => {} }).pipe(Layer.provide(Layer.succeedContext(lookOnly)))
      const question = PRACTICE_QUESTIONS[n % PRACTICE_QUESTIONS.length]!
      yield* Effect.flatMap(Retriever, (r) => r.retrieve(question, { k: 10, lexicalOnly: true })).pipe(
        Effect.provide(layer),
        Effect.provide(Layer.mergeAll(rawLogLayer(config), sessionBufferLayer(config), configLayer(config)))
      )
    })

  /** Writes what the last hook left to save (the server calls it once that hook's answer is out). */
  const saveDeferred = (warn: (line: string) => void) => {
    warm?.state.saveDeferred(warn)
  }

  /** Lists every log when the last hook left that due (the server runs it once that hook's answer is out). */
  const listDeferred = (): Promise<void> =>
    warm === null ? Promise.resolve() : Effect.runPromise(Effect.catchAllCause(warm.state.listDeferred(), () => Effect.void))

  return { services, warmUp, practice, release, context, listDeferred, saveDeferred }
}
