import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { RawLogEntry } from "../../src/domain/Message.js"
import { RawLogView } from "../../src/layers/retriever/RawLogView.js"
import { FileImage } from "../../src/search/binaryImage.js"

const WORDS = [
  "adoption", "agencies", "pottery", "camping", "sunrise", "painting", "research", "mountains", "kids", "class",
  "guitar", "festival", "library", "marathon", "garden", "puppy", "lake", "museum", "recipe", "volunteer"
]

// A fixed pseudo-random text per message (words repeat, so term counts above one occur).
const textOf = (seed: number): string => {
  let x = seed * 2654435761 + 1
  const out: Array<string> = []
  for (let i = 0; i < 4 + (seed % 7); i++) {
    x = (x * 1103515245 + 12345) % 2147483648
    out.push(WORDS[x % WORDS.length]!)
  }
  return `${out.join(" ")} note${seed % 97}, and it was the one that we had been to with them all`
}

const entries = (sessionId: string, from: number, n: number, salt = 0) =>
  Array.from({ length: n }, (_, i) =>
    RawLogEntry.make({
      timestamp: `2026-01-${String(1 + ((from + i) % 28)).padStart(2, "0")}T03:04:05.000Z`,
      session_id: sessionId,
      role: i % 2 === 0 ? "user" : "assistant",
      content: textOf(from + i + salt),
      metadata: i % 3 === 0 ? { speaker: "Caroline" } : {},
      index: i
    })
  )

const SESSIONS = 40
const PER = 20
const build = () => {
  const view = new RawLogView()
  for (let s = 0; s < SESSIONS; s++) view.syncSession(`s${s}`, entries(`s${s}`, s * PER, PER), { mtimeMs: 1000 + s, readAt: 100_000 })
  return view
}

const QUERIES = ["adoption agencies research", "pottery class kids", "camping mountains sunrise", "note5 guitar", "museum", "unheard words"]

const dirs: Array<string> = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

/** The view saved to a file, then read back whole (from its bytes) and where asked (from the file). */
const restoredBoth = (original: RawLogView) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "awhm-lazy-"))
  dirs.push(dir)
  const bytes = original.toBinary("copy")
  const file = path.join(dir, "rawlog.bin")
  fs.writeFileSync(file, bytes)
  const full = new RawLogView()
  expect(full.restore(bytes)).toBe(true)
  const image = new FileImage(fs.openSync(file, "r"))
  const lazy = new RawLogView()
  expect(lazy.restoreFile(image)).toBe(true)
  return { full, lazy, image, size: bytes.length }
}

// Results a query ranks from: hits with their scores, and each hit's stored form and neighbours.
const answers = (view: RawLogView, query: string) =>
  view.lexical
    .search(query, 25, (key) => (view.docs.get(key)?.timestamp ?? "") <= "2026-01-20")
    .map((h) => ({ ...h, doc: view.docs.get(h.key) }))

describe("a saved raw-log view read where asked", () => {
  it("answers every query exactly as the view read whole (same keys, order, scores and messages), reading a small part of the file", () => {
    const original = build()
    const { full, lazy, image, size } = restoredBoth(original)
    // Opening reads the layout, the sessions, the offsets of messages, keys and terms, lengths and counts.
    expect(image.bytesRead).toBeLessThan(size / 4)
    for (const q of QUERIES) {
      const expected = answers(original, q)
      expect(answers(full, q)).toEqual(expected)
      expect(answers(lazy, q)).toEqual(expected)
    }
    expect(answers(lazy, "adoption agencies research").length).toBe(25)
    expect(answers(lazy, "unheard words")).toEqual([])
    expect(lazy.docs.size).toBe(SESSIONS * PER)
    expect([...lazy.sessions]).toEqual([...full.sessions])
    expect(lazy.keysOf("s3")).toEqual(full.keysOf("s3"))
    // Six queries read their terms' postings and the messages they looked at, not the other stored forms.
    expect(image.bytesRead).toBeLessThan(size / 2)
    lazy.close()
    expect(() => lazy.lexical.search("note7", 5)).toThrow("image file read after close")
  })

  it("takes changed, new and gone sessions like the view read whole, and saves the same bytes", () => {
    const { full, lazy } = restoredBoth(build())
    for (const view of [full, lazy]) {
      // s1: one message changed and one more; s2 gone; s3 shorter (a removal); a new session.
      view.syncSession("s1", [...entries("s1", PER, PER - 1), ...entries("s1", 999, 2).map((e, i) => RawLogEntry.make({ ...e, index: PER - 1 + i }))], { mtimeMs: 5000, readAt: 200_000 })
      view.dropSession("s2")
      view.syncSession("s3", entries("s3", 3 * PER, PER - 5), { mtimeMs: 5001, readAt: 200_000 })
      view.syncSession("new", entries("new", 7, 6, 3), { mtimeMs: 5002, readAt: 200_000 })
    }
    for (const q of QUERIES) expect(answers(lazy, q)).toEqual(answers(full, q))
    expect(lazy.docs.size).toBe(SESSIONS * PER - PER + 1 - 5 + 6)
    expect(Buffer.from(lazy.toBinary("again")).equals(Buffer.from(full.toBinary("again")))).toBe(true)
    const again = new RawLogView()
    expect(again.restore(lazy.toBinary("again"))).toBe(true)
    for (const q of QUERIES) expect(answers(again, q)).toEqual(answers(full, q))
  })

  it("refuses a file cut short or of other bytes, and leaves the view empty", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "awhm-lazy-"))
    dirs.push(dir)
    const bytes = build().toBinary("copy")
    for (const [name, data] of [["cut", bytes.subarray(0, bytes.length - 8)], ["other", Buffer.alloc(64, 7)]] as const) {
      const file = path.join(dir, name)
      fs.writeFileSync(file, data)
      const image = new FileImage(fs.openSync(file, "r"))
      const view = new RawLogView()
      expect(view.restoreFile(image)).toBe(false)
      expect(view.docs.size).toBe(0)
      image.close()
    }
  })
})
