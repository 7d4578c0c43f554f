import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "@effect/vitest"
import { PRACTICE_COUNT } from "../../src/hooks/server.js"
import { askHookServer, hookSocketDir } from "../../src/store/hookSocket.js"
import { dataPaths } from "../../src/store/paths.js"
import { BIN, makeTempDir, ROOT, runAwhm } from "../support/cli.js"
import { HEADER, hookSockets, SERVED, startHookServer, waitFor } from "../support/hookServer.js"

// The hook server (`awhm hook serve`) through the real bin: it answers what the hook would answer on its
// own, sees what other processes write, and never outlives its welcome.

const FACT = "Our staging database is PostgreSQL 16 on db-stage-2."

const cleanups: Array<() => void | Promise<unknown>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})
const tempDir = () => {
  const t = makeTempDir("awhm-hooksrv-")
  cleanups.push(t.cleanup)
  return t.dir
}
const serverFor = async (dir: string, options: Parameters<typeof startHookServer>[1] = {}) => {
  const server = await startHookServer(dir, options)
  cleanups.push(() => server.stop())
  return server
}

/** A prompt hook with the server switched on and the debug line that says who answered. */
const prompt = (dir: string, text: string, sessionId = "s-live") =>
  runAwhm(["hook", "prompt"], {
    dataDir: dir,
    env: { AWHM_HOOK_SERVER: "1", AWHM_HOOK_DEBUG: "1" },
    input: JSON.stringify({ session_id: sessionId, cwd: "/p", hook_event_name: "UserPromptSubmit", prompt: text })
  })

const context = (stdout: string): string | null =>
  stdout === "" ? null : (JSON.parse(stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext

/** Logs and consolidates one user message (scope /p, as the hooks tag them); returns the new node ids. */
const remember = async (dir: string, sessionId: string, text: string): Promise<Array<string>> => {
  expect((await runAwhm(["log", "--session", sessionId, "--role", "user", text], { dataDir: dir })).code).toBe(0)
  const r = await runAwhm(["consolidate", "--session", sessionId, "--json"], { dataDir: dir })
  expect(r.code).toBe(0)
  const nodes = await runAwhm(["nodes", "--json"], { dataDir: dir })
  return (JSON.parse(nodes.stdout) as { nodes: Array<{ id: string; sourceSessions: Array<string> }> }).nodes
    .filter((n) => n.sourceSessions.includes(sessionId))
    .map((n) => n.id)
}

/** Whether a server answers on the socket (an empty hook: nothing is logged). */
const answering = async (dir: string): Promise<boolean> => {
  const sockets = hookSockets(dir)
  if (sockets.length === 0) return false
  const reply = await askHookServer(dir, sockets[0]!, { argv: ["prompt"], env: {}, stdin: "" }, 5_000)
  return reply !== "unavailable" && reply !== "unproven"
}

describe("awhm hook serve", () => {
  it("the first prompt runs in-process and starts the server; later ones are answered by it, with the same memories", async () => {
    const dir = tempDir()
    await remember(dir, "s1", FACT)
    const first = await prompt(dir, "Which database does staging use?", "s-a")
    cleanups.push(() => runAwhm(["hook", "shutdown"], { dataDir: dir }))
    expect(first.stderr).toBe("awhm hook: no hook server; running in this process\nawhm hook: started the hook server\n")
    expect(context(first.stdout)).toBe(`${HEADER}\n- ${FACT}`)
    await waitFor("the started server", () => answering(dir))
    const second = await prompt(dir, "Which database does staging use?", "s-b")
    expect(second).toEqual({ code: 0, stdout: first.stdout, stderr: SERVED })
    // Both prompts were logged, once each, by whoever ran them.
    for (const sid of ["claude-s-a", "claude-s-b"]) {
      const lines = fs.readFileSync(dataPaths(dir).logFile(sid), "utf8").trim().split("\n")
      expect(lines.map((l) => JSON.parse(l).content)).toEqual(["Which database does staging use?"])
    }
    const stopped = await runAwhm(["hook", "shutdown"], { dataDir: dir })
    expect(stopped).toEqual({ code: 0, stdout: "", stderr: "awhm: stopped 1 hook server\n" })
    await waitFor("the socket to go", () => hookSockets(dir).length === 0)
  })

  it("an idle server practises questions as a look, not a use: nothing is logged or reinforced, and it answers as before", async () => {
    const dir = tempDir()
    await remember(dir, "s1", FACT)
    const nodes = async () => (await runAwhm(["nodes", "--json"], { dataDir: dir })).stdout
    const before = await nodes()
    const logs = fs.readdirSync(dataPaths(dir).logs).sort()
    const server = await serverFor(dir, { env: { AWHM_HOOK_DEBUG: "1" } })
    // One of the practice questions ("Where did I say the staging database runs?") finds the fact.
    await waitFor("the practice", () => server.stderr().includes(`awhm hook serve: practised ${PRACTICE_COUNT} questions\n`))
    const answered = await prompt(dir, "Which database does staging use?")
    expect(answered).toEqual({ code: 0, stdout: expect.any(String), stderr: SERVED })
    expect(context(answered.stdout)).toBe(`${HEADER}\n- ${FACT}`)
    expect(await server.stop()).toBe(0)
    expect(server.stderr()).toBe(`awhm hook serve: practised ${PRACTICE_COUNT} questions\n`)
    // Only the prompt was logged (its own session), and only what it returned was reinforced.
    expect(fs.readdirSync(dataPaths(dir).logs).sort()).toEqual([...logs, "claude-s-live.jsonl"].sort())
    const counts = (text: string) => (JSON.parse(text) as { nodes: Array<{ accessCount: number }> }).nodes.map((n) => n.accessCount)
    expect(counts(await nodes())).toEqual(counts(before).map((c) => c + 1))
  })

  it("a hard delete stops the warm server first, and what it deleted is never recalled", async () => {
    const dir = tempDir()
    const ids = await remember(dir, "s1", FACT)
    expect(ids.length).toBe(1)
    const server = await serverFor(dir)
    const before = await prompt(dir, "Which database does staging use?")
    expect(before.stderr).toBe(SERVED)
    expect(context(before.stdout)).toBe(`${HEADER}\n- ${FACT}`)
    expect((await runAwhm(["delete", ids[0]!], { dataDir: dir })).code).toBe(0)
    // Stopped by the delete: no process holds the deleted text any more.
    expect(await server.exited).toBe(0)
    const after = await prompt(dir, "Which database does staging use?")
    // The server that prompt started is stopped once it is up (stopping it earlier would race its start).
    cleanups.push(async () => {
      await waitFor("the restarted server", () => answering(dir))
      await runAwhm(["hook", "shutdown"], { dataDir: dir })
    })
    expect(after).toEqual({
      code: 0,
      stdout: "",
      stderr: "awhm hook: no hook server; running in this process\nawhm hook: started the hook server\n"
    })
  })

  it("a snapshot restored by another process is what the warm server answers from", async () => {
    const dir = tempDir()
    // Graph only: the raw log (which a restore leaves alone) would still hold the message.
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(dataPaths(dir).configJson, JSON.stringify({ cold_start_session_count: 0 }))
    await remember(dir, "s1", "I prefer pnpm over npm.")
    const snap = await runAwhm(["snapshot", "create", "--json"], { dataDir: dir })
    const snapshotPath = (JSON.parse(snap.stdout) as { path: string }).path
    await remember(dir, "s2", FACT)
    await serverFor(dir)
    expect(context((await prompt(dir, "Which database does staging use?")).stdout)).toBe(`${HEADER}\n- ${FACT}`)
    expect((await runAwhm(["snapshot", "restore", "--path", snapshotPath], { dataDir: dir })).code).toBe(0)
    expect(await prompt(dir, "Which database does staging use?")).toEqual({ code: 0, stdout: "", stderr: SERVED })
    const pnpm = await prompt(dir, "Which package manager do I prefer?")
    expect(pnpm).toEqual({ code: 0, stdout: expect.any(String), stderr: SERVED })
    expect(context(pnpm.stdout)).toBe(`${HEADER}\n- I prefer pnpm over npm.`)
  })

  it("concurrent hooks are all answered, and every prompt is logged exactly once", async () => {
    const dir = tempDir()
    await remember(dir, "s1", FACT)
    await serverFor(dir)
    const texts = Array.from({ length: 6 }, (_, i) => `Which database does staging use, take ${i}?`)
    const results = await Promise.all(texts.map((t) => prompt(dir, t, "s-many")))
    for (const r of results) {
      expect(r.code).toBe(0)
      expect(r.stderr).toBe(SERVED)
      // The fact first; the other takes, logged meanwhile, may follow.
      expect(context(r.stdout)?.split("\n").slice(0, 2)).toEqual([HEADER, `- ${FACT}`])
    }
    const lines = fs.readFileSync(dataPaths(dir).logFile("claude-s-many"), "utf8").trim().split("\n").map((l) => JSON.parse(l))
    expect(lines.map((l) => l.index)).toEqual([0, 1, 2, 3, 4, 5])
    expect(lines.map((l) => l.content).sort()).toEqual([...texts].sort())
  })

  it("a killed server's socket is taken over: the next prompt runs in-process and starts a new server", async () => {
    const dir = tempDir()
    await remember(dir, "s1", FACT)
    const server = await serverFor(dir)
    server.child.kill("SIGKILL")
    await server.exited
    expect(hookSockets(dir).length).toBe(1) // the dead server's socket is still there
    const r = await prompt(dir, "Which database does staging use?")
    cleanups.push(() => runAwhm(["hook", "shutdown"], { dataDir: dir }))
    expect(r.stderr).toBe("awhm hook: no hook server; running in this process\nawhm hook: started the hook server\n")
    expect(context(r.stdout)).toBe(`${HEADER}\n- ${FACT}`)
    await waitFor("the new server", () => answering(dir))
    expect((await prompt(dir, "Which database does staging use?")).stderr).toBe(SERVED)
  })

  it("one server per data dir: a second `serve` sees the first and leaves", async () => {
    const dir = tempDir()
    await serverFor(dir)
    expect(await runAwhm(["hook", "serve"], { dataDir: dir })).toEqual({
      code: 0,
      stdout: "",
      stderr: "awhm: a hook server is already running for this data dir\n"
    })
    expect(await answering(dir)).toBe(true)
  })

  it("exits when idle, and when its data dir is removed, taking its socket along", async () => {
    const idle = tempDir()
    const server = await serverFor(idle, { idleSeconds: 1 })
    expect(await server.exited).toBe(0)
    expect(hookSockets(idle)).toEqual([])
    expect(server.stderr()).toBe("")

    const t = makeTempDir("awhm-hooksrv-")
    const gone = await serverFor(t.dir)
    await waitFor("the warm-up", () => answering(t.dir))
    t.cleanup()
    expect(await gone.exited).toBe(0)
    expect(fs.existsSync(t.dir)).toBe(false)

    // Started too late (its data dir already removed): it leaves at once and brings nothing back.
    expect(await runAwhm(["hook", "serve"], { dataDir: t.dir })).toEqual({
      code: 0,
      stdout: "",
      stderr: `awhm: no data dir at ${t.dir}; the hook server has nothing to serve\n`
    })
    expect(fs.existsSync(t.dir)).toBe(false)
  })

  it("a long data dir path puts the socket in a private folder under the temp dir", async () => {
    const dir = path.join(tempDir(), "a".repeat(60), "b".repeat(40))
    fs.mkdirSync(dir, { recursive: true })
    await remember(dir, "s1", FACT)
    await serverFor(dir)
    const socketDir = hookSocketDir(dir)
    expect(socketDir.startsWith(path.join(dataPaths(dir).root, "run"))).toBe(false)
    expect(fs.statSync(socketDir).mode & 0o777).toBe(0o700)
    const r = await prompt(dir, "Which database does staging use?")
    expect(r.stderr).toBe(SERVED)
    expect(context(r.stdout)).toBe(`${HEADER}\n- ${FACT}`)
  })

  it("an unreadable request gets an error answer, and the server goes on serving", async () => {
    const dir = tempDir()
    await remember(dir, "s1", FACT)
    await serverFor(dir)
    const reply = await new Promise<string>((resolve, reject) => {
      let data = ""
      const socket = net.createConnection(hookSockets(dir)[0]!, () => socket.end("this is not json\n"))
      socket.on("data", (c) => (data += String(c)))
      socket.on("error", reject)
      socket.on("close", () => resolve(data))
    })
    expect(JSON.parse(reply)).toEqual({ stdout: "", stderr: "awhm hook error: the hook server got an unreadable request\n" })
    expect((await prompt(dir, "Which database does staging use?")).stderr).toBe(SERVED)
  })

  it("AWHM_HOOK_SERVER=0 and AWHM_HOOK_ACTIVE start no server", async () => {
    const dir = tempDir()
    await remember(dir, "s1", FACT)
    const payload = JSON.stringify({ session_id: "s", cwd: "/p", prompt: "Which database does staging use?" })
    const off = await runAwhm(["hook", "prompt"], { dataDir: dir, env: { AWHM_HOOK_SERVER: "0", AWHM_HOOK_DEBUG: "1" }, input: payload })
    expect(context(off.stdout)).toBe(`${HEADER}\n- ${FACT}`)
    expect(off.stderr).toBe("")
    const active = await runAwhm(["hook", "prompt"], { dataDir: dir, env: { AWHM_HOOK_ACTIVE: "1", AWHM_HOOK_DEBUG: "1" }, input: payload })
    expect(active).toEqual({ code: 0, stdout: "", stderr: "" })
    await new Promise((r) => setTimeout(r, 500))
    expect(hookSockets(dir)).toEqual([])
  })

  it("shutdown with no server running says so", async () => {
    expect(await runAwhm(["hook", "shutdown"], { dataDir: tempDir() })).toEqual({
      code: 0,
      stdout: "",
      stderr: "awhm: stopped 0 hook servers\n"
    })
  })

  it("the hook client loads no Effect and no ES module: the bin and the client file it requires are plain Node in CommonJS", () => {
    // What a prompt costs when the server answers is Node's start-up plus these two files.
    // The bin is minified: Effect shows as its global symbols ("effect/…"), which minifying keeps.
    const effect = /node_modules\/effect\/|Symbol\.for\("effect\//
    expect(fs.readFileSync(path.join(path.dirname(BIN), "awhm-cli.cjs"), "utf8")).toMatch(effect)
    // The bin on PATH (package.json) is CommonJS, so Node's ES module loader never starts for a hook.
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { bin: Record<string, string> }
    expect(pkg.bin.awhm).toBe("dist/awhm.cjs")
    const bin = fs.readFileSync(path.join(ROOT, "dist", "awhm.cjs"), "utf8")
    expect(bin).not.toMatch(effect)
    expect(bin).toContain('("./awhm-hook-client.cjs")')
    expect(bin.length).toBeLessThan(8192)
    // Its top-level requires: Node's own modules only (the code-cache loader's load when a bundle does).
    const topLevel = (text: string) => [...new Set([...text.matchAll(/^(?:var|const) \w+ ?= ?(?:\w+\()?require\("([^"]+)"\)/gm)].map((m) => m[1]))].sort()
    expect(topLevel(bin).every((m) => m!.startsWith("node:"))).toBe(true)
    const client = fs.readFileSync(path.join(path.dirname(BIN), "awhm-hook-client.cjs"), "utf8")
    expect(client).toContain("askHookServer")
    expect(client).not.toMatch(effect)
    // Static requires: Node's own modules only (child_process and the in-process hook load when needed).
    expect([...new Set([...client.matchAll(/^var \w+ = (?:__toESM\()?require\("([^"]+)"\)/gm)].map((m) => m[1]))].sort()).toEqual([
      "node:crypto", "node:fs", "node:net", "node:os", "node:path"
    ])
  })
})
