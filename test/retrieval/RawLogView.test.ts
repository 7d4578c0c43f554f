import { describe, expect, it } from "vitest"
import { RawLogEntry } from "../../src/domain/Message.js"
import { RawLogView } from "../../src/layers/retriever/RawLogView.js"
import { SavedSessions, SessionMarks } from "../../src/layers/retriever/sessionMarks.js"
import { memorySource, packSections, sourceLayout } from "../../src/search/binaryImage.js"

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

describe("RawLogView saved copy", () => {
  const build = () => {
    const view = new RawLogView()
    view.syncSession("a", entries("a", 3), { mtimeMs: 1, readAt: 10_000 })
    view.syncSession("b", entries("b", 2), { mtimeMs: 2, readAt: 10_000 })
    return view
  }
  const summary = (view: RawLogView) =>
    [...view.sessions.keys()].flatMap((sid) =>
      view.keysOf(sid).map((key) => {
        const d = view.docs.get(key)!
        return `${d.sessionId}/${d.index} ${d.content} <${d.prev?.replace("\u0000", "/") ?? "-"} >${d.next?.replace("\u0000", "/") ?? "-"}`
      })
    )

  it("a restored view serves every message, its neighbours and searches as the view it was saved from", () => {
    const original = build()
    const copy = new RawLogView()
    expect(copy.restore(original.toBinary())).toBe(true)
    expect(summary(copy)).toEqual([
      "a/0 note 0 <- >a/1", "a/1 note 1 <a/0 >a/2", "a/2 note 2 <a/1 >-", "b/0 note 0 <- >b/1", "b/1 note 1 <b/0 >-"
    ])
    expect(copy.docs.size).toBe(5)
    expect(copy.docs.has("b\u00001")).toBe(true)
    expect(copy.docs.has("b\u00002")).toBe(false)
    expect(copy.docs.get("c\u00000")).toBeUndefined()
    expect(copy.lexical.search("note", 10)).toEqual(original.lexical.search("note", 10))
    expect(copy.missingVectors("m").map((d) => d.key).sort()).toEqual([...original.docs.keys()].sort())
    expect(copy.isStale("a", 1)).toBe(false)
    expect(new RawLogView().restore(new Uint8Array([1, 2, 3, 4]))).toBe(false)
    expect(copy.restore(original.toBinary())).toBe(false) // not empty any more
  })

  it("a restored view takes a grown session, a gone one and a new one, and saves them all again", () => {
    const copy = new RawLogView()
    copy.restore(build().toBinary())
    const grown = [...entries("a", 3), RawLogEntry.make({ ...entries("a", 4)[3]!, content: "pager rota moved" })]
    expect(copy.syncSession("a", grown, { mtimeMs: 5, readAt: 20_000 })).toBe(true)
    copy.dropSession("b")
    copy.syncSession("c", entries("c", 1), { mtimeMs: 6, readAt: 20_000 })
    const expected = ["a/0 note 0 <- >a/1", "a/1 note 1 <a/0 >a/2", "a/2 note 2 <a/1 >a/3", "a/3 pager rota moved <a/2 >-", "c/0 note 0 <- >-"]
    expect(summary(copy)).toEqual(expected)
    expect(copy.lexical.search("note", 10).map((h) => h.key.replace("\u0000", "/"))).toEqual(["a/0", "a/1", "a/2", "c/0"])
    expect(copy.docs.has("b\u00000")).toBe(false)
    const again = new RawLogView()
    expect(again.restore(copy.toBinary())).toBe(true)
    expect(summary(again)).toEqual(expected)
    expect(again.lexical.search("pager", 10).map((h) => h.key.replace("\u0000", "/"))).toEqual(["a/3"])
  })
})

describe("SessionMarks", () => {
  it("reads a saved copy's sessions as the Map it was saved from, and keeps a Map's order through sets and deletes", () => {
    const rows = ["s3", "s1", "s10", "s2"].map((sid, i) => [sid, { mtimeMs: 1.5 + i, readAt: 100 + i }, i] as const)
    const [ids, times, counts] = SavedSessions.encode(rows)
    const image = packSections(1, [ids, times, counts])
    const source = memorySource(image)
    const layout = sourceLayout(source, 0, 1, 3)!
    const saved = SavedSessions.decode(source, layout.starts, layout.lengths)!
    expect(saved.messages).toBe(6)
    expect([saved.firstAt(2), saved.countAt(2)]).toEqual([1, 2])
    const marks = new SessionMarks(saved)
    const map = new Map(rows.map(([sid, mark]) => [sid, mark]))
    const same = () => {
      expect([...marks]).toEqual([...map])
      expect(marks.size).toBe(map.size)
      for (const sid of ["s1", "s2", "s3", "s10", "s4", "s9"]) {
        expect(marks.get(sid)).toEqual(map.get(sid))
        expect(marks.has(sid)).toBe(map.has(sid))
      }
    }
    same()
    const ops: Array<[string, number | null]> = [["s1", 7], ["s4", 8], ["s3", null], ["s9", null], ["s3", 9], ["s4", null], ["s2", 10], ["s4", 11], ["s3", null]]
    for (const [sid, v] of ops) {
      if (v === null) expect(marks.delete(sid)).toBe(map.delete(sid))
      else {
        marks.set(sid, { mtimeMs: v, readAt: v })
        map.set(sid, { mtimeMs: v, readAt: v })
      }
      same()
    }
    expect([...marks.keys()]).toEqual(["s1", "s10", "s2", "s4"])
  })

  it("finds every session of a large copy by id, and none it does not hold, past the lookups after which it maps them all", () => {
    // 3,000 sessions in an order that is not sorted, with ids of several lengths and a non-ASCII one.
    const sids = Array.from({ length: 3000 }, (_, i) => (i === 7 ? "sessión-7" : `s${(i * 7919) % 3000}-${"x".repeat(i % 5)}`))
    const rows = sids.map((sid, i) => [sid, { mtimeMs: i, readAt: 10_000 + i }, 1] as const)
    const [ids, times, counts] = SavedSessions.encode(rows)
    const source = memorySource(packSections(1, [ids, times, counts]))
    const layout = sourceLayout(source, 0, 1, 3)!
    const saved = SavedSessions.decode(source, layout.starts, layout.lengths)!
    const marks = new SessionMarks(saved)
    // Every id, twice over (a listing, then a query), an unknown id between each.
    for (let round = 0; round < 2; round++) {
      sids.forEach((sid, i) => {
        expect(saved.indexOf(sid)).toBe(i)
        expect(marks.get(sid)).toEqual({ mtimeMs: i, readAt: 10_000 + i })
        expect(saved.indexOf(`${sid}?`)).toBe(-1)
      })
    }
    expect(marks.get("sessión-7")).toEqual({ mtimeMs: 7, readAt: 10_007 })
    expect(marks.has("s1")).toBe(false)
  })
})
