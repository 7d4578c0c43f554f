import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { vi } from "vitest"
import { ConfigFromValues } from "../../src/layers/ConfigLive.js"
import { RawLogLive } from "../../src/layers/RawLogLive.js"
import { FULL_LISTING_MS, RetrieverState } from "../../src/layers/retriever/service.js"
import { RawLog } from "../../src/services/RawLog.js"
import { Retriever } from "../../src/services/Retriever.js"
import { scopedTempDir } from "../support/cli.js"
import { countedRawLogRetriever } from "./support.js"

// A long-lived retriever (as in the hook or MCP server) over a file raw log whose calls are counted.
const warmLayer = (dir: string, calls: Array<string>, state?: RetrieverState) => countedRawLogRetriever(dir, calls, false, state)

const ask = (query: string) =>
  Effect.flatMap(Retriever, (r) => r.retrieve(query, { lexicalOnly: true })).pipe(Effect.map((rs) => rs.map((r) => r.content)))

describe("a warm retriever follows the raw log's change journal", () => {
  it.scoped("re-reads only the sessions written since its last query, and lists them all when the logs folder changed", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir("awhm-warm-")
      // Another process's raw log over the same data dir.
      const other = (sessionId: string, content: string) =>
        Effect.flatMap(RawLog, (log) => log.append({ sessionId, role: "user", content })).pipe(
          Effect.provide(RawLogLive.pipe(Layer.provide(ConfigFromValues(dir))))
        )
      yield* other("s1", "the pager rota is on the wiki")
      yield* other("s2", "the deploy freeze starts friday")
      const calls: Array<string> = []
      yield* Effect.gen(function* () {
        expect(yield* ask("pager rota")).toEqual(["the pager rota is on the wiki"])
        expect(calls.sort()).toEqual(["list", "read s1", "read s2"])
        calls.length = 0
        expect(yield* ask("deploy freeze")).toEqual(["the deploy freeze starts friday"])
        expect(calls).toEqual([]) // nothing changed: no listing, no stat, no read
        yield* other("s2", "the deploy freeze moved to monday")
        expect(yield* ask("freeze monday")).toEqual(["the deploy freeze moved to monday", "the deploy freeze starts friday"])
        // Only what was appended to s2 since it was read.
        expect(calls).toEqual(["stat s2", "read s2 since"])
        calls.length = 0
        // A log another program wrote (no journal line): the logs folder changed, so every session is listed.
        const line = { timestamp: "2026-01-01T00:00:00.000Z", session_id: "s3", role: "user", content: "the office wifi password rotates monthly", metadata: {}, index: 0 }
        fs.writeFileSync(path.join(dir, "logs", "s3.jsonl"), JSON.stringify(line) + "\n")
        expect(yield* ask("wifi password")).toEqual(["the office wifi password rotates monthly"])
        // (s1 and s2 are re-read too while their logs are as new as the clock's granularity: "racy").
        expect(calls.filter((c) => c === "list" || c === "read s3")).toEqual(["list", "read s3"])
      }).pipe(Effect.provide(warmLayer(dir, calls)))
    })
  )

  it.scoped("in a server (deferListing), a due listing of every log waits until the answer is out: the query reads what the journal names", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir("awhm-warm-")
      const other = (sessionId: string, content: string) =>
        Effect.flatMap(RawLog, (log) => log.append({ sessionId, role: "user", content })).pipe(
          Effect.provide(RawLogLive.pipe(Layer.provide(ConfigFromValues(dir))))
        )
      yield* other("s1", "the pager rota is on the wiki")
      yield* other("s2", "the deploy freeze starts friday")
      const calls: Array<string> = []
      const state = new RetrieverState(null, { k1: 1.5, b: 0.75 })
      state.deferListing = true
      const listings = (cs: ReadonlyArray<string>) => cs.filter((c) => c === "list" || c.startsWith("read s3"))
      yield* Effect.gen(function* () {
        // Nothing to follow yet: the first query lists every log itself.
        expect(yield* ask("pager rota")).toEqual(["the pager rota is on the wiki"])
        expect(calls.sort()).toEqual(["list", "read s1", "read s2"])
        calls.length = 0
        yield* state.listDeferred()
        expect(calls).toEqual([])
        // A log another program wrote (the logs folder changed) and a message written through awhm.
        const line = { timestamp: "2026-01-01T00:00:00.000Z", session_id: "s3", role: "user", content: "the office wifi password rotates monthly", metadata: {}, index: 0 }
        fs.writeFileSync(path.join(dir, "logs", "s3.jsonl"), JSON.stringify(line) + "\n")
        yield* other("s2", "the deploy freeze moved to monday")
        expect(yield* ask("freeze monday")).toEqual(["the deploy freeze moved to monday", "the deploy freeze starts friday"])
        expect(yield* ask("wifi password")).toEqual([])
        expect(listings(calls)).toEqual([])
        yield* state.listDeferred()
        expect(listings(calls)).toEqual(["list", "read s3"])
        calls.length = 0
        expect(yield* ask("wifi password")).toEqual(["the office wifi password rotates monthly"])
        yield* state.listDeferred()
        expect(listings(calls)).toEqual([])
        // Five minutes on: the query lists nothing, the listing after it does.
        vi.useFakeTimers({ toFake: ["Date"] })
        try {
          vi.setSystemTime(Date.now() + FULL_LISTING_MS + 1000)
          expect(yield* ask("pager rota")).toEqual(["the pager rota is on the wiki"])
          expect(listings(calls)).toEqual([])
          yield* state.listDeferred()
          // (s3 is read again too, from where the view stood in it: it was read within the clock's granularity of its write, "racy".)
          expect(listings(calls)).toEqual(["list", "read s3 since"])
          calls.length = 0
          expect(yield* ask("pager rota")).toEqual(["the pager rota is on the wiki"])
          yield* state.listDeferred()
          expect(listings(calls)).toEqual([])
        } finally {
          vi.useRealTimers()
        }
      }).pipe(Effect.provide(warmLayer(dir, calls, state)))
    })
  )

  it.scoped("reads only what was appended to a session awhm wrote to, and the whole log when it was rewritten or edited", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir("awhm-warm-")
      const viaAwhm = <A, E>(body: Effect.Effect<A, E, RawLog>) => body.pipe(Effect.provide(RawLogLive.pipe(Layer.provide(ConfigFromValues(dir)))))
      const other = (content: string) => viaAwhm(Effect.flatMap(RawLog, (log) => log.append({ sessionId: "s1", role: "user", content })))
      yield* other("the pager rota is on the wiki")
      yield* other("the deploy freeze starts friday")
      const calls: Array<string> = []
      const state = new RetrieverState(null, { k1: 1.5, b: 0.75 })
      const reads = () => calls.filter((c) => c.startsWith("read")).splice(0)
      yield* Effect.gen(function* () {
        expect(yield* ask("deploy freeze")).toEqual(["the deploy freeze starts friday"])
        expect(reads()).toEqual(["read s1"])
        calls.length = 0
        yield* other("the staging database is postgres")
        expect(yield* ask("staging database")).toEqual(["the staging database is postgres"])
        expect(calls.filter((c) => c.startsWith("read"))).toEqual(["read s1 since"])
        calls.length = 0
        // Another program edits the first line in place (same length), then awhm appends: the edit is before
        // where the view stood, so the whole log is read again.
        const file = path.join(dir, "logs", "s1.jsonl")
        fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("pager rota", "pizza menu"), { flag: "r+" })
        yield* other("the office wifi rotates monthly")
        expect(yield* ask("pizza menu")).toEqual(["the pizza menu is on the wiki"])
        expect(yield* ask("pager rota")).toEqual([])
        calls.length = 0
        // A removal through awhm replaces the file: read whole, the removed line gone.
        yield* viaAwhm(Effect.flatMap(RawLog, (log) => log.removeEntries("s1", new Set([2]))))
        expect(yield* ask("staging database")).toEqual([])
        expect(calls.filter((c) => c.startsWith("read"))).toEqual(["read s1"])
        calls.length = 0
        // A line still being written is taken once it is whole.
        fs.appendFileSync(file, '{"timestamp":"2026-01-01T00:00:00.000Z","session_id":"s1","role":"user","content":"the lunch ')
        yield* viaAwhm(Effect.sync(() => {}))
        expect(yield* ask("wifi rotates")).toEqual(["the office wifi rotates monthly"])
        fs.appendFileSync(file, 'order is due at noon","metadata":{},"index":9}\n')
        yield* other("the build takes ten minutes")
        expect(yield* ask("lunch order noon")).toEqual(["the lunch order is due at noon"])
        expect(yield* ask("build minutes")).toEqual(["the build takes ten minutes"])
      }).pipe(Effect.provide(warmLayer(dir, calls, state)))
    })
  )
})
