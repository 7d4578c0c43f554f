import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { parseProgress, readProgress, renderProgress, writeProgress } from "../../src/store/progress.js"
import { tempDir } from "../support/graphFixtures.js"

const T = "2026-03-01T10:00:00.000Z"

describe("progress file", () => {
  it("reads and writes the reference's v2 format", () => {
    const text = '{"version":2,"sessions":{"s1":{"last_msg_index":4,"updated_at":"2026-02-01T00:00:00.000Z"}}}'
    const parsed = Either.getOrThrow(parseProgress(text, T))
    expect([...parsed]).toEqual([["s1", { lastMsgIndex: 4, updatedAt: "2026-02-01T00:00:00.000Z" }]])
    expect(JSON.parse(renderProgress(parsed))).toEqual(JSON.parse(text))
  })

  it("migrates both v1 forms: a list of finished sessions, and session → index", () => {
    expect([...Either.getOrThrow(parseProgress('{"sessions":["a","b"]}', T))]).toEqual([
      ["a", { lastMsgIndex: null, updatedAt: T }],
      ["b", { lastMsgIndex: null, updatedAt: T }]
    ])
    expect([...Either.getOrThrow(parseProgress('{"a":3}', T))]).toEqual([["a", { lastMsgIndex: 3, updatedAt: T }]])
  })

  it.scoped("a missing file is no progress; a damaged one is CorruptFile naming it; writes are whole files", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      const file = path.join(dir, "meta", "consolidated_sessions.json")
      expect((yield* readProgress(file, T)).size).toBe(0)
      yield* writeProgress(file, new Map([["s/1", { lastMsgIndex: 2, updatedAt: T }]]))
      expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual({
        version: 2,
        sessions: { "s/1": { last_msg_index: 2, updated_at: T } }
      })
      expect(fs.readdirSync(path.dirname(file))).toEqual(["consolidated_sessions.json"])
      fs.writeFileSync(file, '{"version":2,"sessions":')
      const error = yield* Effect.flip(readProgress(file, T))
      expect(error._tag).toBe("CorruptFile")
      expect(error.message).toContain(file)
    })
  )

  it.scoped("a read after any change sees it: its own write, another writer's same-size rewrite in place, a symlink put there", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      const file = path.join(dir, "meta", "consolidated_sessions.json")
      yield* writeProgress(file, new Map([["a", { lastMsgIndex: 2, updatedAt: T }], ["v1", { lastMsgIndex: null, updatedAt: T }]]))
      expect([...(yield* readProgress(file, T))]).toEqual([["a", { lastMsgIndex: 2, updatedAt: T }]])
      expect([...(yield* readProgress(file, T))]).toEqual([["a", { lastMsgIndex: 2, updatedAt: T }]])
      const text = fs.readFileSync(file, "utf8")
      fs.writeFileSync(file, text.replace('"last_msg_index": 2', '"last_msg_index": 7'))
      expect(fs.readFileSync(file, "utf8").length).toBe(text.length)
      expect([...(yield* readProgress(file, T))]).toEqual([["a", { lastMsgIndex: 7, updatedAt: T }]])
      const elsewhere = path.join(dir, "other.json")
      fs.renameSync(file, elsewhere)
      fs.symlinkSync(elsewhere, file)
      expect((yield* Effect.flip(readProgress(file, T)))._tag).toBe("StorageError")
    })
  )
})
