import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { RawLogMemory } from "../../src/layers/RawLogMemory.js"
import { RawLog } from "../../src/services/RawLog.js"

describe("RawLogMemory", () => {
  it.effect("numbers, reads, removes and lists like the live log", () =>
    Effect.gen(function* () {
      const log = yield* RawLog
      for (const c of ["a", "b", "c"]) yield* log.append({ sessionId: "m", role: "user", content: c, timestamp: "2026-02-01T10:00:00Z" })
      yield* log.append({ sessionId: "n", role: "assistant", content: "z" })
      expect((yield* log.read("m")).map((e) => [e.index, e.content, e.timestamp])).toEqual([
        [0, "a", "2026-02-01T10:00:00.000Z"],
        [1, "b", "2026-02-01T10:00:00.000Z"],
        [2, "c", "2026-02-01T10:00:00.000Z"]
      ])
      expect(yield* log.removeEntries("m", new Set([2]))).toBe(1)
      expect((yield* log.append({ sessionId: "m", role: "user", content: "d" })).index).toBe(3)
      expect((yield* log.sessions).map((s) => s.sessionId)).toEqual(["n", "m"])
      expect(yield* log.stats).toEqual({ sessions: 2, messages: 4 })
      expect((yield* Effect.flip(log.append({ sessionId: "", role: "user", content: "x" })))._tag).toBe("InvalidInput")
      expect((yield* Effect.flip(log.append({ sessionId: "m", role: "user", content: "x", timestamp: "2026-13-45" })))._tag).toBe(
        "InvalidInput"
      )
    }).pipe(Effect.provide(RawLogMemory))
  )
})
