import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { shortQuery } from "../../src/cli/queryArgv.js"
import { makeTempDir, runAwhm } from "../support/cli.js"

const argv = (...args: Array<string>) => ["node", "awhm", ...args]

describe("awhm query's short path (no @effect/cli): which command lines it answers", () => {
  it("reads a question and --lexical-only, --json, --include-history, --trace, -k N in any order", () => {
    expect(shortQuery(argv("query", "What did Caroline research?", "--lexical-only"))).toEqual({
      text: "What did Caroline research?",
      k: undefined,
      lexicalOnly: true,
      json: false,
      includeHistory: false,
      trace: false
    })
    expect(shortQuery(argv("query", "--json", "-k", "3", "port 8080", "--trace", "--include-history"))).toEqual({
      text: "port 8080",
      k: 3,
      lexicalOnly: false,
      json: true,
      includeHistory: true,
      trace: true
    })
  })

  it("leaves every other form to the full CLI (help, other flags, bad or doubtful values, no question or two)", () => {
    const full = [
      argv("query"),
      argv("status"),
      argv("query", "--help"),
      argv("query", "x", "-h"),
      argv("query", "x", "--version"),
      argv("query", "x", "--data-dir", "/tmp/d"),
      argv("query", "x", "--session", "s1"),
      argv("query", "x", "--as-of", "2024-01-01"),
      argv("query", "x", "--postgres-url", "postgres://h/db"),
      argv("query", "x", "--log-level", "debug"),
      argv("query", "--", "-x"),
      argv("query", "-x"),
      argv("query", "--bogus"),
      argv("query", "x", "--json=true"),
      argv("query", "x", "--json", "--json"),
      argv("query", "x", "-k"),
      argv("query", "x", "-k", "0"),
      argv("query", "x", "-k", "02"),
      argv("query", "x", "-k", "2", "-k", "3"),
      argv("query", "x", "-k", "1.5"),
      argv("query", "a", "b"),
      argv("query", ""),
      argv("query", "  "),
      argv("query", "--lexical-only", "true"),
      argv("query", "No", "--json")
    ]
    for (const a of full) expect([a, shortQuery(a)]).toEqual([a, null])
  })
})

describe("awhm query: the short path answers as the full CLI does", () => {
  let tmp: ReturnType<typeof makeTempDir>
  beforeAll(async () => {
    tmp = makeTempDir("awhm-queryshort-")
    for (const text of ["The billing service uses PostgreSQL on port 5432", "Alice deploys billing on Fridays", "The search service runs on port 9200"]) {
      const r = await runAwhm(["log", "--session", "s1", "--role", "user", text], { dataDir: tmp.dir })
      expect(r.code).toBe(0)
    }
  })
  afterAll(() => tmp.cleanup())

  // `--data-dir` sends a query through @effect/cli; the same dir given by AWHM_DATA_DIR takes the short path.
  const both = async (args: Array<string>, env: Record<string, string> = {}) => {
    const short = await runAwhm(["query", ...args], { dataDir: tmp.dir, env })
    const full = await runAwhm(["query", ...args, "--data-dir", tmp.dir], { dataDir: tmp.dir, env })
    return { short, full }
  }

  it("the same results, human and --json, and the same -k", async () => {
    const human = await both(["billing port", "--lexical-only"])
    expect(human.short).toEqual(human.full)
    expect(human.short.code).toBe(0)
    expect(human.short.stdout).toContain("PostgreSQL on port 5432")
    const json = await both(["--json", "-k", "1", "port", "--lexical-only"])
    expect(json.short).toEqual(json.full)
    expect(JSON.parse(json.short.stdout).results).toHaveLength(1)
  })

  it("the same one-line errors and exit codes", async () => {
    const tooLong = await both(["x".repeat(101), "--lexical-only"], { AWHM_MAX_MESSAGE_CHARS: "100" })
    expect(tooLong.short).toEqual({ code: 2, stdout: "", stderr: "awhm: the query has 101 characters, more than max_message_chars (100)\n" })
    expect(tooLong.full).toEqual(tooLong.short)
    const badConfig = await both(["port", "--json"], { AWHM_K: "abc" })
    expect(badConfig.short).toEqual({ code: 2, stdout: "", stderr: 'awhm: invalid configuration: k: Expected an integer value but received "abc"\n' })
    expect(badConfig.full).toEqual(badConfig.short)
  })
})
