import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { makeTempDir, ROOT } from "../support/cli.js"

// Every command line the README shows, run where it can be: the `awhm` lines through the real bin in a
// real shell, the MCP registrations by starting the server exactly as they configure it.

const README = fs.readFileSync(path.join(ROOT, "README.md"), "utf8")

/** The lines of the README's ```bash blocks, comments removed. */
const bashLines = (): Array<string> =>
  [...README.matchAll(/```bash\n([\s\S]*?)```/g)]
    .flatMap((m) => m[1]!.split("\n"))
    .map((l) => l.replace(/\s+#.*$/, "").trim())
    .filter((l) => l !== "")

/** The words a shell makes of `line` (quotes, $HOME): bash itself splits them. */
const shellWords = (line: string, env: NodeJS.ProcessEnv): Array<string> =>
  execFileSync("bash", ["-c", `printf '%s\\0' ${line}`], { env, encoding: "utf8" }).split("\0").slice(0, -1)

/**
 * `claude mcp add [options] <name> <commandOrUrl> [args...]` as Claude Code's parser (commander) reads it:
 * `-e/--env` and `-H/--header` take every following word up to the next option or `--`.
 */
const parseClaudeMcpAdd = (words: ReadonlyArray<string>) => {
  const VARIADIC = new Set(["-e", "--env", "-H", "--header"])
  const WITH_VALUE = new Set(["-t", "--transport", "-s", "--scope", "--callback-port", "--client-id"])
  const positional: Array<string> = []
  const env: Record<string, string> = {}
  const options: Record<string, string> = {}
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!
    if (w === "--") {
      positional.push(...words.slice(i + 1))
      break
    }
    if (VARIADIC.has(w)) {
      while (i + 1 < words.length && !words[i + 1]!.startsWith("-")) {
        const [k, ...v] = words[++i]!.split("=")
        if (w === "-e" || w === "--env") env[k!] = v.join("=")
      }
    } else if (WITH_VALUE.has(w)) options[w.replace(/^-+/, "")] = words[++i]!
    else if (w.startsWith("-")) options[w.replace(/^-+/, "")] = "true"
    else positional.push(w)
  }
  return { name: positional[0], command: positional[1], args: positional.slice(2), env, options }
}

/** Runs one line in bash without blocking the test worker (vitest must hear from it while it runs). */
const runLine = (line: string, env: NodeJS.ProcessEnv, cwd: string) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn("bash", ["-c", line], { env, cwd, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()))
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()))
    const timer = setTimeout(() => child.kill("SIGKILL"), 120_000)
    child.on("error", reject)
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })

/** Starts a serving line, fetches the address it prints, then interrupts it as Ctrl-C would. */
const serveUntilAnswered = (line: string, env: NodeJS.ProcessEnv) =>
  new Promise<{ line: string; status: number; code: number | null; stderr: string }>((resolve, reject) => {
    const child = spawn("bash", ["-c", `exec ${line}`], { env, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    let status = 0
    const timer = setTimeout(() => child.kill("SIGKILL"), 120_000)
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()))
    child.stdout.on("data", (d: Buffer) => {
      const before = stdout
      stdout += d.toString()
      const url = /open (http:\/\/\S+)/.exec(stdout)?.[1]
      if (url === undefined || /open (http:\/\/\S+)/.test(before)) return
      // As a browser: the secret in the address is swapped for a cookie, then the page is served with it.
      fetch(url, { redirect: "manual" })
        .then((login) => fetch(new URL(login.headers.get("location") ?? "/", url), { headers: { cookie: login.headers.get("set-cookie")!.split(";")[0]! } }))
        .then(
        (res) => {
          status = res.status
          child.kill("SIGINT")
        },
        (e: unknown) => {
          stderr += String(e)
          child.kill("SIGINT")
        }
      )
    })
    child.on("error", reject)
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve({ line, status, code, stderr })
    })
  })

describe("the README's command lines", () => {
  const temp = makeTempDir("awhm-readme-")
  const bin = path.join(temp.dir, "bin")
  const dataDir = path.join(temp.dir, "data")
  fs.mkdirSync(bin)
  for (const [name, file] of [["awhm", "awhm.mjs"], ["awhm-mcp", "awhm-mcp.mjs"]] as const) {
    fs.writeFileSync(path.join(bin, name), `#!/bin/sh\nexec "${process.execPath}" "${path.join(ROOT, "dist", file)}" "$@"\n`, { mode: 0o755 })
  }
  const env: NodeJS.ProcessEnv = {}
  // No awhm configuration and no Claude Code of whoever runs the tests: `awhm hook install` writes the temp HOME's settings.
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("AWHM_") && !k.startsWith("CLAUDE")) env[k] = v
  Object.assign(env, { PATH: `${bin}:${process.env.PATH}`, HOME: temp.dir, AWHM_EMBEDDER: "mock", AWHM_HOOK_SERVER: "0", AWHM_DATA_DIR: dataDir })

  afterAll(() => temp.cleanup())

  it("every `awhm …` line runs through the real bin and succeeds, in the README's order", { timeout: 600_000 }, async () => {
    // In the temp HOME, outside any repository: `awhm hook install` writes the temp HOME's Claude Code settings,
    // and `awhm doctor` checks them (the user's and the project's settings are then one file).
    const lines = bashLines().filter((l) => l.startsWith("awhm "))
    expect(lines.length).toBeGreaterThanOrEqual(10)
    expect(lines.slice(0, 2)).toEqual(["awhm hook install", "awhm doctor"])
    for (const line of lines) {
      if (line.startsWith("awhm ui")) {
        // A server until Ctrl-C: it prints its address, the address answers, and an interrupt ends it cleanly.
        const served = await serveUntilAnswered(line, env)
        expect(served).toEqual({ line, status: 200, code: 0, stderr: "" })
        continue
      }
      const r = await runLine(line, env, temp.dir)
      expect({ line, code: r.code, stderr: r.stderr }).toEqual({ line, code: 0, stderr: "" })
      expect(r.stdout).not.toBe("")
    }
    const settings = JSON.parse(fs.readFileSync(path.join(temp.dir, ".claude", "settings.json"), "utf8")) as {
      hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>>
    }
    expect(Object.fromEntries(Object.entries(settings.hooks).map(([event, groups]) => [event, groups.flatMap((g) => g.hooks.map((h) => h.command))]))).toEqual({
      SessionStart: [`${bin}/awhm hook session-start`],
      UserPromptSubmit: [`${bin}/awhm hook prompt`],
      Stop: [`${bin}/awhm hook stop`],
      SessionEnd: [`${bin}/awhm hook session-end`]
    })
  })

  it("each `claude mcp add` line names the server before its options take lists, and starts awhm-mcp", async () => {
    const lines = bashLines().filter((l) => l.startsWith("claude mcp add "))
    expect(lines.length).toBe(2)
    for (const line of lines) {
      const added = parseClaudeMcpAdd(shellWords(line.slice("claude mcp add ".length), env))
      expect(added).toMatchObject({ name: "awhm", command: "awhm-mcp", args: [], options: { transport: "stdio" } })
      const client = new Client({ name: "readme-test", version: "1.0.0" })
      await client.connect(
        new StdioClientTransport({ command: added.command!, args: added.args, env: { ...env, ...added.env } as Record<string, string> })
      )
      expect(client.getServerVersion()?.name).toBe("awhm")
      expect((await client.callTool({ name: "memory_status" })).isError).toBe(false)
      await client.close()
    }
    const withEnv = parseClaudeMcpAdd(shellWords(lines[1]!.slice("claude mcp add ".length), env))
    expect(withEnv.env).toEqual({ AWHM_DATA_DIR: path.join(temp.dir, "notes", "memory") })
  })

  it("the .mcp.json block starts the server as configured", async () => {
    const block = /```json\n(\{\n {2}"mcpServers"[\s\S]*?)```/.exec(README)![1]!
    const server = (JSON.parse(block) as { mcpServers: Record<string, { command: string; args: Array<string>; env: Record<string, string> }> })
      .mcpServers.awhm!
    const client = new Client({ name: "readme-test", version: "1.0.0" })
    // "~/.awhm" as Claude Code passes it: awhm-mcp expands the tilde (HOME is the temp dir here).
    await client.connect(new StdioClientTransport({ command: server.command, args: server.args, env: { ...env, ...server.env } as Record<string, string> }))
    const { tools } = await client.listTools()
    expect(tools.length).toBe(6)
    const logged = await client.callTool({ name: "memory_log", arguments: { role: "user", content: "The README test was here" } })
    expect(logged.isError).toBe(false)
    await client.close()
    expect(fs.readdirSync(path.join(temp.dir, ".awhm", "logs")).length).toBe(1)
  })
})
