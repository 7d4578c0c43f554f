import { Effect, Layer } from "effect"
import { makeNode, type Edge, type Graph, type MemoryNode } from "../../src/domain/Node.js"
import type { Role } from "../../src/domain/Message.js"
import { ConfigFromValues } from "../../src/layers/ConfigLive.js"
import { MOCK_DIMENSION, MOCK_MODEL_ID, mockEmbedding } from "../../src/layers/EmbedderMock.js"
import { makeGraphStoreMemory } from "../../src/layers/GraphStoreMemory.js"
import { RawLogLive } from "../../src/layers/RawLogLive.js"
import { RawLogMemory } from "../../src/layers/RawLogMemory.js"
import { makeRetrieverLayer } from "../../src/layers/RetrieverLive.js"
import type { GraphTuning, RawTuning } from "../../src/layers/retriever/engine.js"
import type { RetrieverState } from "../../src/layers/retriever/service.js"
import { SessionBufferMemory } from "../../src/layers/SessionBufferMemory.js"
import { Embedder, EmbedderError } from "../../src/services/Embedder.js"
import { GraphStore } from "../../src/services/GraphStore.js"
import { RawLog } from "../../src/services/RawLog.js"
import { SessionBuffer } from "../../src/services/SessionBuffer.js"

/** A mock embedder that counts its calls (and can be told to fail, or to run `before` on each call). */
export const countingEmbedder = (options: { readonly fail?: boolean; readonly before?: (texts: ReadonlyArray<string>) => void } = {}) => {
  const calls: Array<ReadonlyArray<string>> = []
  const layer = Layer.succeed(
    Embedder,
    Embedder.of({
      modelId: MOCK_MODEL_ID,
      enabled: true,
      dimension: MOCK_DIMENSION,
      embed: (texts) =>
        Effect.suspend(() => {
          calls.push(texts)
          options.before?.(texts)
          return options.fail === true
            ? Effect.fail(new EmbedderError({ operation: "load", message: "embedding model test-model could not be loaded" }))
            : Effect.succeed(texts.map(mockEmbedding))
        })
    })
  )
  return { layer, calls }
}

/** A statement node embedded with the mock model. */
export const node = (id: string, content: string, overrides: Partial<MemoryNode> = {}): MemoryNode =>
  makeNode({
    id,
    type: "semantic",
    content,
    createdAt: "2026-01-01T00:00:00.000Z",
    lastAccessed: "2026-01-01T00:00:00.000Z",
    embedding: mockEmbedding(content),
    embedModel: MOCK_MODEL_ID,
    ...overrides
  })

export const edge = (source: string, target: string, weight = 1): Edge => ({
  source,
  target,
  type: "association",
  weight,
  createdAt: "2026-01-01T00:00:00.000Z"
})

export const graphOf = (nodes: ReadonlyArray<MemoryNode>, edges: ReadonlyArray<Edge> = []): Graph => ({
  nodes: new Map(nodes.map((n) => [n.id, n])),
  edges: [...edges]
})

export interface WorldOptions {
  readonly graph?: Graph
  readonly embedder?: Layer.Layer<Embedder>
  /** Configuration overrides by snake_case name (e.g. { cold_start_session_count: "0" }). */
  readonly config?: Record<string, string>
  readonly warn?: (line: string) => void
  /** Raw-log scoring other than the defaults (to show what a rule changes). */
  readonly rawTuning?: Partial<RawTuning>
  /** Graph ranking other than the defaults (to show what a rule changes). */
  readonly graphTuning?: Partial<GraphTuning>
}

/** Retriever over in-memory stores, the mock embedder and default configuration. */
export const world = (options: WorldOptions = {}) => {
  const config = ConfigFromValues("/nonexistent/awhm-retrieval-test", options.config ?? {})
  const stores = Layer.mergeAll(
    RawLogMemory,
    SessionBufferMemory,
    Layer.effect(GraphStore, makeGraphStoreMemory(options.graph)),
    options.embedder ?? countingEmbedder().layer
  ).pipe(Layer.provideMerge(config))
  return makeRetrieverLayer({
    persist: false,
    warn: options.warn ?? (() => {}),
    ...(options.rawTuning === undefined ? {} : { rawTuning: options.rawTuning }),
    ...(options.graphTuning === undefined ? {} : { graphTuning: options.graphTuning })
  }).pipe(Layer.provideMerge(stores))
}

/** Logs messages to a session (raw log + buffer, as `awhm log` does); returns their indexes. */
export const logAll = (
  sessionId: string,
  messages: ReadonlyArray<readonly [Role, string] | readonly [Role, string, string]>
) =>
  Effect.gen(function* () {
    const rawLog = yield* RawLog
    const buffer = yield* SessionBuffer
    const indexes: Array<number> = []
    for (const [role, content, timestamp] of messages) {
      const entry = yield* rawLog.append({ sessionId, role, content, ...(timestamp !== undefined ? { timestamp } : {}) })
      yield* buffer.observe(entry)
      indexes.push(entry.index)
    }
    return indexes
  })

/**
 * A retriever over a file raw log under `dir` whose listing, stat and read calls are pushed onto `calls`
 * ("list", "stat <sid>", "read <sid>", "read <sid> since" for only what was appended); `persist`: it keeps its index under the data dir, as a CLI process does.
 */
export const countedRawLogRetriever = (dir: string, calls: Array<string>, persist: boolean, state?: RetrieverState) => {
  const counted = Layer.effect(
    RawLog,
    Effect.map(RawLog, (log) =>
      RawLog.of({
        ...log,
        sessions: Effect.zipRight(Effect.sync(() => calls.push("list")), log.sessions),
        session: (sid) => Effect.zipRight(Effect.sync(() => calls.push(`stat ${sid}`)), log.session(sid)),
        read: (sid) => Effect.zipRight(Effect.sync(() => calls.push(`read ${sid}`)), log.read(sid)),
        // A read of only what was appended since the last one is "read <sid> since".
        ...(log.readSince === undefined
          ? {}
          : { readSince: (sid: string, at: string | null) => Effect.tap(log.readSince!(sid, at), (got) => calls.push(got.whole ? `read ${sid}` : `read ${sid} since`)) })
      })
    )
  ).pipe(Layer.provide(RawLogLive))
  return makeRetrieverLayer({ persist, warn: () => {}, ...(state === undefined ? {} : { state }) }).pipe(
    Layer.provideMerge(
      Layer.mergeAll(counted, SessionBufferMemory, Layer.effect(GraphStore, makeGraphStoreMemory(graphOf([]))), countingEmbedder().layer)
    ),
    Layer.provideMerge(ConfigFromValues(dir))
  )
}

/** Times the newer-wins tests state things at, oldest first. */
export const JAN = "2026-01-05T09:00:00.000Z"
export const FEB = "2026-02-01T09:00:00.000Z"
export const MAR = "2026-03-20T09:00:00.000Z"

/** A candidate the user said at `at`, message `messageIndex` of session s1 (what newerWins reads). */
export const said = (content: string, at: string, messageIndex: number) => ({ content, at, said: true, sourceRefs: [{ sessionId: "s1", messageIndex }] })

/** An embedder whose 3-dimensional vectors a table gives (`vectorOf(text)`), for set similarities to a query. */
export const tableEmbedder = (vectorOf: (text: string) => Float32Array) =>
  Layer.succeed(
    Embedder,
    Embedder.of({ modelId: "test-table", enabled: true, dimension: 3, embed: (texts) => Effect.succeed(texts.map(vectorOf)) })
  )

/** The query's vector in a tableEmbedder. */
export const QUERY_VECTOR = Float32Array.of(1, 0, 0)

/** A unit vector at cosine `similarity` from QUERY_VECTOR, the rest along axis 1 or 2 (0 for unrelated text: axis 2). */
export const atSimilarity = (similarity: number, axis: 1 | 2): Float32Array => {
  const v = Float32Array.of(similarity, 0, 0)
  v[axis] = Math.sqrt(1 - similarity ** 2)
  return v
}
