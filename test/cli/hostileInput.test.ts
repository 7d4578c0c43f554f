import * as fs from "node:fs"
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { dataPaths } from "../../src/store/paths.js"
import { makeTempDir, ROOT, runAwhm } from "../support/cli.js"

// Hostile or careless input: huge messages, terminal escapes, typos in config.json, malformed environment
// values and empty messages. Each gets the promised outcome, at once, with one line.

const cleanups: Array<() => void> = []
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c()
})
const tempDir = () => {
  const t = makeTempDir("awhm-hostile-")
  cleanups.push(t.cleanup)
  return t.dir
}

const TWENTY_MB = 20 * 1024 * 1024
const ESCAPES = "\x1b]0;PWNED\x07\x1b[2J"

const logLines = (dir: string, session: string) =>
  fs.existsSync(dataPaths(dir).logFile(session))
    ? fs.readFileSync(dataPaths(dir).logFile(session), "utf8").trim().split("\n").map((l) => JSON.parse(l) as { content: string })
    : []

describe("max_message_chars", () => {
  it("the CLI refuses a longer message with one line and exit 2, and stores nothing; the limit is configurable", async () => {
    const dir = tempDir()
    const long = "a".repeat(100_001)
    const r = await runAwhm(["log", "--session", "s", "--role", "user", long], { dataDir: dir })
    expect(r).toEqual({
      code: 2,
      stdout: "",
      stderr: "awhm: the message has 100001 characters, more than max_message_chars (100000); split it or raise the limit\n"
    })
    expect(logLines(dir, "s")).toEqual([])
    expect((await runAwhm(["log", "--session", "s", "--role", "user", "a".repeat(100_000)], { dataDir: dir })).code).toBe(0)
    const lower = await runAwhm(["log", "--session", "s", "--role", "user", "twelve chars"], { dataDir: dir, env: { AWHM_MAX_MESSAGE_CHARS: "5" } })
    expect(lower.stderr).toBe("awhm: the message has 12 characters, more than max_message_chars (5); split it or raise the limit\n")
    // The limit counts what is stored: private spans are cut out first.
    const secret = `<private>${"s".repeat(100_001)}</private>`
    expect((await runAwhm(["log", "--session", "p", "--role", "user", `Hi ${secret}`], { dataDir: dir })).code).toBe(0)
    expect(logLines(dir, "p").map((l) => l.content)).toEqual(["Hi"])
    expect(await runAwhm(["log", "--session", "p", "--role", "user", secret], { dataDir: dir })).toEqual({
      code: 2,
      stdout: "",
      stderr: "awhm: the message is all <private> text: nothing was logged\n"
    })
    const query = await runAwhm(["query", "b".repeat(100_001)], { dataDir: dir })
    expect(query).toEqual({ code: 2, stdout: "", stderr: "awhm: the query has 100001 characters, more than max_message_chars (100000)\n" })
  })

  it("a 20 MB prompt hook is stored cut with a note and still answers (exit 0)", async () => {
    const dir = tempDir()
    const prompt = "Remember this: " + "x".repeat(TWENTY_MB)
    const r = await runAwhm(["hook", "prompt"], {
      dataDir: dir,
      input: JSON.stringify({ session_id: "big", cwd: "/p", hook_event_name: "UserPromptSubmit", prompt })
    })
    expect(r).toEqual({ code: 0, stdout: "", stderr: "" })
    const [stored] = logLines(dir, "claude-big")
    const note = `\n[awhm: cut to max_message_chars; ${prompt.length} characters in all]`
    expect(stored!.content.length).toBe(100_000)
    expect(stored!.content).toBe(prompt.slice(0, 100_000 - note.length) + note)
  })

  describe("through MCP", () => {
    const dir = makeTempDir("awhm-hostile-mcp-")
    let client: Client

    beforeAll(async () => {
      const env: Record<string, string> = {}
      for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("AWHM_")) env[k] = v
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [path.join(ROOT, "dist", "awhm-mcp.mjs")],
        env: { ...env, AWHM_DATA_DIR: dir.dir, AWHM_EMBEDDER: "mock" },
        stderr: "pipe"
      })
      client = new Client({ name: "awhm-test", version: "1.0.0" })
      await client.connect(transport)
    })
    afterAll(async () => {
      await client?.close()
      dir.cleanup()
    })

    // A bound on each answer: before stdin was read in whole lines, a 20 MB request held the server for minutes.
    const call = async (name: string, args: Record<string, unknown>) => {
      const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 15_000 })
      return { isError: r.isError === true, text: (r.content as Array<{ text: string }>).map((c) => c.text).join("\n") }
    }

    it("a memory_log over max_message_chars is a tool error, and the server keeps answering", async () => {
      const BIG = 200_000
      const r = await call("memory_log", { role: "user", content: "y".repeat(BIG) })
      expect(r).toEqual({
        isError: true,
        text: `the message has ${BIG} characters, more than max_message_chars (100000); split it or raise the limit`
      })
      const q = await call("memory_query", { query: "z".repeat(BIG) })
      expect(q).toEqual({ isError: true, text: `the query has ${BIG} characters, more than max_message_chars (100000)` })
      expect((await call("memory_log", { role: "user", content: "I prefer tea" })).isError).toBe(false)
    })

    it("a 20 MB memory_log is a tool error at once, and the next request is answered", async () => {
      const r = await call("memory_log", { role: "user", content: "y".repeat(TWENTY_MB) })
      expect(r).toEqual({
        isError: true,
        text: `the message has ${TWENTY_MB} characters, more than max_message_chars (100000); split it or raise the limit`
      })
      // Multi-byte characters across the pipe's chunks arrive whole.
      const long = "é".repeat(TWENTY_MB / 2)
      expect(await call("memory_log", { role: "user", content: long })).toEqual({
        isError: true,
        text: `the message has ${TWENTY_MB / 2} characters, more than max_message_chars (100000); split it or raise the limit`
      })
      expect(await call("memory_log", { role: "user", content: "Our build runner is called Quokkamatic" })).toMatchObject({ isError: false })
      const q = await call("memory_query", { query: "Quokkamatic" })
      expect(q).toEqual({ isError: false, text: "1. [buffer] (score: 1.000) Our build runner is called Quokkamatic" })
    })

    it("an empty or blank memory_log is a tool error", async () => {
      for (const content of ["", "   \n "]) {
        expect(await call("memory_log", { role: "user", content })).toEqual({
          isError: true,
          text: "Invalid content: it must not be empty."
        })
      }
    })
  })
})

describe("terminal escapes in human output", () => {
  it("content and session ids are printed with their control characters escaped; --json keeps them exact", async () => {
    const dir = tempDir()
    const session = "evil\nsession"
    const text = `I prefer tea ${ESCAPES} done`
    expect((await runAwhm(["log", "--session", session, "--role", "user", text], { dataDir: dir })).stdout).toBe(
      "logged message 0 in session evil\\nsession (buffered: preference)\n"
    )
    const human = await runAwhm(["query", "tea", "-k", "1"], { dataDir: dir })
    expect(human.stdout.replace(/\(score: \d\.\d{3}\)/, "(score: S)")).toBe("1. [raw_log] (score: S) I prefer tea \\x1b]0;PWNED\\x07\\x1b[2J done\n")
    const json = await runAwhm(["query", "tea", "-k", "1", "--json"], { dataDir: dir })
    expect((JSON.parse(json.stdout) as { results: Array<{ content: string }> }).results[0]!.content).toBe(text)
    expect((await runAwhm(["consolidate"], { dataDir: dir })).stdout).toBe(
      "Consolidated 1 session(s), 1 new node(s):\n  evil\\nsession: 1 new node(s)\n"
    )
    const nodes = await runAwhm(["nodes"], { dataDir: dir })
    expect(nodes.stdout).toContain("I prefer tea \\x1b]0;PWNED\\x07\\x1b[2J done\n")
    expect(nodes.stdout).not.toContain("\x1b")
  })
})

describe("configuration mistakes", () => {
  it("an unknown config.json key is warned about on stderr, naming it and the closest parameter", async () => {
    const dir = tempDir()
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(dataPaths(dir).configJson, JSON.stringify({ neighbour_expansion: false, k: 3, colour: "blue" }))
    const r = await runAwhm(["status", "--json"], { dataDir: dir })
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({ nodes: 0 })
    const file = dataPaths(dir).configJson
    expect(r.stderr).toBe(
      `awhm warn: ${file}: unknown key "neighbour_expansion" is ignored (did you mean "neighbor_expansion"?)\n` +
        `awhm warn: ${file}: unknown key "colour" is ignored\n`
    )
  })

  it("malformed environment values are one line and exit 2", async () => {
    const dir = tempDir()
    const cases: Array<[Record<string, string>, string]> = [
      [{ AWHM_NER_LABELS: "[[[" }, "awhm: invalid configuration: AWHM_NER_LABELS must be a comma-separated list or a JSON array of labels such as PERSON,ORG\n"],
      [{ AWHM_NER_LABELS: "PERSON,{ORG}" }, "awhm: invalid configuration: ner_labels: must be entity labels such as PERSON,ORG (letters and _)\n"],
      [{ AWHM_ALPHA: "Infinity" }, "awhm: invalid configuration: alpha: must be a number >= 0\n"],
      [{ AWHM_MAX_MESSAGE_CHARS: "0" }, "awhm: invalid configuration: max_message_chars: must be a whole number >= 1\n"],
      [{ AWHM_DATA_DIR: "" }, "awhm: invalid configuration: the data dir must not be empty (AWHM_DATA_DIR or --data-dir)\n"]
    ]
    for (const [env, stderr] of cases) {
      const r = await runAwhm(["status"], { ...(env.AWHM_DATA_DIR === undefined ? { dataDir: dir } : {}), env })
      expect([env, r]).toEqual([env, { code: 2, stdout: "", stderr }])
    }
    const ok = await runAwhm(["status", "--json"], { dataDir: dir, env: { AWHM_NER_LABELS: '["PERSON","org"]' } })
    expect(ok.code).toBe(0)
  })

  it("an empty or blank message is refused with exit 2 and nothing is stored", async () => {
    const dir = tempDir()
    for (const text of ["", "  \t "]) {
      const r = await runAwhm(["log", "--session", "s", "--role", "user", text], { dataDir: dir })
      expect(r).toEqual({ code: 2, stdout: "", stderr: "awhm: the message is empty: there is nothing to remember\n" })
    }
    expect(logLines(dir, "s")).toEqual([])
  })
})
