import * as fs from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { ConfigFromValues } from "../../src/layers/ConfigLive.js"
import { EmbedderMock } from "../../src/layers/EmbedderMock.js"
import { GraphStoreMemory } from "../../src/layers/GraphStoreMemory.js"
import { RawLogLive } from "../../src/layers/RawLogLive.js"
import { RawLogMemory } from "../../src/layers/RawLogMemory.js"
import { Stage2Mock } from "../../src/layers/Stage2Mock.js"
import { consolidatePending } from "../../src/programs/consolidate.js"
import { dataPaths } from "../../src/store/paths.js"
import { RawLog } from "../../src/services/RawLog.js"
import { tempDir } from "../support/graphFixtures.js"
import { at, readsOnlyChangedLogs, say, withStores } from "./support.js"

/** The in-memory raw log, recording which sessions' logs were read. */
const countingRawLog = () => {
  const reads: Array<string> = []
  const layer = Layer.effect(
    RawLog,
    Effect.map(Effect.provide(RawLog, RawLogMemory), (log) =>
      RawLog.of({ ...log, read: (sid) => Effect.zipRight(Effect.sync(() => reads.push(sid)), log.read(sid)) })
    )
  )
  return { layer, reads }
}

describe("finding pending sessions", () => {
  it.scoped("a run reads only the logs that changed since they were consolidated", () => {
    const { layer, reads } = countingRawLog()
    return withStores(
      (dir) =>
        Effect.gen(function* () {
          yield* readsOnlyChangedLogs(reads)
          // Progress moved back (a restore that lacks b's memories): b is read again, whatever the hint says.
          reads.length = 0
          const file = dataPaths(dir).progress
          const progress = JSON.parse(fs.readFileSync(file, "utf8")) as { sessions: Record<string, { last_msg_index: number }> }
          progress.sessions["b"]!.last_msg_index = 0
          fs.writeFileSync(file, JSON.stringify(progress))
          yield* consolidatePending()
          expect(reads).toEqual(["b"])
          // A lost or damaged hint file only costs reading every log once.
          reads.length = 0
          fs.writeFileSync(dataPaths(dir).consolidatedLogs, "{")
          yield* consolidatePending()
          expect(reads.sort()).toEqual(["a", "b", "c"])
          reads.length = 0
          yield* consolidatePending()
          expect(reads).toEqual([])
        }),
      { rawLog: layer }
    )
  })

  it.scoped("a removed message changes the log: it is read again", () => {
    const { layer, reads } = countingRawLog()
    return withStores(
      () =>
        Effect.gen(function* () {
          yield* say("a", "My favourite colour is green", 0)
          yield* say("a", "I live in Lisbon", 1)
          yield* consolidatePending()
          reads.length = 0
          yield* Effect.flatMap(RawLog, (log) => log.removeEntries("a", new Set([1])))
          yield* consolidatePending()
          expect(reads).toEqual(["a"])
        }),
      { rawLog: layer }
    )
  })
})

describe("a full run on the file raw log", () => {
  /** The file raw log of `dir`, recording every full listing and which sessions' logs were read. */
  const countingLiveLog = (dir: string) => {
    const seen = { listings: 0, reads: [] as Array<string> }
    const layer = Layer.effect(
      RawLog,
      Effect.map(Effect.provide(RawLog, RawLogLive.pipe(Layer.provide(ConfigFromValues(dir)))), (log) =>
        RawLog.of({
          ...log,
          sessions: Effect.zipRight(Effect.sync(() => seen.listings++), log.sessions),
          read: (sid) => Effect.zipRight(Effect.sync(() => seen.reads.push(sid)), log.read(sid))
        })
      )
    )
    return { layer, seen }
  }

  it.scoped("lists every log only when the change journal cannot say which changed, or an hour after the last listing", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("awhm-consolidate-")
      const { layer, seen } = countingLiveLog(dir)
      const run = (sessionsNow: () => void = () => {}) =>
        Effect.gen(function* () {
          seen.reads.length = 0
          sessionsNow()
          const report = yield* consolidatePending()
          return [seen.listings, [...seen.reads].sort(), Object.keys(report.sessions).sort()]
        })
      const backdateListing = () => {
        const file = dataPaths(dir).consolidatedLogs
        const hint = JSON.parse(fs.readFileSync(file, "utf8")) as { listing: { listedAt: number } }
        hint.listing.listedAt -= 2 * 60 * 60_000
        fs.writeFileSync(file, JSON.stringify(hint))
      }
      yield* Effect.gen(function* () {
        yield* say("a", "My favourite colour is green", 0)
        yield* say("b", "I live in Lisbon", 1)
        yield* say("c", "My dog is called Rex", 2)
        expect(yield* run()).toEqual([1, ["a", "b", "c"], ["a", "b", "c"]])
        yield* say("b", "My sister is called Ana", 3)
        expect(yield* run()).toEqual([1, ["b"], ["b"]])
        expect(yield* run()).toEqual([1, [], []])
        // Progress moved back for c (a restore without c's memories): c is read again, still without a listing.
        const file = dataPaths(dir).progress
        const progress = JSON.parse(fs.readFileSync(file, "utf8")) as { sessions: Record<string, unknown> }
        delete progress.sessions["c"]
        fs.writeFileSync(file, JSON.stringify(progress))
        expect(yield* run()).toEqual([1, ["c"], ["c"]])
        // Another program appends to a's log in place: the journal does not know, the hourly listing does.
        const line = { timestamp: at(4), session_id: "a", role: "user", content: "I work at Stripe as an engineer", metadata: {}, index: 1 }
        fs.appendFileSync(dataPaths(dir).logFile("a"), JSON.stringify(line) + "\n")
        expect(yield* run()).toEqual([1, [], []])
        expect(yield* run(backdateListing)).toEqual([2, ["a"], ["a"]])
        // A log another program put in the folder: listed at once.
        const other = { timestamp: at(5), session_id: "d", role: "user", content: "My favourite food is ramen", metadata: {}, index: 0 }
        fs.writeFileSync(dataPaths(dir).logFile("d"), JSON.stringify(other) + "\n")
        expect(yield* run()).toEqual([3, ["d"], ["d"]])
        expect(yield* run()).toEqual([3, [], []])
      }).pipe(Effect.provide(Layer.mergeAll(layer, GraphStoreMemory, EmbedderMock, Stage2Mock([]), ConfigFromValues(dir, {}))))
    })
  )
})
