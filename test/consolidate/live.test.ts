import * as fs from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { ConfigFromValues } from "../../src/layers/ConfigLive.js"
import { EmbedderMock } from "../../src/layers/EmbedderMock.js"
import { GraphStoreSqlite } from "../../src/layers/GraphStoreSqlite.js"
import { RawLogLive } from "../../src/layers/RawLogLive.js"
import { Stage2Mock } from "../../src/layers/Stage2Mock.js"
import { dataPaths } from "../../src/store/paths.js"
import { consolidatePending } from "../../src/programs/consolidate.js"
import { GraphStore } from "../../src/services/GraphStore.js"
import { tempDir } from "../support/graphFixtures.js"
import { at, say } from "./support.js"

/** The live stack on a data directory: JSONL raw log, SQLite graph, mock embedder (a fresh "process" each time). */
const live = (dir: string) => {
  const config = ConfigFromValues(dir)
  return Layer.mergeAll(RawLogLive, GraphStoreSqlite, EmbedderMock, Stage2Mock([])).pipe(Layer.provideMerge(config))
}

describe("consolidation on the live file and SQLite layers", () => {
  it.scoped("commits to memory_graph.sqlite, records progress on disk, and a second process adds nothing", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("awhm-consolidate-live-")
      const first = yield* Effect.gen(function* () {
        yield* say("baseline", "My preferred language is Python", 0)
        yield* say("corrections", "Actually, my preferred language is Rust", 5)
        return yield* consolidatePending()
      }).pipe(Effect.provide(live(dir)))
      expect(first).toEqual({ newNodes: 2, sessions: { baseline: 1, corrections: 1 } })
      expect(fs.existsSync(dataPaths(dir).graphSqlite)).toBe(true)
      const progress = JSON.parse(fs.readFileSync(dataPaths(dir).progress, "utf8"))
      expect(Object.keys(progress.sessions)).toEqual(["baseline", "corrections"])

      const { again, nodes } = yield* Effect.gen(function* () {
        const again = yield* consolidatePending()
        const graph = yield* (yield* GraphStore).load()
        return { again, nodes: [...graph.nodes.values()] }
      }).pipe(Effect.provide(live(dir)))
      expect(again).toEqual({ newNodes: 0, sessions: {} })
      const byStatus = [...nodes].sort((a, b) => a.validFrom!.localeCompare(b.validFrom!)).map((n) => [n.content, n.status, n.validFrom, n.validTo, n.embedModel, n.embedding?.length])
      expect(byStatus).toEqual([
        ["My preferred language is Python", "superseded", at(0), at(5), "mock-hash-384", 384],
        ["Actually, my preferred language is Rust", "active", at(5), null, "mock-hash-384", 384]
      ])
    })
  )
})
