import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "@effect/vitest"
import { dataPaths } from "../../src/store/paths.js"
import { listFiles, makeTempDir, ROOT, runAwhm } from "../support/cli.js"

// Hook edge cases through the real bin: a hook never blocks Claude Code (exit 0 always, problems are
// one stderr line), and never writes anything it was not asked to.

const GARBAGE = "awhm hook error: stdin is not a JSON object (expected Claude Code's hook payload)\n"
const temps: Array<() => void> = []
const tempDir = () => {
  const t = makeTempDir("awhm-hook-")
  temps.push(t.cleanup)
  return t.dir
}
afterEach(() => temps.splice(0).forEach((c) => c()))

const logLines = (dir: string, sessionId: string) => {
  const file = dataPaths(dir).logFile(sessionId)
  return fs.existsSync(file)
    ? fs.readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { role: string; content: string; metadata: object })
    : []
}

describe("awhm hook (edge cases)", () => {
  it("garbage stdin: exit 0, nothing on stdout, one line on stderr, nothing written", async () => {
    const dir = tempDir()
    for (const event of ["prompt", "stop", "session-end"]) {
      expect(await runAwhm(["hook", event], { dataDir: dir, input: "this is not json {" })).toEqual({
        code: 0,
        stdout: "",
        stderr: GARBAGE
      })
    }
    expect(await runAwhm(["hook", "prompt"], { dataDir: dir, input: "[1, 2, 3]" })).toEqual({ code: 0, stdout: "", stderr: GARBAGE })
    expect(listFiles(dir)).toEqual([])
  })

  it("empty stdin or an empty prompt: exit 0 and complete silence", async () => {
    const dir = tempDir()
    for (const event of ["prompt", "stop", "session-end"]) {
      expect(await runAwhm(["hook", event], { dataDir: dir, input: "" })).toEqual({ code: 0, stdout: "", stderr: "" })
    }
    const blank = JSON.stringify({ session_id: "s", prompt: "   " })
    expect(await runAwhm(["hook", "prompt"], { dataDir: dir, input: blank })).toEqual({ code: 0, stdout: "", stderr: "" })
    expect(listFiles(dir).filter((f) => f.startsWith("logs/"))).toEqual([])
  })

  it("AWHM_HOOK_ACTIVE: every hook but settings does nothing", async () => {
    const dir = tempDir()
    const env = { AWHM_HOOK_ACTIVE: "1" }
    const payload = JSON.stringify({ session_id: "s", prompt: "My name is Alice", last_assistant_message: "Hi Alice" })
    for (const event of ["prompt", "stop", "session-end"]) {
      expect(await runAwhm(["hook", event], { dataDir: dir, env, input: payload })).toEqual({ code: 0, stdout: "", stderr: "" })
    }
    expect(listFiles(dir)).toEqual([])
    const settings = await runAwhm(["hook", "settings", "--command", "awhm"], { dataDir: dir, env })
    expect(settings.code).toBe(0)
    expect(JSON.parse(settings.stdout).hooks.Stop[0].hooks[0].command).toBe("awhm hook stop")
  })

  it("stop fired twice for one reply logs it once", async () => {
    const dir = tempDir()
    const payload = JSON.stringify({ session_id: "abc", cwd: "/home/me/proj", hook_event_name: "Stop", last_assistant_message: "Done: tests pass." })
    for (let i = 0; i < 2; i++) {
      expect(await runAwhm(["hook", "stop"], { dataDir: dir, input: payload })).toEqual({ code: 0, stdout: "", stderr: "" })
    }
    expect(logLines(dir, "claude-abc").map((l) => [l.role, l.content, l.metadata])).toEqual([
      ["assistant", "Done: tests pass.", { scope: "/home/me/proj" }]
    ])
  })

  it("stop reads the transcript when the payload has no last_assistant_message", async () => {
    const dir = tempDir()
    const transcript = path.join(dir, "transcript.jsonl")
    fs.writeFileSync(
      transcript,
      JSON.stringify({ type: "assistant", message: { role: "assistant", content: [{ type: "text", text: "Fixed the build." }] } }) + "\n"
    )
    const payload = JSON.stringify({ session_id: "t", transcript_path: transcript })
    expect((await runAwhm(["hook", "stop"], { dataDir: dir, input: payload })).code).toBe(0)
    expect(logLines(dir, "claude-t").map((l) => l.content)).toEqual(["Fixed the build."])
  })

  it("settings prints Claude Code's hooks block; the command defaults to the awhm on PATH", async () => {
    const dir = tempDir()
    const bin = path.join(dir, "bin")
    fs.mkdirSync(bin)
    fs.writeFileSync(path.join(bin, "awhm"), "#!/bin/sh\n", { mode: 0o755 })
    const found = await runAwhm(["hook", "settings"], { env: { PATH: `${bin}${path.delimiter}/nonexistent` } })
    expect(found.code).toBe(0)
    expect(found.stderr).toBe("")
    expect(JSON.parse(found.stdout)).toEqual({
      hooks: {
        SessionStart: [{ hooks: [{ type: "command", command: `${bin}/awhm hook session-start`, timeout: 20 }] }],
        UserPromptSubmit: [{ hooks: [{ type: "command", command: `${bin}/awhm hook prompt`, timeout: 20 }] }],
        Stop: [{ hooks: [{ type: "command", command: `${bin}/awhm hook stop`, timeout: 20 }] }],
        SessionEnd: [{ hooks: [{ type: "command", command: `${bin}/awhm hook session-end`, timeout: 60 }] }]
      }
    })
    const plain = await runAwhm(["hook", "settings"], { env: { PATH: "/nonexistent" } })
    expect(JSON.parse(plain.stdout).hooks.UserPromptSubmit[0].hooks[0].command).toBe("awhm hook prompt")
  })

  it("bad arguments and configuration are reported, never a non-zero exit", async () => {
    const dir = tempDir()
    const payload = JSON.stringify({ session_id: "s", prompt: "hello there" })
    expect(await runAwhm(["hook", "nonsense"], { dataDir: dir, input: payload })).toEqual({
      code: 0,
      stdout: "",
      stderr: "awhm hook error: unknown hook 'nonsense' (expected one of: session-start, prompt, stop, session-end, settings, serve, shutdown)\n"
    })
    const badK = await runAwhm(["hook", "prompt", "-k", "many"], { dataDir: dir, input: payload })
    expect(badK).toMatchObject({ code: 0, stderr: "awhm hook error: -k expects a whole number >= 1, got 'many'\n" })
    const badConfig = await runAwhm(["hook", "prompt"], { dataDir: dir, input: payload, env: { AWHM_HOOK_CONTEXT_CHARS: "lots" } })
    expect(badConfig.code).toBe(0)
    expect(badConfig.stdout).toBe("")
    expect(badConfig.stderr).toMatch(/^awhm hook error: invalid configuration: .*hook_context_chars.*\n$/)
  })

  it("a damaged graph costs the recall, not the prompt: it is still logged", async () => {
    const dir = tempDir()
    fs.mkdirSync(path.join(dir, "graph"), { recursive: true })
    fs.writeFileSync(path.join(dir, "graph", "memory_graph.sqlite"), "this is not a database")
    const r = await runAwhm(["hook", "prompt"], { dataDir: dir, input: JSON.stringify({ session_id: "d", prompt: "My name is Alice" }) })
    expect(r.code).toBe(0)
    expect(r.stdout).toBe("")
    expect(r.stderr).toMatch(/^awhm hook error: [^\n]+\n$/)
    expect(logLines(dir, "claude-d").map((l) => l.content)).toEqual(["My name is Alice"])
  })

  it("warnings go to stderr: stdout stays what Claude Code reads", async () => {
    const dir = tempDir()
    fs.mkdirSync(path.join(dir, "wal"), { recursive: true })
    fs.writeFileSync(dataPaths(dir).walFile("claude-w"), "not a WAL")
    const r = await runAwhm(["hook", "prompt"], { dataDir: dir, input: JSON.stringify({ session_id: "w", prompt: "My name is Alice" }) })
    expect(r.code).toBe(0)
    expect(r.stdout).toBe("")
    expect(r.stderr).toBe(`awhm hook warn: ignored a damaged session buffer WAL ${dataPaths(dir).walFile("claude-w")}; it will be rewritten\n`)
  })

  it("earlier questions and requests are not injected as memories; statements and rules are", async () => {
    const dir = tempDir()
    const payload = (sessionId: string, prompt: string) => JSON.stringify({ session_id: sessionId, cwd: "/home/me/shop", prompt })
    for (const prompt of [
      "Which database does staging use?",
      "Can you set up the migrations for the staging database?",
      "Our staging database is PostgreSQL 16.",
      "Please always back up the staging database before a migration."
    ]) expect((await runAwhm(["hook", "prompt"], { dataDir: dir, input: payload("q1", prompt) })).code).toBe(0)
    const reply = JSON.stringify({ session_id: "q1", cwd: "/home/me/shop", last_assistant_message: "Shall I migrate the staging database now?" })
    expect((await runAwhm(["hook", "stop"], { dataDir: dir, input: reply })).code).toBe(0)
    const r = await runAwhm(["hook", "prompt"], { dataDir: dir, input: payload("q2", "Tell me about the staging database") })
    expect(r.stderr).toBe("")
    expect(JSON.parse(r.stdout).hookSpecificOutput.additionalContext.split("\n").slice(1).sort()).toEqual([
      "- Our staging database is PostgreSQL 16.",
      "- Please always back up the staging database before a migration."
    ])
  })

  it("dist/awhm.mjs, the ES module bin that hooks installed by older versions run, answers as the bin on PATH does", async () => {
    const dir = tempDir()
    const payload = (prompt: string) => JSON.stringify({ session_id: "m1", cwd: "/home/me/shop", prompt })
    const mjs = path.join(ROOT, "dist", "awhm.mjs")
    expect(await runAwhm(["hook", "prompt"], { dataDir: dir, input: payload("Our staging database is PostgreSQL 16."), bin: mjs })).toEqual({ code: 0, stdout: "", stderr: "" })
    const asked = payload("Tell me about the staging database")
    const viaMjs = await runAwhm(["hook", "prompt"], { dataDir: dir, input: asked, bin: mjs })
    expect(viaMjs.stderr).toBe("")
    expect(JSON.parse(viaMjs.stdout).hookSpecificOutput.additionalContext).toContain("- Our staging database is PostgreSQL 16.")
    expect(await runAwhm(["hook", "prompt"], { dataDir: dir, input: asked })).toEqual(viaMjs)
    expect((await runAwhm(["--version"], { bin: mjs })).stdout).toBe((await runAwhm(["--version"])).stdout)
  })

  it("each hook event keeps a code cache of its own: a shutdown's does not stand in for a prompt's", async () => {
    const dir = tempDir()
    // A copy of the bins inside the repo (so the bundles' packages resolve), with no cache yet.
    const bins = path.join(ROOT, ".tmp", `hook-cache-${process.pid}`)
    fs.mkdirSync(bins, { recursive: true })
    temps.push(() => fs.rmSync(bins, { recursive: true, force: true }))
    for (const f of ["awhm.cjs", "awhm-hook.cjs", "awhm-hook-client.cjs"]) fs.copyFileSync(path.join(ROOT, "dist", f), path.join(bins, f))
    const bin = path.join(bins, "awhm.cjs")
    const caches = () => fs.readdirSync(bins).filter((f) => f.endsWith(".cache")).map((f) => f.replace(/\.[0-9a-f]{16}\./, ".<build>."))
    expect((await runAwhm(["hook", "shutdown"], { dataDir: dir, bin })).code).toBe(0)
    expect(caches()).toEqual(["awhm-hook.<build>.shutdown.cache"])
    const prompt = JSON.stringify({ session_id: "c1", cwd: "/home/me/shop", prompt: "Our staging database is PostgreSQL 16." })
    expect(await runAwhm(["hook", "prompt"], { dataDir: dir, input: prompt, bin })).toEqual({ code: 0, stdout: "", stderr: "" })
    expect(caches().sort()).toEqual(["awhm-hook.<build>.prompt.cache", "awhm-hook.<build>.shutdown.cache"])
  })

  it("--help goes through the full CLI and lists the hooks", async () => {
    const r = await runAwhm(["hook", "--help"])
    expect(r.code).toBe(0)
    for (const event of ["session-start", "prompt", "stop", "session-end", "settings"]) expect(r.stdout).toContain(event)
  })
})
