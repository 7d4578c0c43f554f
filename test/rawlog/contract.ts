import { describe, expect, it } from "@effect/vitest"
import { Effect, type Scope } from "effect"
import type { StorageError } from "../../src/domain/errors.js"
import type { RawLogShape } from "../../src/services/RawLog.js"

/** Opens a fresh, empty raw log. */
export type OpenRawLog = () => Effect.Effect<RawLogShape, StorageError, Scope.Scope>

/** The behaviour every RawLog layer shares. */
export const rawLogContract = (name: string, open: OpenRawLog) =>
  describe(`RawLog contract: ${name}`, () => {
    it.scopedLive("<private> spans are never stored; a message that is nothing else is refused, storing nothing", () =>
      Effect.gen(function* () {
        const log = yield* open()
        const kept = yield* log.append({ sessionId: "p", role: "user", content: "The vault code is <private>4411</private> on file" })
        expect(kept.content).toBe("The vault code is on file")
        const refused = yield* Effect.flip(log.append({ sessionId: "p", role: "user", content: "<private>4411</private>" }))
        expect([refused._tag, refused.message]).toEqual(["InvalidInput", "the message is all <private> text: nothing was logged"])
        expect((yield* log.read("p")).map((e) => [e.index, e.content])).toEqual([[0, "The vault code is on file"]])
      })
    )

    it.scopedLive("appends numbered messages per session and reads them back in order", () =>
      Effect.gen(function* () {
        const log = yield* open()
        const a = yield* log.append({ sessionId: "s1", role: "user", content: "I prefer Python", timestamp: "2026-03-01" })
        const b = yield* log.append({ sessionId: "s1", role: "assistant", content: "Noted.", metadata: { tool: "x", n: [1, 2] } })
        const c = yield* log.append({ sessionId: "s2", role: "tool_result", content: "ok" })
        expect([a.index, b.index, c.index]).toEqual([0, 1, 0])
        expect(a.timestamp).toBe("2026-03-01T00:00:00.000Z")
        expect((yield* log.read("s1")).map((e) => [e.index, e.session_id, e.role, e.content, e.metadata, e.timestamp])).toEqual([
          [0, "s1", "user", "I prefer Python", {}, "2026-03-01T00:00:00.000Z"],
          [1, "s1", "assistant", "Noted.", { tool: "x", n: [1, 2] }, b.timestamp]
        ])
        expect(yield* log.read("nobody")).toEqual([])
        expect(yield* log.read("")).toEqual([])
        expect(yield* log.stats).toEqual({ sessions: 2, messages: 3 })
        expect((yield* log.sessions).map((s) => s.sessionId).sort()).toEqual(["s1", "s2"])
      })
    )

    it.scopedLive("rejects an empty session id and a bad timestamp with InvalidInput, storing nothing", () =>
      Effect.gen(function* () {
        const log = yield* open()
        expect((yield* Effect.flip(log.append({ sessionId: "", role: "user", content: "x" })))._tag).toBe("InvalidInput")
        const bad = yield* Effect.flip(log.append({ sessionId: "s", role: "user", content: "x", timestamp: "yesterday" }))
        expect(bad._tag).toBe("InvalidInput")
        expect(bad.message).toBe("invalid timestamp 'yesterday': expected an ISO date such as 2026-03-01T10:00:00Z")
        expect(yield* log.stats).toEqual({ sessions: 0, messages: 0 })
      })
    )

    it.scopedLive("keeps odd session ids and text apart and intact", () =>
      Effect.gen(function* () {
        const log = yield* open()
        const ids = ["../../x", "/abs", "x/".repeat(2500), "日本語 session", "..", "it's; DROP TABLE messages"]
        for (const id of ids) yield* log.append({ sessionId: id, role: "user", content: `hello ${id.length} \u0000 "quoted" \\ done` })
        for (const id of ids) {
          expect((yield* log.read(id)).map((e) => [e.session_id, e.content])).toEqual([[id, `hello ${id.length} \u0000 "quoted" \\ done`]])
        }
        expect([...(yield* log.sessions).map((s) => s.sessionId)].sort()).toEqual([...ids].sort())
      })
    )

    it.scopedLive("removeEntries removes exactly those indices and never hands a removed index out again", () =>
      Effect.gen(function* () {
        const log = yield* open()
        for (const c of ["a", "secret-b", "c", "secret-d"]) yield* log.append({ sessionId: "d", role: "user", content: c })
        expect(yield* log.removeEntries("d", new Set([1, 3]))).toBe(2)
        expect(yield* log.removeEntries("d", new Set([1]))).toBe(0)
        expect(yield* log.removeEntries("nobody", new Set([0]))).toBe(0)
        expect((yield* log.read("d")).map((e) => [e.index, e.content])).toEqual([
          [0, "a"],
          [2, "c"]
        ])
        expect((yield* log.append({ sessionId: "d", role: "user", content: "e" })).index).toBe(4)
        expect(yield* log.removeEntries("d", new Set([0, 2, 4]))).toBe(3)
        expect((yield* log.append({ sessionId: "d", role: "user", content: "f" })).index).toBe(5)
        expect((yield* log.sessions).map((s) => s.sessionId)).toEqual(["d"])
        expect(yield* log.stats).toEqual({ sessions: 1, messages: 1 })
      })
    )

    it.scopedLive("lists sessions oldest change first", () =>
      Effect.gen(function* () {
        const log = yield* open()
        for (const id of ["first", "second", "third"]) {
          yield* log.append({ sessionId: id, role: "user", content: id })
          yield* Effect.sleep("5 millis")
        }
        yield* log.append({ sessionId: "first", role: "user", content: "again" })
        expect((yield* log.sessions).map((s) => s.sessionId)).toEqual(["second", "third", "first"])
      })
    )

    it.scopedLive("copyIn adds what a session lacks with its own indices, keeps what it holds, and raises the next index", () =>
      Effect.gen(function* () {
        const source = yield* open()
        for (const text of ["one", "two", "three", "four"]) yield* source.append({ sessionId: "c", role: "user", content: text, timestamp: "2026-03-01" })
        yield* source.removeEntries("c", new Set([1, 3]))
        expect(yield* source.nextIndex("c")).toBe(4)
        expect(yield* source.nextIndex("nobody")).toBe(0)

        const target = yield* open()
        yield* target.append({ sessionId: "c", role: "assistant", content: "already here", timestamp: "2026-02-01" })
        const copy = { sessionId: "c", entries: yield* source.read("c"), nextIndex: yield* source.nextIndex("c"), modifiedAtMs: Date.UTC(2026, 2, 1) }
        expect(yield* target.copyIn(copy)).toBe(1)
        expect((yield* target.read("c")).map((e) => [e.index, e.role, e.content, e.session_id])).toEqual([
          [0, "assistant", "already here", "c"],
          [2, "user", "three", "c"]
        ])
        expect(yield* target.copyIn(copy)).toBe(0)
        expect(yield* target.nextIndex("c")).toBe(4)
        expect((yield* target.append({ sessionId: "c", role: "user", content: "five" })).index).toBe(4)
        expect(yield* target.stats).toEqual({ sessions: 1, messages: 3 })
      })
    )

    it.scopedLive("concurrent appends get unique, gap-free indices", () =>
      Effect.gen(function* () {
        const log = yield* open()
        const made = yield* Effect.all(
          Array.from({ length: 40 }, (_, i) => log.append({ sessionId: "fibers", role: "user", content: `m${i}` })),
          { concurrency: "unbounded" }
        )
        expect(made.map((e) => e.index).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i))
        const read = yield* log.read("fibers")
        expect(read.map((e) => e.index)).toEqual(Array.from({ length: 40 }, (_, i) => i))
        expect(new Set(read.map((e) => e.content)).size).toBe(40)
      })
    )
  })
