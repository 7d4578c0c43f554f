import * as fs from "node:fs"
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { dataPaths } from "../../src/store/paths.js"
import { makeTempDir, ROOT, runAwhm } from "../support/cli.js"

// The real built server (dist/awhm-mcp.mjs) spoken to by the official MCP client over stdio.

const MCP_BIN = path.join(ROOT, "dist", "awhm-mcp.mjs")

interface ToolText {
  readonly isError: boolean
  readonly text: string
  readonly structured: unknown
}

describe("awhm-mcp over stdio", () => {
  const temp = makeTempDir("awhm-mcp-")
  let client: Client
  let stderr = ""

  const call = async (name: string, args: Record<string, unknown> = {}): Promise<ToolText> => {
    const r = await client.callTool({ name, arguments: args })
    const content = r.content as Array<{ type: string; text: string }>
    return { isError: r.isError === true, text: content.map((c) => c.text).join("\n"), structured: r.structuredContent }
  }

  beforeAll(async () => {
    // An earlier session, logged through the CLI before the server starts.
    const logged = await runAwhm(["log", "--session", "earlier", "--role", "user", "The staging database is PostgreSQL 16"], { dataDir: temp.dir })
    expect(logged.code).toBe(0)
    // A torn line (a crash mid-write): reading the log warns about it, on stderr only.
    fs.appendFileSync(dataPaths(temp.dir).logFile("earlier"), '{"timestamp":"2026-01-01T00:00:00Z","sess\n')
    const env: Record<string, string> = {}
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("AWHM_")) env[k] = v
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MCP_BIN],
      env: { ...env, AWHM_DATA_DIR: temp.dir, AWHM_EMBEDDER: "mock" },
      stderr: "pipe"
    })
    transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString("utf8")))
    client = new Client({ name: "awhm-test", version: "1.0.0" })
    await client.connect(transport)
  })

  afterAll(async () => {
    await client?.close()
    temp.cleanup()
  })

  it("initializes as the awhm server with tools", () => {
    expect(client.getServerVersion()).toEqual({ name: "awhm", version: "0.1.0" })
    expect(client.getServerCapabilities()?.tools).toBeDefined()
  })

  it("lists the six tools with their arguments and hints", async () => {
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual([
      "memory_consolidate",
      "memory_delete_node",
      "memory_log",
      "memory_query",
      "memory_snapshot_create",
      "memory_status"
    ])
    const byName = new Map(tools.map((t) => [t.name, t]))
    const query = byName.get("memory_query")!
    expect(Object.keys(query.inputSchema.properties ?? {})).toEqual(["query", "k", "include_history", "with_trace", "as_of"])
    expect(query.inputSchema.required).toEqual(["query"])
    expect(byName.get("memory_log")!.inputSchema.required).toEqual(["role", "content"])
    expect(byName.get("memory_delete_node")!.inputSchema.required).toEqual(["node_id"])
    expect(query.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, openWorldHint: false })
    expect(byName.get("memory_status")!.annotations).toMatchObject({ readOnlyHint: true })
    expect(byName.get("memory_log")!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false })
    expect(byName.get("memory_delete_node")!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true })
  })

  let sessionId = ""

  it("memory_log logs to this server's session and reports the buffer", async () => {
    const r = await call("memory_log", { role: " User ", content: "My favourite editor is Helix" })
    expect(r.isError).toBe(false)
    expect(r.text).toBe("Logged. Buffer now has 1 entries.")
    const s = r.structured as { sessionId: string; messageIndex: number; bufferEntries: number }
    expect(s.sessionId).toMatch(/^mcp-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    expect(s).toEqual({ sessionId: s.sessionId, messageIndex: 0, bufferEntries: 1 })
    sessionId = s.sessionId
    const again = await call("memory_log", { role: "assistant", content: "Noted, Helix it is." })
    expect(again.structured).toEqual({ sessionId, messageIndex: 1, bufferEntries: 1 })
  })

  it("memory_log refuses an unknown role with the reference's message", async () => {
    const r = await call("memory_log", { role: "robot", content: "beep" })
    expect(r).toEqual({
      isError: true,
      text: "Invalid role 'robot'. Expected one of: user, assistant, tool_call, tool_result",
      structured: undefined
    })
  })

  it("memory_status counts this session", async () => {
    const r = await call("memory_status")
    expect(r.structured).toEqual({
      session_id: sessionId,
      node_count: 0,
      edge_count: 0,
      buffer_entries: 1,
      total_sessions: 2,
      log_messages: 3
    })
    expect(JSON.parse(r.text)).toEqual(r.structured)
  })

  it("memory_query finds the buffered fact before consolidation", async () => {
    const r = await call("memory_query", { query: "favourite editor", k: 3 })
    expect(r.isError).toBe(false)
    const results = (r.structured as { results: Array<{ content: string; source: string }> }).results
    expect(results[0]).toMatchObject({ content: "My favourite editor is Helix", source: "buffer" })
    expect(r.text.split("\n")[0]).toMatch(/^1\. \[buffer\] \(score: \d+\.\d{3}\) My favourite editor is Helix$/)
  })

  let nodeId = ""

  it("memory_consolidate turns every pending session into graph nodes", async () => {
    const r = await call("memory_consolidate")
    expect(r.isError).toBe(false)
    const s = r.structured as { newNodes: number; sessions: Record<string, number> }
    const mine = s.sessions[sessionId]!
    const earlier = s.sessions["earlier"]!
    expect(Object.keys(s.sessions)).toEqual(["earlier", sessionId])
    expect(mine).toBeGreaterThan(0)
    expect(earlier).toBeGreaterThan(0)
    expect(s.newNodes).toBe(mine + earlier)
    expect(r.text).toBe(
      `Consolidated 2 session(s), ${s.newNodes} new node(s):\n  - earlier: ${earlier} new node(s)\n  - ${sessionId}: ${mine} new node(s)`
    )
    expect((await call("memory_consolidate")).text).toBe("No pending sessions to consolidate.")
    const status = (await call("memory_status")).structured as { node_count: number }
    expect(status.node_count).toBe(s.newNodes)
  })

  it("memory_query returns graph memories with their node id, and traces on request", async () => {
    const q = await call("memory_query", { query: "staging database", k: 3, with_trace: true })
    const results = (q.structured as { results: Array<{ content: string; source: string; nodeId?: string; trace?: object }> }).results
    expect(results[0]).toMatchObject({ content: "The staging database is PostgreSQL 16", source: "graph" })
    expect(results[0]!.nodeId).toMatch(/^[0-9a-f-]{36}$/)
    const lines = q.text.split("\n")
    expect(lines[0]).toMatch(/^1\. \[graph\] \(score: \d\.\d{3}\) The staging database is PostgreSQL 16$/)
    expect(lines[1]).toMatch(
      /^ {3}trace=\{"association": [\d.]+, "confidence": [\d.]+, "lexical_score": [\d.]+, "semantic_sim": -?[\d.]+, "status_bonus": [\d.]+, "strength": [\d.]+\}$/
    )
    nodeId = results[0]!.nodeId!
    expect((await call("memory_query", { query: "zebra giraffe" })).text).toBe("No memories found.")
  })

  it("memory_snapshot_create writes a snapshot file", async () => {
    const r = await call("memory_snapshot_create")
    const file = (r.structured as { path: string }).path
    expect(r.text).toBe(`Snapshot created: ${file}`)
    expect(path.dirname(file)).toBe(path.join(temp.dir, "snapshots"))
    expect(fs.existsSync(file)).toBe(true)
  })

  it("memory_delete_node removes the node; a second delete is 'not found'", async () => {
    const r = await call("memory_delete_node", { node_id: nodeId })
    expect(r.isError).toBe(false)
    expect(r.structured).toMatchObject({ nodeId, nodeDeleted: true, logEntriesRemoved: 1 })
    expect(r.text).toMatch(new RegExp(`^Deleted node ${nodeId}: removed \\d+ edges?, 1 raw-log message, \\d+ buffer entr(y|ies)`))
    const again = await call("memory_delete_node", { node_id: nodeId })
    expect(again).toEqual({ isError: true, text: `Node ${nodeId} not found.`, structured: undefined })
    const q = await call("memory_query", { query: "staging database PostgreSQL", include_history: true })
    expect(q.text).not.toContain("PostgreSQL 16")
  })

  it("bad arguments are tool errors and the server keeps serving", async () => {
    const badK = await call("memory_query", { query: "x", k: "ten" })
    expect(badK.isError).toBe(true)
    expect(badK.text).toMatch(/^Invalid arguments for memory_query: /)
    const missing = await call("memory_log", { role: "user" })
    expect(missing.isError).toBe(true)
    expect(missing.text).toMatch(/^Invalid arguments for memory_log: /)
    expect(missing.text).toContain("content")
    const badDate = await call("memory_query", { query: "x", as_of: "last tuesday" })
    expect(badDate).toEqual({
      isError: true,
      text: "Invalid as_of 'last tuesday'. Expected an ISO date such as 2026-03-01T10:00:00Z.",
      structured: undefined
    })
    await expect(client.callTool({ name: "memory_nope", arguments: {} })).rejects.toThrow(/memory_nope/)
    expect((await call("memory_status")).isError).toBe(false)
  })

  it("keeps stdout for the protocol: logs go to stderr only", () => {
    // Any stray stdout line would have broken the client above; stderr carries no memory content.
    expect(stderr).toMatch(/^awhm-mcp warn: skipped 1 damaged line\(s\) \(line 2\) in .*earlier\.jsonl$/m)
    expect(stderr).not.toContain("Helix")
    expect(stderr).not.toContain("PostgreSQL")
  })
})
