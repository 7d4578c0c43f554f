import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { dataPaths } from "../../src/store/paths.js"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { listFiles, makeTempDir, ROOT, runAwhm } from "../support/cli.js"

// A full disk, for real: a 4 MB tmpfs mounted for these tests (they run as root), filled to the last block.

const temp = makeTempDir("awhm-full-")
const disk = path.join(temp.dir, "disk")
const dir = path.join(disk, "data")

beforeAll(() => {
  fs.mkdirSync(disk)
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs", disk])
})
afterAll(() => {
  execFileSync("umount", [disk])
  temp.cleanup()
})
beforeEach(() => {
  for (const f of fs.readdirSync(disk)) fs.rmSync(path.join(disk, f), { recursive: true, force: true })
})

/** Fills the disk, leaving `freeKb` kilobytes (in whole 4 KB pages) free. */
const fill = (freeKb = 0) => {
  const reserve = path.join(disk, "reserve")
  if (freeKb > 0) fs.writeFileSync(reserve, Buffer.alloc(freeKb * 1024))
  const fd = fs.openSync(path.join(disk, "filler"), "w")
  const block = Buffer.alloc(4096)
  try {
    for (;;) fs.writeSync(fd, block)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOSPC") throw e
  } finally {
    fs.closeSync(fd)
  }
  fs.rmSync(reserve, { force: true })
}

const log = (text: string, env: Record<string, string> = {}) =>
  runAwhm(["log", "--session", "s1", "--role", "user", text], { dataDir: dir, env })

/** The real awhm-mcp on the test's data dir, through the MCP SDK's client; every call bounded. */
const startMcp = async (env: Record<string, string>) => {
  const inherited: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("AWHM_")) inherited[k] = v
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(ROOT, "dist", "awhm-mcp.mjs")],
    env: { ...inherited, ...env, AWHM_DATA_DIR: dir, AWHM_EMBEDDER: "mock" },
    stderr: "pipe"
  })
  let stderr = ""
  transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString("utf8")))
  const client = new Client({ name: "awhm-test", version: "1.0.0" })
  await client.connect(transport)
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 15_000 })
    return { isError: r.isError === true, text: (r.content as Array<{ text: string }>).map((c) => c.text).join("\n") }
  }
  return { client, call, stderr: () => stderr }
}

describe("a full disk", () => {
  it("an append that fails part-way is cut back: the log is byte for byte what it was, and the error says the disk is full", async () => {
    expect((await log("I prefer Python over JavaScript")).code).toBe(0)
    expect((await log("The staging port is 8080")).code).toBe(0)
    const file = dataPaths(dir).logFile("s1")
    const before = fs.readFileSync(file)
    fill(16)
    const r = await log("a".repeat(60_000))
    expect(r).toEqual({ code: 1, stdout: "", stderr: `awhm: the disk is full: could not append to ${file}; free some space and try again\n` })
    expect(fs.readFileSync(file).equals(before)).toBe(true)
  })

  describe.each(["sqlite", "json"])("with the %s backend", (backend) => {
    const env = { AWHM_STORAGE_BACKEND: backend }
    const run = (args: ReadonlyArray<string>) => runAwhm(args, { dataDir: dir, env })
    const unsaved = (what: string) => `awhm: the disk is full: ${what} not saved (the answer is complete); free some space\n`

    it("a query and the prompt hook still answer, say in one line what they could not save, and leave no file behind", async () => {
      expect((await log("I prefer Python over JavaScript", env)).code).toBe(0)
      expect((await run(["consolidate"])).code).toBe(0)
      expect((await log("The staging port is 8080", env)).code).toBe(0)
      const filesBefore = listFiles(dir)
      fill()
      expect(await run(["query", "Python"])).toEqual({
        code: 0,
        stdout: "1. [graph] (score: 0.690) I prefer Python over JavaScript\n",
        stderr: unsaved("the retrieval index and the reinforcement of the memories returned were")
      })
      const json = await run(["query", "--json", "Python"])
      expect([json.code, json.stderr]).toEqual([0, unsaved("the retrieval index and the reinforcement of the memories returned were")])
      const parsed = JSON.parse(json.stdout) as { results: Array<{ source: string; content: string }> }
      expect(parsed.results.map((r) => [r.source, r.content])).toEqual([["graph", "I prefer Python over JavaScript"]])
      // The live buffer answers too; nothing is returned from the graph, so only the index is named.
      expect(await run(["query", "--session", "s1", "port"])).toEqual({
        code: 0,
        stdout: "1. [buffer] (score: 1.000) The staging port is 8080\n",
        stderr: unsaved("the retrieval index was")
      })
      // The prompt hook cannot log the prompt, and still gives the agent its memories.
      const payload = { session_id: "h1", cwd: "/p", hook_event_name: "UserPromptSubmit", prompt: "Which language do I prefer, Python?" }
      const context = "Relevant memories from previous sessions (from awhm):\n- I prefer Python over JavaScript"
      expect(await runAwhm(["hook", "prompt"], { dataDir: dir, env, input: JSON.stringify(payload) })).toEqual({
        code: 0,
        stdout: JSON.stringify({ hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: context } }) + "\n",
        // (The raw log's line outranks the graph's copy here, so no graph memory is reinforced.)
        stderr: unsaved("the prompt was")
      })
      expect(listFiles(dir)).toEqual(filesBefore)
    })

    it("a running MCP server's memory_query still answers; memory_log is a tool error saying the disk is full", async () => {
      expect((await log("I prefer Python over JavaScript", env)).code).toBe(0)
      expect((await run(["consolidate"])).code).toBe(0)
      const { client, call, stderr } = await startMcp(env)
      try {
        // Reinforcement raises the score from one query to the next: the answer is the same memory.
        const query = async () => {
          const r = await call("memory_query", { query: "Python" })
          return { ...r, text: r.text.replace(/\(score: \d\.\d{3}\)/, "(score: S)") }
        }
        const answer = { isError: false, text: "1. [graph] (score: S) I prefer Python over JavaScript" }
        expect(await query()).toEqual(answer)
        fill()
        expect(await query()).toEqual(answer)
        expect(await query()).toEqual(answer)
        const logged = await call("memory_log", { role: "user", content: "The staging port is 8080" })
        expect(logged.isError).toBe(true)
        const lock = `${dataPaths(dir).locks}/log-mcp-[0-9a-f-]{36}\\.lock`
        expect(logged.text).toMatch(new RegExp(`^the disk is full: could not lock ${lock}; free some space and try again$`))
      } finally {
        await client.close()
      }
      // The index was saved before the disk filled; only the reinforcement, written at the end, was not.
      expect(stderr().split("\n").filter((l) => l.includes("the disk is full"))).toEqual([
        unsaved("the reinforcement of the memories returned was").trimEnd()
      ])
      expect(listFiles(dir).filter((f) => f.endsWith(".tmp"))).toEqual([])
    })

    it("snapshot create and consolidate, which must write, say the disk is full in one line; status still answers", async () => {
      expect((await log("I prefer Python over JavaScript", env)).code).toBe(0)
      expect((await run(["consolidate"])).code).toBe(0)
      expect((await log("The staging port is 8080", env)).code).toBe(0)
      const filesBefore = listFiles(dir)
      fill()
      const line = `awhm: the disk is full: could not lock ${dataPaths(dir).locks}/consolidation.lock; free some space and try again\n`
      for (const args of [["snapshot", "create"], ["consolidate"]]) {
        expect([args[0], await run(args)]).toEqual([args[0], { code: 1, stdout: "", stderr: line }])
      }
      const status = await run(["status"])
      expect([status.code, status.stderr, status.stdout.split("\n").slice(1, 4)]).toEqual([
        0,
        "",
        [`graph:          1 nodes, 0 edges (${backend})`, "raw log:        2 messages in 1 sessions", "session buffer: 2 entries"]
      ])
      expect(listFiles(dir)).toEqual(filesBefore)
    })
  })

  it("an MCP server started on a full disk never takes the SQLite graph for itself: its query says the disk is full, and the CLI still answers", async () => {
    expect((await log("I prefer Python over JavaScript")).code).toBe(0)
    expect((await runAwhm(["consolidate"], { dataDir: dir })).code).toBe(0)
    fill()
    const { client, call } = await startMcp({})
    try {
      expect(await call("memory_query", { query: "Python" })).toEqual({
        isError: true,
        text: `the disk is full: could not open ${dataPaths(dir).graphSqlite}; free some space and try again`
      })
      const cli = await runAwhm(["query", "Python"], { dataDir: dir })
      expect([cli.code, cli.stdout]).toEqual([0, "1. [graph] (score: 0.743) I prefer Python over JavaScript\n"])
    } finally {
      await client.close()
    }
  })
})
