import * as fs from "node:fs"
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { AwhmSession } from "../../src/api/AwhmSession.js"
import { withoutPrivate } from "../../src/domain/privateSpans.js"
import { listFiles, makeTempDir, ROOT, runAwhm } from "../support/cli.js"

// `<private>…</private>` through every way a message enters: the prompt and stop hooks, `awhm log`, MCP's
// memory_log and the library. Afterwards no file of the data dir holds a private word, and neither did
// what Stage 2 (a fake `claude` on PATH, a real process) was sent.

const SECRETS = ["zebracorn", "quokkapass", "wombatkey", "narwhalpin", "axolotlcode"]

// Records what it is given (arguments and stdin) outside the data dir, and proposes nothing.
const FAKE_CLAUDE = `#!${process.execPath}
let stdin = ""
process.stdin.on("data", (d) => (stdin += d))
process.stdin.on("end", () => {
  require("node:fs").appendFileSync(process.env.FAKE_CLAUDE_RECORD, JSON.stringify(process.argv.slice(2)) + stdin + "\\n")
  process.stdout.write(JSON.stringify({ type: "result", is_error: false, result: "", structured_output: { memories: [] } }))
})
`

describe("private spans", () => {
  const temp = makeTempDir("awhm-private-")
  const data = path.join(temp.dir, "data")
  const bin = path.join(temp.dir, "bin")
  const record = path.join(temp.dir, "stage2-input.txt")
  afterAll(() => temp.cleanup())

  it("are cut out as the text says: nested, unclosed, any case, and the rest of the text is kept", () => {
    expect(withoutPrivate("My key is <private>sk-1</private> and more")).toBe("My key is and more")
    expect(withoutPrivate("Token <PRIVATE>x</Private>.")).toBe("Token.")
    expect(withoutPrivate("a <private>x <private>y</private> z</private> b")).toBe("a b")
    expect(withoutPrivate("before <private>never closed")).toBe("before")
    expect(withoutPrivate("a stray </private> tag")).toBe("a stray tag")
    expect(withoutPrivate("line one\n<private>two</private>\nline three")).toBe("line one\n\nline three")
    expect(withoutPrivate("no  tags   here ")).toBe("no  tags   here ")
    expect(withoutPrivate("<private>all of it</private>")).toBe("")
  })

  it("never reach a file of the data dir, nor Stage 2", async () => {
    fs.mkdirSync(bin, { recursive: true })
    fs.writeFileSync(path.join(bin, "claude"), FAKE_CLAUDE, { mode: 0o755 })
    const cwd = "/home/me/shop"
    const hook = (event: string, payload: object) =>
      runAwhm(["hook", event], { dataDir: data, input: JSON.stringify({ session_id: "p", cwd, ...payload }) })

    // The hooks: a prompt, a reply, and a prompt that is nothing but a private span.
    expect(await hook("prompt", { prompt: "Our deploy token is <private>zebracorn-4242</private> and the staging database is PostgreSQL 16." }))
      .toEqual({ code: 0, stdout: "", stderr: "" })
    expect(await hook("stop", { last_assistant_message: "Saved the settings. <private>\nquokkapass\n</private>" }))
      .toEqual({ code: 0, stdout: "", stderr: "" })
    expect(await hook("prompt", { prompt: "<private>wombatkey</private>" })).toEqual({ code: 0, stdout: "", stderr: "" })

    // The CLI: part private is logged without it; all private is refused, and nothing is logged.
    const cli = await runAwhm(["log", "--session", "c", "--role", "user", "--json", "The wifi is <private>narwhalpin</private> guest-net."], { dataDir: data })
    expect(cli).toEqual({ code: 0, stdout: '{"sessionId":"c","messageIndex":0,"bufferEntries":1}\n', stderr: "" })
    expect(await runAwhm(["log", "--session", "c", "--role", "user", "<private>narwhalpin</private>"], { dataDir: data })).toEqual({
      code: 2,
      stdout: "",
      stderr: "awhm: the message is all <private> text: nothing was logged\n"
    })

    // MCP's memory_log, through the official client.
    const env: Record<string, string> = {}
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("AWHM_")) env[k] = v
    const client = new Client({ name: "awhm-test", version: "1.0.0" })
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [path.join(ROOT, "dist", "awhm-mcp.mjs")],
        env: { ...env, AWHM_DATA_DIR: data, AWHM_EMBEDDER: "mock" },
        stderr: "ignore"
      })
    )
    const mcp = await client.callTool({ name: "memory_log", arguments: { role: "user", content: "My editor is Neovim <private>axolotlcode</private>" } })
    await client.close()
    expect(mcp.isError).not.toBe(true)

    // The library.
    const session = await AwhmSession.start({ dataDir: data, sessionId: "lib", config: { embedder: "mock" } })
    await session.logMessage("user", "I prefer tabs <private>zebracorn again</private> over spaces.")
    await session.end()

    // Consolidation with Stage 2, then a query that builds and saves the indexes.
    const consolidated = await runAwhm(["consolidate", "--stage2", "--json"], {
      dataDir: data,
      env: { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}`, FAKE_CLAUDE_RECORD: record }
    })
    expect(consolidated.code).toBe(0)
    const query = await runAwhm(["query", "staging database wifi editor tabs", "--json", "-k", "20"], { dataDir: data })
    expect(query.code).toBe(0)

    // What was kept is the text around the spans, word for word.
    const logged = listFiles(data).filter((f) => f.startsWith("logs/")).flatMap((f) =>
      fs.readFileSync(path.join(data, f), "utf8").trim().split("\n").map((l) => (JSON.parse(l) as { content: string }).content)
    )
    expect(logged.sort()).toEqual([
      "I prefer tabs over spaces.",
      "My editor is Neovim",
      "Our deploy token is and the staging database is PostgreSQL 16.",
      "Saved the settings.",
      "The wifi is guest-net."
    ])
    const stage2Input = fs.readFileSync(record, "utf8")
    expect(stage2Input).toContain("the staging database is PostgreSQL 16")
    const files = listFiles(data)
    expect(files.some((f) => f.startsWith("graph/"))).toBe(true)
    expect(files.some((f) => f.startsWith("index/"))).toBe(true)
    expect(files.some((f) => f.startsWith("wal/"))).toBe(true)
    for (const secret of SECRETS) {
      expect(stage2Input).not.toContain(secret)
      for (const f of files) expect([f, fs.readFileSync(path.join(data, f)).includes(secret)]).toEqual([f, false])
    }
  })
})
