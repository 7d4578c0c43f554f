import * as fs from "node:fs"
import { expect } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { Role } from "../../src/domain/Message.js"
import type { MemoryNode } from "../../src/domain/Node.js"
import { ConfigFromValues } from "../../src/layers/ConfigLive.js"
import { EmbedderMock } from "../../src/layers/EmbedderMock.js"
import { GraphStoreMemory } from "../../src/layers/GraphStoreMemory.js"
import { RawLogMemory } from "../../src/layers/RawLogMemory.js"
import { Stage2Mock } from "../../src/layers/Stage2Mock.js"
import { dataPaths } from "../../src/store/paths.js"
import type { Embedder } from "../../src/services/Embedder.js"
import { GraphStore } from "../../src/services/GraphStore.js"
import { RawLog } from "../../src/services/RawLog.js"
import type { Stage2Client } from "../../src/services/Stage2Client.js"
import { consolidatePending } from "../../src/programs/consolidate.js"
import { tempDir } from "../support/graphFixtures.js"

/** Minute `m` after 2026-03-01T10:00Z, canonical ISO. */
export const at = (m: number): string => new Date(Date.UTC(2026, 2, 1, 10, m)).toISOString()

export interface StoreOptions {
  readonly config?: Readonly<Record<string, string>>
  readonly embedder?: Layer.Layer<Embedder>
  readonly stage2?: Layer.Layer<Stage2Client>
  readonly graphStore?: Layer.Layer<GraphStore>
  readonly rawLog?: Layer.Layer<RawLog>
}

/**
 * Runs `body` against fresh in-memory stores (raw log, graph), the mock embedder and a temp data
 * directory (where the progress file lives); `body` gets the directory.
 */
export const withStores = <A, E, R>(
  body: (dataDir: string) => Effect.Effect<A, E, R>,
  options: StoreOptions = {}
) =>
  Effect.gen(function* () {
    const dir = yield* tempDir("awhm-consolidate-")
    const layer = Layer.mergeAll(
      options.rawLog ?? RawLogMemory,
      options.graphStore ?? GraphStoreMemory,
      options.embedder ?? EmbedderMock,
      options.stage2 ?? Stage2Mock([]),
      ConfigFromValues(dir, options.config ?? {})
    )
    return yield* body(dir).pipe(Effect.provide(layer))
  })

/** Appends one message (user by default) at minute `minute`. */
export const say = (
  sessionId: string,
  content: string,
  minute: number,
  role: Role = "user",
  metadata?: Record<string, unknown>
) =>
  Effect.flatMap(RawLog, (log) =>
    log.append({ sessionId, role, content, timestamp: at(minute), ...(metadata ? { metadata } : {}) })
  )

/** All nodes, in creation order of the map. */
export const allNodes = Effect.map(
  Effect.flatMap(GraphStore, (s) => s.load()),
  (g) => [...g.nodes.values()]
)

/** Statement nodes (not entities). */
export const statements = Effect.map(allNodes, (ns) => ns.filter((n) => n.entityType === null))

export const byContent = (nodes: ReadonlyArray<MemoryNode>, content: string): MemoryNode => {
  const n = nodes.find((x) => x.content === content)
  if (n === undefined) throw new Error(`no node "${content}" among: ${nodes.map((x) => x.content).join(" | ")}`)
  return n
}

export const progressText = (dir: string): string | null => {
  const file = dataPaths(dir).progress
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8") : null
}

/**
 * Three sessions consolidated, a run with nothing new, then one session grows: `reads` (the sessions whose
 * logs were read, as a counting RawLog records them) shows every log read once, then none, then only it.
 */
export const readsOnlyChangedLogs = (reads: Array<string>) =>
  Effect.gen(function* () {
    yield* say("a", "My favourite colour is green", 0)
    yield* say("b", "I live in Lisbon", 1)
    yield* say("c", "My dog is called Rex", 2)
    expect((yield* consolidatePending()).newNodes).toBeGreaterThan(0)
    expect(reads.sort()).toEqual(["a", "b", "c"])
    // Nothing new: no log is read.
    reads.length = 0
    expect(yield* consolidatePending()).toEqual({ newNodes: 0, sessions: {} })
    expect(reads).toEqual([])
    // One session grows: only it is read, and its new message becomes a memory.
    yield* say("b", "My cat is called Tom", 3)
    const before = (yield* statements).length
    yield* consolidatePending()
    expect(reads).toEqual(["b"])
    expect((yield* statements).length).toBe(before + 1)
  })
