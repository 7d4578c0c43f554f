import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { ConfigFromValues } from "../../src/layers/ConfigLive.js"
import { RawLogMemory } from "../../src/layers/RawLogMemory.js"
import { parsePayload } from "../../src/hooks/payload.js"
import { stopHook } from "../../src/hooks/stop.js"
import { RawLog } from "../../src/services/RawLog.js"
import { scopedTempDir } from "../support/cli.js"

const layer = (dataDir: string, overrides: Record<string, string> = {}) =>
  Layer.merge(RawLogMemory, ConfigFromValues(dataDir, overrides))

const stop = (json: object) => parsePayload(JSON.stringify(json)).pipe(Effect.flatMap((p) => stopHook(p!)))

describe("stop hook", () => {
  it.scoped("logs the assistant's reply once, with the project scope, even when fired twice", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir()
      yield* Effect.gen(function* () {
        const payload = { session_id: "s1", cwd: "/work/proj", last_assistant_message: " The port is 8080. " }
        expect(yield* stop(payload)).toBe(true)
        expect(yield* stop(payload)).toBe(false)
        const log = yield* (yield* RawLog).read("claude-s1")
        expect(log.map((e) => [e.index, e.role, e.content, e.metadata])).toEqual([
          [0, "assistant", "The port is 8080.", { scope: "/work/proj" }]
        ])
        // A different reply, then the first one again, is two new messages.
        expect(yield* stop({ ...payload, last_assistant_message: "Other" })).toBe(true)
        expect(yield* stop(payload)).toBe(true)
        expect((yield* (yield* RawLog).read("claude-s1")).length).toBe(3)
      }).pipe(Effect.provide(layer(dir)))
    }))

  it.scoped("logs without a scope in global mode, and does nothing without a message", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir()
      yield* Effect.gen(function* () {
        expect(yield* stop({ session_id: "s2", cwd: "/p" })).toBe(false)
        expect(yield* stop({ session_id: "s2", cwd: "/p", last_assistant_message: "   " })).toBe(false)
        expect(yield* stop({ session_id: "s2", cwd: "/p", last_assistant_message: "Hi" })).toBe(true)
        const log = yield* (yield* RawLog).read("claude-s2")
        expect(log.map((e) => e.metadata)).toEqual([{}])
      }).pipe(Effect.provide(layer(dir, { scope_mode: "global" })))
    }))
})
