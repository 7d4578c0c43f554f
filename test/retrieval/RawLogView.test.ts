import { describe, expect, it } from "vitest"
import { RawLogEntry } from "../../src/domain/Message.js"
import { RawLogView } from "../../src/layers/retriever/RawLogView.js"

const entries = (sessionId: string, n: number) =>
  Array.from({ length: n }, (_, i) =>
    RawLogEntry.make({ timestamp: "2026-01-02T03:04:05.000Z", session_id: sessionId, role: "user", content: `note ${i}`, metadata: {}, index: i })
  )

describe("RawLogView session marks", () => {
  it("a session read right after it was written is re-read until a save records it settled", () => {
    const view = new RawLogView()
    view.syncSession("s", entries("s", 3), { mtimeMs: 1_000_000, readAt: 1_000_500 })
    expect(view.isStale("s", 1_000_000)).toBe(true) // written within the clock's granularity of the read
    view.unsaved = { indexed: 0, removed: false }
    // Re-read later, unchanged: nothing to index, but saving spares every later process this re-read.
    view.syncSession("s", entries("s", 3), { mtimeMs: 1_000_000, readAt: 1_060_000 })
    expect(view.isStale("s", 1_000_000)).toBe(false)
    expect(view.unsaved).toEqual({ indexed: 3, removed: false })
    // A session still being written stays racy and counts nothing beyond its new message.
    view.unsaved = { indexed: 0, removed: false }
    view.syncSession("s", entries("s", 4), { mtimeMs: 1_070_000, readAt: 1_070_100 })
    view.syncSession("s", entries("s", 4), { mtimeMs: 1_070_000, readAt: 1_070_900 })
    expect(view.unsaved).toEqual({ indexed: 1, removed: false })
  })
})
