import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { ConfigFromValues } from "../../src/layers/ConfigLive.js"
import { RawLogLive } from "../../src/layers/RawLogLive.js"
import { RawLog } from "../../src/services/RawLog.js"
import { Retriever } from "../../src/services/Retriever.js"
import { scopedTempDir } from "../support/cli.js"
import { countedRawLogRetriever } from "./support.js"

// A long-lived retriever (as in the hook or MCP server) over a file raw log whose calls are counted.
const warmLayer = (dir: string, calls: Array<string>) => countedRawLogRetriever(dir, calls, false)

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
})
