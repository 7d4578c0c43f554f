import { execFile, execFileSync } from "node:child_process"
import { promisify } from "node:util"
import * as fs from "node:fs"
import * as path from "node:path"
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { acquireLockSync } from "../../src/store/fileLock.js"
import { makeTempDir, ROOT } from "../support/cli.js"

// A second real client: the official Python MCP SDK (from PyPI, kept in a venv under .cache) drives the
// built server over stdio. It raised on the leaked defect a call without `arguments` used to get.

const MCP_VERSION = "2.3.0"
const VENV = path.join(ROOT, ".cache", `py-mcp-${MCP_VERSION}`)
const PYTHON = path.join(VENV, "bin", "python")
const MCP_BIN = path.join(ROOT, "dist", "awhm-mcp.mjs")

const run = promisify(execFile)

/** Creates the venv once (about a minute, 70 MB); a lock keeps parallel runs from racing. */
const ensureVenv = async () => {
  if (fs.existsSync(path.join(VENV, ".complete"))) return
  fs.mkdirSync(path.dirname(VENV), { recursive: true })
  const release = acquireLockSync(`${VENV}.lock`)
  try {
    if (fs.existsSync(path.join(VENV, ".complete"))) return
    fs.rmSync(VENV, { recursive: true, force: true })
    // Asynchronous: the test worker must keep answering vitest while pip works.
    await run("python3", ["-m", "venv", VENV])
    await run(PYTHON, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", `mcp==${MCP_VERSION}`])
    fs.writeFileSync(path.join(VENV, ".complete"), "")
  } finally {
    release()
  }
}

const CLIENT = String.raw`
import asyncio, json, sys, os
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

async def main():
    params = StdioServerParameters(command=sys.argv[1], args=[sys.argv[2]], env=dict(os.environ))
    out = {}
    async with stdio_client(params) as (r, w):
        async with ClientSession(r, w) as s:
            init = await s.initialize()
            out["protocol"] = init.protocol_version
            out["instructions"] = init.instructions
            tools = (await s.list_tools()).tools
            out["tools"] = sorted(t.name for t in tools)
            out["with_output_schema"] = sorted(t.name for t in tools if t.output_schema)
            status = await s.call_tool("memory_status")
            out["status"] = {"error": status.is_error, "structured": status.structured_content}
            logged = await s.call_tool("memory_log", {"role": "user", "content": "My favourite tea is sencha"})
            out["log"] = logged.structured_content
            empty = await s.call_tool("memory_log", {"role": "user", "content": ""})
            out["empty"] = {"error": empty.is_error, "text": empty.content[0].text}
            q = await s.call_tool("memory_query", {"query": "favourite tea", "k": 1})
            out["query"] = q.structured_content
    print(json.dumps(out))

asyncio.run(main())
`

describe("awhm-mcp driven by the Python MCP SDK", () => {
  beforeAll(ensureVenv, 600_000)

  it("initializes at 2025-11-25, calls a tool without arguments, and reads the structured results", () => {
    const temp = makeTempDir("awhm-mcp-py-")
    try {
      const env: Record<string, string> = {}
      for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("AWHM_")) env[k] = v
      const stdout = execFileSync(PYTHON, ["-c", CLIENT, process.execPath, MCP_BIN], {
        env: { ...env, AWHM_DATA_DIR: temp.dir, AWHM_EMBEDDER: "mock" },
        encoding: "utf8",
        timeout: 60_000
      })
      const out = JSON.parse(stdout) as Record<string, unknown>
      const tools = ["memory_consolidate", "memory_delete_node", "memory_log", "memory_query", "memory_snapshot_create", "memory_status"]
      expect(out.protocol).toBe("2025-11-25")
      expect(out.instructions).toMatch(/^awhm is the user's long-term memory/)
      expect(out.tools).toEqual(tools)
      expect(out.with_output_schema).toEqual(tools)
      const status = out.status as { error: boolean; structured: Record<string, unknown> }
      expect(status.error).toBe(false)
      expect(status.structured).toMatchObject({ node_count: 0, edge_count: 0, buffer_entries: 0, total_sessions: 0, log_messages: 0 })
      expect(out.log).toMatchObject({ message_index: 0, buffer_entries: 1 })
      expect(out.empty).toEqual({ error: true, text: "Invalid content: it must not be empty." })
      expect(out.query).toEqual({ results: [{ content: "My favourite tea is sencha", source: "buffer", score: 1 }] })
    } finally {
      temp.cleanup()
    }
  })
})
