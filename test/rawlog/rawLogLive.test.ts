import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Logger } from "effect"
import { ConfigFromValues } from "../../src/layers/ConfigLive.js"
import { RawLogLive } from "../../src/layers/RawLogLive.js"
import { RawLog } from "../../src/services/RawLog.js"
import { listFiles, scopedTempDir } from "../support/cli.js"

const live = (dir: string) => RawLogLive.pipe(Layer.provide(ConfigFromValues(dir)))

/** Runs `f` with a RawLogLive over a fresh temp data dir, capturing warnings. */
const withLog = <A, E>(f: (log: typeof RawLog.Service, dir: string, warnings: Array<string>) => Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const dir = yield* scopedTempDir()
    const warnings: Array<string> = []
    const capture = Logger.make(({ logLevel, message }) => {
      if (logLevel._tag === "Warning") warnings.push(String(Array.isArray(message) ? message.join(" ") : message))
    })
    return yield* Effect.flatMap(RawLog, (log) => f(log, dir, warnings)).pipe(
      Effect.provide(Layer.merge(live(dir), Logger.replace(Logger.defaultLogger, capture)))
    )
  })

describe("RawLogLive", () => {
  it.scoped("appends numbered JSONL lines and reads them back", () =>
    withLog((log, dir) =>
      Effect.gen(function* () {
        const a = yield* log.append({ sessionId: "s1", role: "user", content: "I prefer Python", timestamp: "2026-03-01" })
        const b = yield* log.append({ sessionId: "s1", role: "assistant", content: "Noted.", metadata: { tool: "x" } })
        yield* log.append({ sessionId: "s2", role: "tool_result", content: "ok" })
        expect([a.index, b.index]).toEqual([0, 1])
        expect(a.timestamp).toBe("2026-03-01T00:00:00.000Z")
        expect(b.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
        const lines = fs.readFileSync(path.join(dir, "logs", "s1.jsonl"), "utf8").split("\n")
        expect(lines).toHaveLength(3)
        expect(JSON.parse(lines[0]!)).toEqual({
          timestamp: "2026-03-01T00:00:00.000Z",
          session_id: "s1",
          role: "user",
          content: "I prefer Python",
          metadata: {},
          index: 0
        })
        const read = yield* log.read("s1")
        expect(read.map((e) => [e.index, e.role, e.content, e.metadata])).toEqual([
          [0, "user", "I prefer Python", {}],
          [1, "assistant", "Noted.", { tool: "x" }]
        ])
        expect(yield* log.read("nobody")).toEqual([])
        expect(yield* log.stats).toEqual({ sessions: 2, messages: 3 })
      })
    )
  )

  it.scoped("rejects an empty session id and a bad timestamp with InvalidInput, writing nothing", () =>
    withLog((log, dir) =>
      Effect.gen(function* () {
        const empty = yield* Effect.flip(log.append({ sessionId: "", role: "user", content: "x" }))
        expect(empty._tag).toBe("InvalidInput")
        const bad = yield* Effect.flip(log.append({ sessionId: "s", role: "user", content: "x", timestamp: "yesterday" }))
        expect(bad._tag).toBe("InvalidInput")
        expect(bad.message).toBe("invalid timestamp 'yesterday': expected an ISO date such as 2026-03-01T10:00:00Z")
        expect(listFiles(dir)).toEqual([])
      })
    )
  )

  it.scoped("keeps path-escaping session ids inside logs/ and round-trips them", () =>
    withLog((log, dir) =>
      Effect.gen(function* () {
        const long = "x/".repeat(2500)
        const ids = ["../../x", "/abs", "a\u0000b", long, "日本語 session", ".."]
        for (const id of ids) yield* log.append({ sessionId: id, role: "user", content: `hello ${id.length}` })
        const files = listFiles(dir).filter((f) => f !== path.join("meta", "log-changes")) // the change journal (session ids)
        expect(files.filter((f) => !f.startsWith("locks" + path.sep))).toHaveLength(ids.length)
        for (const f of files) {
          expect(f.startsWith("logs" + path.sep) || f.startsWith("locks" + path.sep)).toBe(true)
          expect(f.split(path.sep)).toHaveLength(2) // directly inside logs/ (or locks/), never deeper or outside
        }
        expect(fs.readdirSync(path.dirname(dir)).filter((n) => n === "x" || n === "abs")).toEqual([])
        for (const id of ids) {
          const entries = yield* log.read(id)
          expect(entries.map((e) => [e.session_id, e.content])).toEqual([[id, `hello ${id.length}`]])
        }
        const listed = (yield* log.sessions).map((s) => s.sessionId)
        expect([...listed].sort()).toEqual([...ids].sort())
      })
    )
  )

  it.scoped("skips a torn last line with a warning, keeps the lines before it, and appends on a fresh line", () =>
    withLog((log, dir, warnings) =>
      Effect.gen(function* () {
        yield* log.append({ sessionId: "t", role: "user", content: "first" })
        yield* log.append({ sessionId: "t", role: "user", content: "second" })
        const file = path.join(dir, "logs", "t.jsonl")
        fs.appendFileSync(file, '{"timestamp":"2026-01-01T00:00:00.000Z","session_id":"t","role":"user","content":"thi')
        const read = yield* log.read("t")
        expect(read.map((e) => e.content)).toEqual(["first", "second"])
        expect(warnings).toHaveLength(1)
        expect(warnings[0]).toContain("skipped 1 damaged line(s) (line 3)")
        expect(warnings[0]).not.toContain("thi")
        const next = yield* log.append({ sessionId: "t", role: "user", content: "third" })
        expect(next.index).toBe(2)
        expect((yield* log.read("t")).map((e) => [e.index, e.content])).toEqual([
          [0, "first"],
          [1, "second"],
          [2, "third"]
        ])
        expect(yield* log.stats).toEqual({ sessions: 1, messages: 3 })
      })
    )
  )

  it.scoped("finds the next index from the tail of a big log, even past a line longer than the tail window", () =>
    withLog((log) =>
      Effect.gen(function* () {
        const big = "word ".repeat(16_000) // 80 kB: more than the 64 kB tail window, within max_message_chars
        for (let i = 0; i < 3; i++) yield* log.append({ sessionId: "big", role: "user", content: big })
        const next = yield* log.append({ sessionId: "big", role: "user", content: "small" })
        expect(next.index).toBe(3)
        expect((yield* log.read("big")).map((e) => e.index)).toEqual([0, 1, 2, 3])
      })
    )
  )

  it.scoped("continues the numbering of a reference-format log (lines without index)", () =>
    withLog((log, dir) =>
      Effect.gen(function* () {
        fs.mkdirSync(path.join(dir, "logs"), { recursive: true })
        const line = (c: string) =>
          JSON.stringify({ timestamp: "2026-01-01T00:00:00", session_id: "ref", role: "user", content: c, metadata: {} }) + "\n"
        fs.writeFileSync(path.join(dir, "logs", "ref.jsonl"), line("a") + line("b"))
        const e = yield* log.append({ sessionId: "ref", role: "user", content: "c" })
        expect(e.index).toBe(2)
        expect((yield* log.read("ref")).map((x) => [x.index, x.content])).toEqual([
          [0, "a"],
          [1, "b"],
          [2, "c"]
        ])
      })
    )
  )

  it.scoped("removeEntries rewrites the log keeping other indices and never reuses a removed index", () =>
    withLog((log, dir) =>
      Effect.gen(function* () {
        for (const c of ["a", "secret-b", "c", "secret-d"]) yield* log.append({ sessionId: "d", role: "user", content: c })
        expect(yield* log.removeEntries("d", new Set([1, 3]))).toBe(2)
        expect(yield* log.removeEntries("d", new Set([1]))).toBe(0)
        expect((yield* log.read("d")).map((e) => [e.index, e.content])).toEqual([
          [0, "a"],
          [2, "c"]
        ])
        expect(fs.readFileSync(path.join(dir, "logs", "d.jsonl"), "utf8")).not.toContain("secret")
        const next = yield* log.append({ sessionId: "d", role: "user", content: "e" })
        expect(next.index).toBe(4)
        expect((yield* log.sessions).map((s) => s.sessionId)).toEqual(["d"])
        expect(yield* log.stats).toEqual({ sessions: 1, messages: 3 })
      })
    )
  )

  it.scoped("lists sessions oldest modification first", () =>
    withLog((log, dir) =>
      Effect.gen(function* () {
        for (const id of ["new", "old", "mid"]) yield* log.append({ sessionId: id, role: "user", content: id })
        const at = (id: string, s: number) => fs.utimesSync(path.join(dir, "logs", `${id}.jsonl`), s, s)
        at("old", 1_000_000)
        at("mid", 2_000_000)
        at("new", 3_000_000)
        expect((yield* log.sessions).map((s) => [s.sessionId, s.mtimeMs])).toEqual([
          ["old", 1_000_000_000],
          ["mid", 2_000_000_000],
          ["new", 3_000_000_000]
        ])
      })
    )
  )

  it.scoped("concurrent appends from fibers of one process get unique, gap-free indices", () =>
    withLog((log) =>
      Effect.gen(function* () {
        const made = yield* Effect.all(
          Array.from({ length: 40 }, (_, i) => log.append({ sessionId: "fibers", role: "user", content: `m${i}` })),
          { concurrency: "unbounded" }
        )
        expect(made.map((e) => e.index).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i))
        expect((yield* log.read("fibers")).map((e) => e.index)).toEqual(Array.from({ length: 40 }, (_, i) => i))
      })
    )
  )
})
