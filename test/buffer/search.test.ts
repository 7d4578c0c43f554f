import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { BufferEntry } from "../../src/domain/BufferEntry.js"
import { RawLogEntry, type Role } from "../../src/domain/Message.js"
import { SessionBufferMemory } from "../../src/layers/SessionBufferMemory.js"
import { currentEntries, searchEntries } from "../../src/search/bufferSearch.js"
import { SessionBuffer } from "../../src/services/SessionBuffer.js"

const msg = (index: number, content: string, role: Role = "user", timestamp = `2026-01-01T00:00:${String(index).padStart(2, "0")}.000Z`) =>
  new RawLogEntry({ timestamp, session_id: "s", role, content, metadata: {}, index })

/** Observes the messages (index = position) and returns the buffer. */
const fill = (messages: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const buffer = yield* SessionBuffer
    for (const [i, m] of messages.entries()) yield* buffer.observe(msg(i, m))
    return buffer
  })

const contents = (hits: ReadonlyArray<{ readonly entry: BufferEntry }>) => hits.map((h) => h.entry.content)

describe("buffer search", () => {
  it.effect("finds entries for natural questions, not only whole-query substrings", () =>
    Effect.gen(function* () {
      const buffer = yield* fill(["I prefer Python over JavaScript", "The server runs on port 9000", "That worked, thanks!"])
      const hits = yield* buffer.search("s", "What language does the user prefer?")
      expect(contents(hits)).toEqual(["I prefer Python over JavaScript"])
      expect(hits[0]!.relevance).toBe(1)
      expect(contents(yield* buffer.search("s", "python"))).toEqual(["I prefer Python over JavaScript"])
      expect(contents(yield* buffer.search("s", "which port does the server run on?"))).toEqual(["The server runs on port 9000"])
      // No shared content word, no hit (stopwords alone never match).
      expect(yield* buffer.search("s", "What is the weather today?")).toEqual([])
      expect(yield* buffer.search("s", "what is it?")).toEqual([])
      expect(yield* buffer.search("other-session", "python")).toEqual([])
    }).pipe(Effect.provide(SessionBufferMemory))
  )

  it.effect("ranks by relevance normalised to the best hit", () =>
    Effect.gen(function* () {
      const buffer = yield* fill(["My editor is vim", "I like to use vim with the vim keybindings in vim mode", "My shell is zsh"])
      const hits = yield* buffer.search("s", "vim editor")
      expect(contents(hits)).toEqual(["My editor is vim", "I like to use vim with the vim keybindings in vim mode"])
      expect(hits[0]!.relevance).toBe(1)
      expect(hits[1]!.relevance).toBeGreaterThan(0)
      expect(hits[1]!.relevance).toBeLessThan(1)
    }).pipe(Effect.provide(SessionBufferMemory))
  )

  it.effect("correction wins: a later same-slot statement hides the earlier one unless includeHistory", () =>
    Effect.gen(function* () {
      const buffer = yield* fill([
        "My preferred language is Python",
        "hello",
        "Actually, my preferred language is Rust"
      ])
      expect(contents(yield* buffer.search("s", "What is my preferred language?"))).toEqual([
        "my preferred language is Rust"
      ])
      expect(contents(yield* buffer.search("s", "What is my preferred language?", { includeHistory: true }))).toEqual([
        // equal term matches: the shorter statements rank first (BM25 length normalisation)
        "My preferred language is Python",
        "my preferred language is Rust",
        "Actually, my preferred language is Rust"
      ])
      // A query that only names the old value does not bring the stale statement back.
      expect(yield* buffer.search("s", "python")).toEqual([])
    }).pipe(Effect.provide(SessionBufferMemory))
  )

  it.effect("as_of sees only entries at or before that moment, and what was current then", () =>
    Effect.gen(function* () {
      const buffer = yield* fill(["My city is San Francisco", "x", "x", "x", "Actually, my city is New York"])
      expect(contents(yield* buffer.search("s", "what is my city?", { asOf: "2026-01-01T00:00:03.000Z" }))).toEqual([
        "My city is San Francisco"
      ])
      expect(contents(yield* buffer.search("s", "what is my city?", { asOf: "2026-01-01T00:00:04.000Z" }))).toEqual([
        "my city is New York"
      ])
      expect(yield* buffer.search("s", "what is my city?", { asOf: "2025-12-31T23:59:59.000Z" })).toEqual([])
    }).pipe(Effect.provide(SessionBufferMemory))
  )
})

const entry = (source_msg: number, type: BufferEntry["type"], content: string): BufferEntry => ({
  type,
  content,
  timestamp: "2026-01-01T00:00:00.000Z",
  source_msg,
  session_id: "s"
})

describe("correction-wins rule (currentEntries)", () => {
  it("a preference correction within the window hides a different-value preference", () => {
    const old = entry(0, "preference", "I prefer Python")
    const fix = entry(3, "correction", "Actually, I prefer Rust")
    const pref = entry(3, "preference", "I prefer Rust")
    // The correction and its own preference share the key preference:rust: the later one (same message) stands.
    expect(currentEntries([old, fix, pref], 3)).toEqual([pref])
  })

  it("the same correction outside the window leaves both preferences", () => {
    const old = entry(0, "preference", "I prefer Python")
    const fix = entry(4, "correction", "Actually, I prefer Rust")
    expect(currentEntries([old, fix], 3)).toEqual([old, fix])
    expect(currentEntries([old, fix], 4)).toEqual([fix])
  })

  it("a plain (non-correction) different preference never hides the old one", () => {
    const old = entry(0, "preference", "I prefer Python")
    const other = entry(1, "preference", "I prefer Rust")
    expect(currentEntries([old, other], 3)).toEqual([old, other])
  })

  it("the same key hides at any distance, including within one message (distance 0)", () => {
    const a = entry(0, "fact", "My name is Alice")
    const b = entry(50, "fact", "My name is Bob")
    expect(currentEntries([b, a], 3)).toEqual([b])
    const fix = entry(7, "correction", "Actually, the port is 8080")
    const fact = entry(7, "fact", "the port is 8080")
    expect(currentEntries([fix, fact], 3)).toEqual([fact])
  })

  it("facts with different keys and policies of another family never cross", () => {
    const policy = entry(0, "preference", "Always use tabs")
    const fix = entry(1, "correction", "Actually, I prefer spaces")
    const fact = entry(2, "fact", "Actually, the host is db2")
    expect(currentEntries([policy, fix, fact], 3)).toEqual([policy, fix, fact])
  })

  it("searchEntries ignores entries newer than asOf when deciding what was current", () => {
    const a = entry(0, "fact", "My name is Alice")
    const b = { ...entry(1, "fact", "My name is Bob"), timestamp: "2026-02-01T00:00:00.000Z" }
    expect(searchEntries([a, b], "name", { correctionWindow: 3, asOf: "2026-01-15T00:00:00.000Z" }).map((h) => h.entry)).toEqual([a])
    expect(searchEntries([a, b], "name", { correctionWindow: 3 }).map((h) => h.entry)).toEqual([b])
  })
})
