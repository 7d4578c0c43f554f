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

  it("initializes as the awhm server with tools only, and tells the model when to use them", () => {
    expect(client.getServerVersion()).toEqual({ name: "awhm", version: "0.1.0" })
    // No prompts, so no completions capability.
    expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: true } })
    const instructions = client.getInstructions() ?? ""
    expect(instructions).toMatch(/Call memory_query before answering anything that may depend on earlier conversations/)
    expect(instructions).toMatch(/Call memory_log .* when the user states a lasting fact, preference, decision or correction/)
    expect(instructions).toMatch(/score from 0 to 1/)
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
    expect(query.title).toBe("Query memory")
  })

  it("declares argument schemas a client can check: bounds without titles, the role enum, as_of's formats", async () => {
    const { tools } = await client.listTools()
    const byName = new Map(tools.map((t) => [t.name, t]))
    const query = byName.get("memory_query")!.inputSchema
    expect(query.properties).toEqual({
      query: { type: "string", description: "What to look for, in plain words" },
      k: { type: "integer", minimum: 1, maximum: 100, default: 10, description: "How many results (default 10)" },
      include_history: { type: "boolean", default: false, description: "Also return superseded (outdated) memories" },
      with_trace: { type: "boolean", default: false, description: "Include the ranking features of each result" },
      as_of: {
        anyOf: [{ type: "string", format: "date-time" }, { type: "string", format: "date" }, { type: "null" }],
        default: null,
        description: "Answer with what was true at this moment: an ISO date or date-time (UTC unless it has an offset)"
      }
    })
    expect(JSON.stringify(tools)).not.toContain("between(")
    expect(byName.get("memory_log")!.inputSchema.properties!.role).toEqual({
      type: "string",
      enum: ["user", "assistant", "tool_call", "tool_result"],
      description: "Who said it"
    })
    for (const t of tools) expect(t.inputSchema).toMatchObject({ type: "object", additionalProperties: false })
  })

  it("declares an outputSchema for every tool, each field described", async () => {
    const { tools } = await client.listTools()
    for (const t of tools) expect(t.outputSchema).toMatchObject({ type: "object" })
    const byName = new Map(tools.map((t) => [t.name, t]))
    expect(byName.get("memory_log")!.outputSchema).toEqual({
      type: "object",
      required: ["session_id", "message_index", "buffer_entries"],
      properties: {
        session_id: { type: "string", description: "This server's session, where everything it logs goes" },
        message_index: { type: "integer", minimum: 0, description: "The message's position in the session (from 0)" },
        buffer_entries: { type: "integer", minimum: 0, description: "Statements of this session ready for memory_query" }
      },
      additionalProperties: false
    })
    const result = (byName.get("memory_query")!.outputSchema!.properties!.results as { items: { properties: Record<string, { description?: string }> } }).items
    expect(Object.keys(result.properties)).toEqual(["content", "source", "score", "node_id", "status", "valid_from", "valid_to", "trace"])
    for (const [name, field] of Object.entries(result.properties)) expect(field.description, name).toMatch(/\w/)
  })

  let sessionId = ""

  it("memory_log logs to this server's session and reports the buffer", async () => {
    const r = await call("memory_log", { role: " User ", content: "My favourite editor is Helix" })
    expect(r.isError).toBe(false)
    expect(r.text).toBe("Logged. Buffer now has 1 entries.")
    const s = r.structured as { session_id: string; message_index: number; buffer_entries: number }
    expect(s.session_id).toMatch(/^mcp-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    expect(s).toEqual({ session_id: s.session_id, message_index: 0, buffer_entries: 1 })
    sessionId = s.session_id
    const again = await call("memory_log", { role: "assistant", content: "Noted, Helix it is." })
    expect(again.structured).toEqual({ session_id: sessionId, message_index: 1, buffer_entries: 1 })
  })

  it("memory_log refuses an unknown role", async () => {
    const r = await call("memory_log", { role: "robot", content: "beep" })
    expect(r).toEqual({
      isError: true,
      text: "invalid role 'robot': expected one of user, assistant, tool_call, tool_result",
      structured: undefined
    })
  })

  it("memory_log refuses empty content, and logs nothing", async () => {
    for (const content of ["", "  \n "]) {
      expect(await call("memory_log", { role: "user", content })).toEqual({
        isError: true,
        text: "Invalid content: it must not be empty.",
        structured: undefined
      })
    }
    expect((await call("memory_status")).structured).toMatchObject({ log_messages: 3 })
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
    const s = r.structured as { new_nodes: number; sessions: Record<string, number> }
    const mine = s.sessions[sessionId]!
    const earlier = s.sessions["earlier"]!
    expect(Object.keys(s.sessions)).toEqual(["earlier", sessionId])
    expect(mine).toBeGreaterThan(0)
    expect(earlier).toBeGreaterThan(0)
    expect(s.new_nodes).toBe(mine + earlier)
    expect(r.text).toBe(
      `Consolidated 2 session(s), ${s.new_nodes} new node(s):\n  - earlier: ${earlier} new node(s)\n  - ${sessionId}: ${mine} new node(s)`
    )
    expect((await call("memory_consolidate")).text).toBe("No pending sessions to consolidate.")
    const status = (await call("memory_status")).structured as { node_count: number }
    expect(status.node_count).toBe(s.new_nodes)
  })

  it("memory_query returns graph memories with their node id, and traces on request", async () => {
    const q = await call("memory_query", { query: "staging database", k: 3, with_trace: true })
    const results = (q.structured as { results: Array<{ content: string; source: string; score: number; node_id?: string; trace?: object }> }).results
    expect(results[0]).toMatchObject({ content: "The staging database is PostgreSQL 16", source: "graph", status: "active" })
    expect(results[0]!.node_id).toMatch(/^[0-9a-f-]{36}$/)
    // Small: what the model acts on, scores rounded as the text shows them.
    expect(Object.keys(results[0]!).sort()).toEqual(["content", "node_id", "score", "source", "status", "trace", "valid_from"])
    expect(Math.round(results[0]!.score * 1000) / 1000).toBe(results[0]!.score)
    const lines = q.text.split("\n")
    expect(lines[0]).toMatch(/^1\. \[graph\] \(score: \d\.\d{3}\) The staging database is PostgreSQL 16$/)
    expect(lines[1]).toMatch(
      /^ {3}trace=\{"association": [\d.]+, "confidence": [\d.]+, "lexical_score": [\d.]+, "semantic_sim": -?[\d.]+, "status_bonus": [\d.]+, "strength": [\d.]+\}$/
    )
    nodeId = results[0]!.node_id!
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
    expect(r.structured).toMatchObject({ node_id: nodeId, log_messages_removed: 1 })
    expect(Object.keys(r.structured as object).sort()).toEqual([
      "buffer_entries_removed", "edges_removed", "log_messages_removed", "node_id", "sibling_nodes_removed", "snapshots_scrubbed"
    ])
    expect(r.text).toMatch(new RegExp(`^Deleted node ${nodeId}: removed \\d+ edges?, 1 raw-log message, \\d+ buffer entr(y|ies)`))
    const again = await call("memory_delete_node", { node_id: nodeId })
    expect(again).toEqual({ isError: true, text: `Node ${nodeId} not found.`, structured: undefined })
    const q = await call("memory_query", { query: "staging database PostgreSQL", include_history: true })
    expect(q.text).not.toContain("PostgreSQL 16")
  })

  it("bad arguments are one-line tool errors and the server keeps serving", async () => {
    expect(await call("memory_query", { query: "x", k: "ten" })).toEqual({
      isError: true,
      text: "Invalid arguments for memory_query: k: must be an integer from 1 to 100",
      structured: undefined
    })
    expect((await call("memory_query", { query: "x", k: 0 })).text).toBe("Invalid arguments for memory_query: k: must be an integer from 1 to 100")
    expect((await call("memory_log", { role: "user" })).text).toBe("Invalid arguments for memory_log: content: is missing")
    // An argument the tool does not have is refused, not ignored; the value given is never echoed.
    expect(await call("memory_log", { role: "user", content: "hello", sesion: "typo-secret" })).toEqual({
      isError: true,
      text: "Invalid arguments for memory_log: sesion: is not an argument of this tool",
      structured: undefined
    })
    expect((await call("memory_query", { query: "x", as_of: "last tuesday" })).text).toBe(
      "invalid as_of 'last tuesday': expected an ISO date such as 2026-03-01 or 2026-03-01T10:00:00Z"
    )
    await expect(client.callTool({ name: "memory_nope", arguments: {} })).rejects.toThrow(/memory_nope/)
    expect((await call("memory_status")).isError).toBe(false)
  })

  it("a call without arguments (optional in MCP) is a call with none", async () => {
    // The SDK leaves `arguments` out when none are given.
    const status = await client.callTool({ name: "memory_status" })
    expect(status.isError).toBe(false)
    expect(status.structuredContent).toMatchObject({ session_id: sessionId })
    const query = await client.callTool({ name: "memory_query" })
    expect(query).toEqual({ isError: true, content: [{ type: "text", text: "Invalid arguments for memory_query: query: is missing" }] })
  })

  it("keeps stdout for the protocol: logs go to stderr only", () => {
    // Any stray stdout line would have broken the client above; stderr carries no memory content.
    expect(stderr).toMatch(/^awhm-mcp warn: skipped 1 damaged line\(s\) \(line 2\) in .*earlier\.jsonl$/m)
    expect(stderr).not.toContain("Helix")
    expect(stderr).not.toContain("PostgreSQL")
  })
})
