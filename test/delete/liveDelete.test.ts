import * as fs from "node:fs"
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { describe, expect, it } from "@effect/vitest"
import { AwhmSession } from "../../src/api/AwhmSession.js"
import { listFiles, makeTempDir, ROOT, runAwhm } from "../support/cli.js"

// A delete made by `awhm delete` reaches processes that already hold memory: the real MCP server here.

const MCP_BIN = path.join(ROOT, "dist", "awhm-mcp.mjs")
const SECRET = "ZEBRAFISHQUARTZ"

/** Files under the data dir whose bytes hold the text. */
const holding = (dir: string, text: string) =>
  listFiles(dir).filter((f) => fs.readFileSync(path.join(dir, f)).includes(Buffer.from(text)))

const startServer = async (dataDir: string, extraEnv: Record<string, string> = {}) => {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("AWHM_")) env[k] = v
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MCP_BIN],
    env: { ...env, AWHM_DATA_DIR: dataDir, AWHM_EMBEDDER: "mock", ...extraEnv },
    stderr: "pipe"
  })
  const client = new Client({ name: "awhm-test", version: "1.0.0" })
  await client.connect(transport)
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const r = await client.callTool({ name, arguments: args })
    return { isError: r.isError === true, structured: r.structuredContent as Record<string, unknown> }
  }
  return { client, call, pid: transport.pid }
}

/** The data dir's files a process holds open: "(deleted)" when they were unlinked or replaced since. */
const openFiles = (pid: number | null, dir: string): Array<string> => {
  const fds = `/proc/${pid}/fd`
  return fs
    .readdirSync(fds)
    .flatMap((fd) => {
      try {
        return [fs.readlinkSync(path.join(fds, fd))]
      } catch {
        return []
      }
    })
    .filter((f) => f.startsWith(fs.realpathSync(dir)))
    .map((f) => path.relative(fs.realpathSync(dir), f))
    .sort()
}

const nodeIdsHolding = async (dataDir: string, text: string): Promise<Array<string>> => {
  const r = await runAwhm(["nodes", "--json"], { dataDir })
  expect(r.code).toBe(0)
  return (JSON.parse(r.stdout) as { nodes: Array<{ id: string; content: string }> }).nodes.filter((n) => n.content.includes(text)).map((n) => n.id)
}

describe("a delete reaches a running MCP server", () => {
  for (const flush of ["30", "0.05"]) {
    it(`buffer flushed every ${flush} s: memory_query no longer returns the deleted text, and no file gets it back`, async () => {
      const { dir, cleanup } = makeTempDir("awhm-live-delete-")
      const server = await startServer(dir, { AWHM_BUFFER_FLUSH_INTERVAL: flush })
      try {
        const logged = await server.call("memory_log", { role: "user", content: `I prefer the codename ${SECRET}` })
        expect(logged.isError).toBe(false)
        expect((await server.call("memory_log", { role: "user", content: "My favourite editor is Helix" })).isError).toBe(false)
        const before = await server.call("memory_query", { query: "codename", k: 5 })
        expect(JSON.stringify(before.structured)).toContain(SECRET)
        expect((await runAwhm(["consolidate"], { dataDir: dir })).code).toBe(0)
        const ids = await nodeIdsHolding(dir, SECRET)
        expect(ids.length).toBeGreaterThan(0)
        const deleted = await runAwhm(["delete", ids[0]!], { dataDir: dir })
        expect([deleted.code, deleted.stderr]).toEqual([0, ""])
        expect(holding(dir, SECRET)).toEqual([])

        const after = await server.call("memory_query", { query: "codename", k: 5 })
        expect(after.isError).toBe(false)
        expect(JSON.stringify(after.structured)).not.toContain(SECRET)
        const status = await server.call("memory_status")
        expect(status.structured.buffer_entries).toBe(1)
        // The rest of the session still answers.
        const helix = await server.call("memory_query", { query: "favourite editor", k: 5 })
        expect(JSON.stringify(helix.structured)).toContain("Helix")
        // A write after the delete (a new message, a flush) brings nothing back.
        expect((await server.call("memory_log", { role: "user", content: "My shell is fish" })).isError).toBe(false)
        await new Promise((r) => setTimeout(r, 200))
        expect(holding(dir, SECRET)).toEqual([])
      } finally {
        await server.client.close()
      }
      try {
        // The server's last flush happened when it exited.
        expect(holding(dir, SECRET)).toEqual([])
        expect(await nodeIdsHolding(dir, SECRET)).toEqual([])
      } finally {
        cleanup()
      }
    })
  }
})

describe("a delete reaches an idle MCP server", () => {
  it("the saved index the server read from is given back within seconds, before any query: no deleted file stays open", async () => {
    const { dir, cleanup } = makeTempDir("awhm-live-delete-")
    try {
      for (const text of [`I prefer the codename ${SECRET}`, "My favourite editor is Helix"]) {
        expect((await runAwhm(["log", "--session", "s1", "--role", "user", text], { dataDir: dir })).code).toBe(0)
      }
      expect((await runAwhm(["consolidate"], { dataDir: dir })).code).toBe(0)
      // A query saves the raw log's index (index/rawlog.bin); the server's first query reads it and keeps it open.
      expect((await runAwhm(["query", "codename"], { dataDir: dir })).code).toBe(0)
      const server = await startServer(dir)
      try {
        expect(JSON.stringify((await server.call("memory_query", { query: "codename", k: 5 })).structured)).toContain(SECRET)
        expect(openFiles(server.pid, dir)).toContain("index/rawlog.bin")
        const ids = await nodeIdsHolding(dir, SECRET)
        expect((await runAwhm(["delete", ids[0]!], { dataDir: dir })).code).toBe(0)
        expect(holding(dir, SECRET)).toEqual([])
        // The delete replaced rawlog.bin; the copy the server had open held the text until it lets go.
        const deadline = Date.now() + 10_000
        while (openFiles(server.pid, dir).some((f) => f.endsWith(" (deleted)")) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
        expect(openFiles(server.pid, dir).filter((f) => f.endsWith(" (deleted)"))).toEqual([])
        expect(JSON.stringify((await server.call("memory_query", { query: "codename", k: 5 })).structured)).not.toContain(SECRET)
      } finally {
        await server.client.close()
      }
    } finally {
      cleanup()
    }
  })
})

describe("a delete reaches a running library session", () => {
  it("session.query no longer returns the deleted text, and ending the session writes nothing of it back", async () => {
    const { dir, cleanup } = makeTempDir("awhm-live-delete-")
    try {
      const session = await AwhmSession.start({ dataDir: dir, sessionId: "lib", config: { embedder: "mock" } })
      try {
        await session.logMessage("user", `I prefer the codename ${SECRET}`)
        await session.logMessage("user", "My favourite editor is Helix")
        expect((await session.query("codename")).map((r) => r.content)).toContain(`I prefer the codename ${SECRET}`)
        expect((await runAwhm(["consolidate"], { dataDir: dir })).code).toBe(0)
        const ids = await nodeIdsHolding(dir, SECRET)
        expect(ids.length).toBeGreaterThan(0)
        expect((await runAwhm(["delete", ids[0]!], { dataDir: dir })).code).toBe(0)
        expect(JSON.stringify(await session.query("codename"))).not.toContain(SECRET)
        expect(JSON.stringify(await session.query("favourite editor"))).toContain("Helix")
      } finally {
        await session.end()
      }
      expect(holding(dir, SECRET)).toEqual([])
    } finally {
      cleanup()
    }
  })
})
