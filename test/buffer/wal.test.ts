import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Scope, TestClock } from "effect"
import { RawLogEntry } from "../../src/domain/Message.js"
import { ConfigFromValues } from "../../src/layers/ConfigLive.js"
import { SessionBufferLive } from "../../src/layers/SessionBufferLive.js"
import { SessionBuffer } from "../../src/services/SessionBuffer.js"
import { scopedTempDir } from "../support/cli.js"

const msg = (sessionId: string, index: number, content: string) =>
  new RawLogEntry({ timestamp: "2026-01-01T00:00:00.000Z", session_id: sessionId, role: "user", content, metadata: {}, index })

/** Builds a SessionBufferLive (one "process") in its own scope; closing the scope is the process ending. */
const open = (dir: string, overrides: Record<string, string> = {}) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    const ctx = yield* Layer.buildWithScope(SessionBufferLive.pipe(Layer.provide(ConfigFromValues(dir, overrides))), scope)
    yield* Effect.yieldNow() // let the flush fiber start its first sleep
    return { buffer: Context.get(ctx, SessionBuffer), close: Scope.close(scope, Exit.void) }
  })

/** Moves the test clock, then lets the woken flush fiber run. */
const advance = (d: Parameters<typeof TestClock.adjust>[0]) => TestClock.adjust(d).pipe(Effect.zipRight(Effect.yieldNow()))

const walFile = (dir: string, id: string) => path.join(dir, "wal", `${id}.wal`)
const readWal = (dir: string, id: string): Array<{ content: string; source_msg: number; type: string }> =>
  JSON.parse(fs.readFileSync(walFile(dir, id), "utf8"))

describe("SessionBufferLive WAL", () => {
  it.scoped("flushes on the interval only when changed, on demand when forced, and when the scope closes", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir()
      const { buffer, close } = yield* open(dir)
      yield* buffer.observe(msg("s", 0, "I prefer dark mode"))
      yield* advance("29 seconds")
      expect(fs.existsSync(walFile(dir, "s"))).toBe(false)
      yield* advance("1 second")
      expect(readWal(dir, "s")).toEqual([
        { type: "preference", content: "I prefer dark mode", timestamp: "2026-01-01T00:00:00.000Z", source_msg: 0, session_id: "s" }
      ])
      // Unchanged: the next tick skips the write (a re-indented file is left as it is)...
      const pretty = JSON.stringify(readWal(dir, "s"), null, 2)
      fs.writeFileSync(walFile(dir, "s"), pretty)
      yield* advance("30 seconds")
      expect(fs.readFileSync(walFile(dir, "s"), "utf8")).toBe(pretty)
      // ...and a forced flush writes even though nothing changed.
      yield* buffer.flush(true)
      expect(fs.readFileSync(walFile(dir, "s"), "utf8")).toBe(JSON.stringify(JSON.parse(pretty)))
      // A change after the last tick reaches the disk when the scope closes.
      yield* buffer.observe(msg("s", 1, "Never use tabs"))
      expect(readWal(dir, "s")).toHaveLength(1)
      yield* close
      expect(readWal(dir, "s").map((e) => e.content)).toEqual(["I prefer dark mode", "Never use tabs"])
    })
  )

  it.scoped("honours buffer_flush_interval", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir()
      const { buffer, close } = yield* open(dir, { buffer_flush_interval: "5" })
      yield* buffer.observe(msg("s", 0, "My name is Alice"))
      yield* advance("4 seconds")
      expect(fs.existsSync(walFile(dir, "s"))).toBe(false)
      yield* advance("1 second")
      expect(readWal(dir, "s").map((e) => e.content)).toEqual(["My name is Alice"])
      yield* close
    })
  )

  it.scoped("a new process recovers the buffer from the WAL; a read-only process writes nothing", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir()
      const first = yield* open(dir)
      yield* first.buffer.observe(msg("s", 0, "Actually, the port is 8080"))
      yield* first.buffer.observe(msg("s", 1, "what now?"))
      yield* first.close
      const before = fs.statSync(walFile(dir, "s")).mtimeMs
      const second = yield* open(dir)
      expect((yield* second.buffer.entries("s")).map((e) => [e.source_msg, e.type, e.content])).toEqual([
        [0, "correction", "Actually, the port is 8080"],
        [0, "fact", "the port is 8080"]
      ])
      expect((yield* second.buffer.search("s", "which port?")).map((h) => h.entry.content)).toEqual(["the port is 8080"])
      expect(yield* second.buffer.sessionsWithWal).toEqual(["s"])
      expect(yield* second.buffer.entries("never-seen")).toEqual([])
      yield* second.close
      expect(fs.statSync(walFile(dir, "s")).mtimeMs).toBe(before)
      expect(fs.readdirSync(path.join(dir, "wal")).filter((n) => n.endsWith(".wal"))).toEqual(["s.wal"])
    })
  )

  it.scoped("concurrent processes merge instead of overwriting each other's entries", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir()
      const a = yield* open(dir)
      const b = yield* open(dir)
      yield* a.buffer.observe(msg("s", 0, "I prefer tea"))
      yield* b.buffer.observe(msg("s", 1, "My name is Bob"))
      yield* a.close
      yield* b.close
      expect(readWal(dir, "s").map((e) => e.content)).toEqual(["I prefer tea", "My name is Bob"])
    })
  )

  it.scoped("removeWhere rewrites the WAL at once, and another process's later flush does not bring it back", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir()
      const seed = yield* open(dir)
      yield* seed.buffer.observe(msg("s", 0, "My token is alpha-123-secret"))
      yield* seed.buffer.observe(msg("s", 1, "I prefer tea"))
      yield* seed.close
      const other = yield* open(dir)
      expect(yield* other.buffer.entries("s")).toHaveLength(2) // loaded before the delete
      const deleter = yield* open(dir)
      expect(yield* deleter.buffer.removeWhere("s", (e) => e.content.includes("secret"))).toBe(1)
      expect(fs.readFileSync(walFile(dir, "s"), "utf8")).not.toContain("secret")
      yield* other.buffer.observe(msg("s", 2, "I need coffee"))
      yield* other.close
      yield* deleter.close
      expect(readWal(dir, "s").map((e) => e.content)).toEqual(["I prefer tea", "I need coffee"])
    })
  )

  it.scoped("replace makes the WAL exactly the given entries; clear deletes it", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir()
      const p = yield* open(dir)
      yield* p.buffer.observe(msg("s", 0, "I prefer tea"))
      yield* p.buffer.flush()
      yield* p.buffer.replace("s", [
        { type: "fact", content: "My name is Eve", timestamp: "2026-01-01T00:00:00.000Z", source_msg: 3, session_id: "s" }
      ])
      expect(readWal(dir, "s").map((e) => e.content)).toEqual(["My name is Eve"])
      yield* p.buffer.clear("s")
      expect(fs.existsSync(walFile(dir, "s"))).toBe(false)
      expect(yield* p.buffer.entries("s")).toEqual([])
      yield* p.close
      expect(fs.existsSync(walFile(dir, "s"))).toBe(false)
    })
  )

  it.scoped("a damaged WAL is ignored with a warning, then rewritten", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir()
      fs.mkdirSync(path.join(dir, "wal"), { recursive: true })
      fs.writeFileSync(walFile(dir, "s"), '[{"type":"fact","content":"My na')
      const p = yield* open(dir)
      expect(yield* p.buffer.entries("s")).toEqual([])
      yield* p.buffer.observe(msg("s", 5, "I work at Acme"))
      yield* p.close
      expect(readWal(dir, "s").map((e) => e.content)).toEqual(["I work at Acme"])
      // Damage after this process synced does not count as "someone deleted your entries".
      const q = yield* open(dir)
      yield* q.buffer.entries("s")
      fs.writeFileSync(walFile(dir, "s"), "[{")
      yield* q.buffer.observe(msg("s", 6, "I need coffee"))
      yield* q.close
      expect(readWal(dir, "s").map((e) => e.content)).toEqual(["I work at Acme", "I need coffee"])
    })
  )

  it.scoped("keeps long and path-escaping session ids inside wal/ and lists them back", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir()
      const ids = ["../../x", "/abs", "a\u0000b", "y".repeat(5000)]
      const p = yield* open(dir)
      for (const id of ids) yield* p.buffer.observe(msg(id, 0, "I prefer tea"))
      yield* p.close
      expect(fs.readdirSync(path.join(dir, "wal"))).toHaveLength(ids.length)
      const q = yield* open(dir)
      expect([...(yield* q.buffer.sessionsWithWal)].sort()).toEqual([...ids].sort())
      for (const id of ids) expect((yield* q.buffer.entries(id)).map((e) => e.session_id)).toEqual([id])
      yield* q.close
    })
  )

  it.scoped("the final flush also runs when the program using the buffer fails", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir()
      const program = Effect.gen(function* () {
        const buffer = yield* SessionBuffer
        yield* buffer.observe(msg("s", 0, "I live in Cape Town"))
        return yield* Effect.fail("boom" as const)
      }).pipe(Effect.provide(SessionBufferLive.pipe(Layer.provide(ConfigFromValues(dir)))))
      expect(yield* Effect.flip(program)).toBe("boom")
      expect(readWal(dir, "s").map((e) => e.content)).toEqual(["I live in Cape Town"])
    })
  )
})
