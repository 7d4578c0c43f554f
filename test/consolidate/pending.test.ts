import * as fs from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { RawLogMemory } from "../../src/layers/RawLogMemory.js"
import { consolidatePending } from "../../src/programs/consolidate.js"
import { dataPaths } from "../../src/store/paths.js"
import { RawLog } from "../../src/services/RawLog.js"
import { readsOnlyChangedLogs, say, withStores } from "./support.js"

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
