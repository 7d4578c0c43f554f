import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeTempDir, runAwhm } from "../support/cli.js"

describe("awhm query", () => {
  const tmp = makeTempDir("awhm-query-")
  const dataDir = tmp.dir
  const run = (...args: Array<string>) => runAwhm(args, { dataDir })

  beforeAll(async () => {
    for (const [session, text, ts] of [
      ["s1", "My preferred language is Python", "2026-01-05T10:00:00Z"],
      ["s2", "Actually, my preferred language is Rust", "2026-02-05T10:00:00Z"],
      ["s2", "the staging host is db-7", "2026-02-05T10:01:00Z"]
    ] as const) {
      const r = await run("log", "--session", session, "--role", "user", "--timestamp", ts, text)
      expect(r.code).toBe(0)
    }
    expect((await run("consolidate")).code).toBe(0)
  })
  afterAll(() => tmp.cleanup())

  it("--json prints {results:[Result]} with provenance; the superseded value is not current", async () => {
    const r = await run("query", "what is my preferred language?", "--json", "-k", "3")
    expect(r.code).toBe(0)
    const { results } = JSON.parse(r.stdout) as { results: Array<Record<string, unknown>> }
    expect(results[0]).toMatchObject({
      content: "Actually, my preferred language is Rust",
      source: "graph",
      status: "active",
      canonicalKey: "fact:my preferred language",
      validFrom: "2026-02-05T10:00:00.000Z",
      validTo: null,
      sourceRefs: [{ sessionId: "s2", messageIndex: 0 }]
    })
    expect(results.every((x) => !String(x.content).includes("Python"))).toBe(true)
    expect(results.every((x) => Array.isArray(x.sourceRefs) && (x.sourceRefs as Array<unknown>).length > 0)).toBe(true)
    expect(results.every((x) => x.trace === undefined)).toBe(true)
    // The raw-log index (and where it stood in each log), the messages' embeddings and the graph's vectors are kept for the next process.
    expect(fs.readdirSync(path.join(dataDir, "index")).sort()).toEqual(["graph-vectors.bin", "rawlog-positions", "rawlog-vectors.bin", "rawlog.bin"])
  })

  it("--as-of answers with what was true then; --include-history --trace shows both with features", async () => {
    const then = JSON.parse((await run("query", "preferred language", "--json", "--as-of", "2026-01-20")).stdout) as {
      results: Array<{ content: string; source: string }>
    }
    expect(then.results.filter((x) => x.source === "graph").map((x) => x.content)).toEqual(["My preferred language is Python"])
    const history = JSON.parse((await run("query", "preferred language", "--json", "--include-history", "--trace", "--lexical-only")).stdout) as {
      results: Array<{ content: string; status?: string; trace?: Record<string, number> }>
    }
    expect(history.results.map((x) => [x.content, x.status])).toEqual([
      ["Actually, my preferred language is Rust", "active"],
      ["My preferred language is Python", "superseded"]
    ])
    expect(Object.keys(history.results[0]!.trace!).sort()).toEqual(
      ["association", "confidence", "lexicalScore", "semanticSim", "statusBonus", "strength"]
    )
  })

  it("human output numbers the results; a bad --as-of exits 2 with one line", async () => {
    const human = await run("query", "staging host", "-k", "1")
    expect(human.code).toBe(0)
    expect(human.stdout).toMatch(/^1\. \[(graph|raw_log)\] \(score: \d\.\d{3}\) .*db-7\n$/)
    const bad = await run("query", "staging host", "--as-of", "last tuesday")
    expect(bad.code).toBe(2)
    expect(bad.stdout).toBe("")
    expect(bad.stderr.trim().split("\n")).toEqual([
      "awhm: invalid --as-of 'last tuesday': expected an ISO date such as 2026-03-01 or 2026-03-01T10:00:00Z"
    ])
  })
})
