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
        expect(calls).toEqual(["stat s2", "read s2"])
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
      const listings = (cs: ReadonlyArray<string>) => cs.filter((c) => c === "list" || c === "read s3")
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
          // (s3 is read again too: it was read within the clock's granularity of its write, "racy".)
          expect(listings(calls)).toEqual(["list", "read s3"])
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
})
