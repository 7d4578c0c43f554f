import * as fs from "node:fs"
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { makeTempDir, ROOT, runAwhm } from "../support/cli.js"

// The real model, found without any variable: `npm run setup:model` (run by `npm test` and by `npm ci`)
// put it in the package's .cache/models/.
const PACKAGE_MODEL = path.join(ROOT, ".cache", "models", "all-MiniLM-L6-v2")
const REAL = { AWHM_EMBEDDER: "transformers" }

describe("the embedding model, found by default", () => {
  let tmp: ReturnType<typeof makeTempDir>
  beforeEach(() => (tmp = makeTempDir("awhm-model-")))
  afterEach(() => tmp.cleanup())

  it("a paraphrase is answered by the real model with no variable set", { timeout: 120_000 }, async () => {
    expect((await runAwhm(["log", "--session", "s1", "--role", "user", "I adore hiking in the mountains"], { dataDir: tmp.dir, env: REAL })).code).toBe(0)
    expect((await runAwhm(["log", "--session", "s1", "--role", "user", "The invoice is due on Friday"], { dataDir: tmp.dir, env: REAL })).code).toBe(0)
    const r = await runAwhm(["query", "What outdoor activity do I enjoy?", "-k", "1", "--json"], { dataDir: tmp.dir, env: REAL, timeoutMs: 90_000 })
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    const results = (JSON.parse(r.stdout) as { results: Array<{ content: string; trace?: unknown }> }).results
    expect(results.map((x) => x.content)).toEqual(["I adore hiking in the mountains"])
    // No lexical overlap: only the model can have found it.
    const lexical = await runAwhm(["query", "What outdoor activity do I enjoy?", "-k", "1", "--lexical-only"], { dataDir: tmp.dir, env: REAL })
    expect(lexical.stdout).not.toContain("hiking")
  })

  it("the MCP server answers with the real model, also when it starts from its code cache", { timeout: 180_000 }, async () => {
    const env: Record<string, string> = {}
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("AWHM_")) env[k] = v
    // Two servers one after the other: the second runs from the code cache the first left (a cached
    // script cannot use import() itself, which once left the server lexical-only).
    const serve = async (logFirst: boolean) => {
      let stderr = ""
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [path.join(ROOT, "dist", "awhm-mcp.mjs")],
        env: { ...env, AWHM_DATA_DIR: tmp.dir, AWHM_EMBEDDER: "transformers", AWHM_HOOK_SERVER: "0" },
        stderr: "pipe"
      })
      transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString("utf8")))
      const client = new Client({ name: "awhm-test", version: "1.0.0" })
      await client.connect(transport)
      try {
        if (logFirst) {
          for (const content of ["I adore hiking in the mountains", "The invoice is due on Friday"]) {
            await client.callTool({ name: "memory_log", arguments: { role: "user", content } })
          }
        }
        const r = await client.callTool({ name: "memory_query", arguments: { query: "What outdoor activity do I enjoy?", k: 1 } }, undefined, { timeout: 120_000 })
        return { results: (r.structuredContent as { results: Array<{ content: string }> }).results.map((x) => x.content), stderr }
      } finally {
        await client.close()
      }
    }
    const first = await serve(true)
    const second = await serve(false)
    for (const run of [first, second]) {
      expect(run.stderr).not.toContain("could not be loaded")
      expect(run.results).toEqual(["I adore hiking in the mountains"])
    }
  })

  it("`awhm model status` says which model, from where, and that it loads", { timeout: 120_000 }, async () => {
    const r = await runAwhm(["model", "status", "--json"], { dataDir: tmp.dir, env: REAL, timeoutMs: 90_000 })
    expect(r.code).toBe(0)
    const report = JSON.parse(r.stdout) as Record<string, unknown>
    expect(report).toMatchObject({ embedder: "transformers", modelId: "Xenova/all-MiniLM-L6-v2", dir: PACKAGE_MODEL, source: "package", loaded: true, dimension: 384, error: null })
    expect(typeof report.loadMs).toBe("number")
    const status = await runAwhm(["status"], { dataDir: tmp.dir, env: REAL })
    expect(status.stdout).toContain(`embedder:       transformers (model at ${PACKAGE_MODEL})`)
  })

  it("a model in the data dir's models/ wins over the package's", async () => {
    const dir = path.join(tmp.dir, "models", "all-MiniLM-L6-v2")
    for (const f of ["config.json", "tokenizer.json", "tokenizer_config.json", "onnx/model.onnx"]) {
      fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true })
      fs.writeFileSync(path.join(dir, f), "{}")
    }
    const r = await runAwhm(["status", "--json"], { dataDir: tmp.dir, env: REAL })
    expect((JSON.parse(r.stdout) as { model: unknown }).model).toEqual({ dir, source: "data-dir", found: true })
  })

  it("a model that cannot load is never silent: status, model status and query say so, with the fix", { timeout: 60_000 }, async () => {
    const env = { ...REAL, AWHM_MODEL_DIR: path.join(tmp.dir, "no-model-here") }
    const status = await runAwhm(["status"], { dataDir: tmp.dir, env })
    expect(status.stdout).toContain("embedder:       transformers (NO MODEL FOUND: retrieval is lexical-only; run `awhm model install`)")
    const model = await runAwhm(["model", "status"], { dataDir: tmp.dir, env })
    expect(model.code).toBe(1)
    expect(model.stderr).toBe("awhm: the embedding model does not load; run `awhm model install`\n")
    expect(model.stdout).toContain("status:   NOT LOADED: embedding model Xenova/all-MiniLM-L6-v2 could not be loaded: no model at")
    await runAwhm(["log", "--session", "s1", "--role", "user", "I adore hiking in the mountains"], { dataDir: tmp.dir, env })
    const q = await runAwhm(["query", "hiking"], { dataDir: tmp.dir, env })
    expect(q.code).toBe(0)
    expect(q.stdout).toContain("I adore hiking in the mountains")
    const warnings = q.stderr.split("\n").filter((l) => l !== "")
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/^awhm: embedding model Xenova\/all-MiniLM-L6-v2 could not be loaded: no model at .*no-model-here \(missing config\.json, tokenizer\.json, tokenizer_config\.json, onnx\/model\.onnx\); run `awhm model install` \(or point AWHM_MODEL_DIR at a copy of Xenova\/all-MiniLM-L6-v2\); continuing lexical-only$/)
  })
})
