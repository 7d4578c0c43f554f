import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { hookSocketDir } from "../../src/store/hookSocket.js"
import { listFiles, makeTempDir, runAwhm } from "../support/cli.js"
import { HEADER, hookSockets, startHookServer } from "../support/hookServer.js"
import { asOtherUser, makeStickyDir, otherUser } from "../support/otherUser.js"

// The hook socket's fallback folder under the temp dir (`awhm-<uid>/<hash>`, used when the data dir's path
// is too long for a socket) must be this user's at every level, and a hook hands its prompt only to a
// server that proves it knows the data dir's token.

const FACT = "Our staging database is PostgreSQL 16 on db-stage-2."

beforeAll(() => {
  otherUser()
})
const cleanups: Array<() => void | Promise<unknown>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

/** What `awhm doctor` says of the data dir's hook server. */
const serverCheck = async (dir: string, env: Record<string, string>) => {
  const r = await runAwhm(["doctor", "--json"], { dataDir: dir, env: { ...env, AWHM_HOOK_SERVER: "1" } })
  return (JSON.parse(r.stdout) as { checks: Array<{ name: string }> }).checks.find((c) => c.name === "hook server")
}

/** A data dir whose path is too long for a socket, and a sticky temp dir (TMPDIR) both users can write in. */
const setup = async () => {
  const t = makeTempDir("awhm-socksafe-")
  cleanups.push(t.cleanup)
  fs.chmodSync(t.dir, 0o755)
  const tmp = makeStickyDir(path.join(t.dir, "tmp"))
  const dir = path.join(t.dir, "a".repeat(60), "b".repeat(40))
  const env = { TMPDIR: tmp }
  expect((await runAwhm(["log", "--session", "s1", "--role", "user", FACT], { dataDir: dir, env })).code).toBe(0)
  expect((await runAwhm(["consolidate"], { dataDir: dir, env })).code).toBe(0)
  // This process looks for the socket where the bin does.
  const saved = process.env.TMPDIR
  process.env.TMPDIR = tmp
  cleanups.push(() => {
    if (saved === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = saved
  })
  const parent = path.join(tmp, `awhm-${process.getuid!()}`)
  expect(path.dirname(hookSocketDir(dir))).toBe(parent)
  return { dir, tmp, env, parent }
}

const prompt = (dir: string, env: Record<string, string>) =>
  runAwhm(["hook", "prompt"], {
    dataDir: dir,
    env: { ...env, AWHM_HOOK_SERVER: "1", AWHM_HOOK_DEBUG: "1" },
    input: JSON.stringify({ session_id: "s-live", cwd: "/p", hook_event_name: "UserPromptSubmit", prompt: "Which database does staging use?" })
  })

const context = (stdout: string) =>
  (JSON.parse(stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext

describe("the hook socket folder under the temp dir", () => {
  it("a parent folder another user made first is refused: no server binds in it, and the hook answers by itself", async () => {
    const { dir, env, parent } = await setup()
    asOtherUser("mkdir", ["-m", "777", parent])
    const serve = await runAwhm(["hook", "serve", "--idle-seconds", "5"], { dataDir: dir, env: { ...env, AWHM_HOOK_SERVER: "1" } })
    expect(serve.code).toBe(0)
    expect(serve.stderr).toMatch(/^awhm hook error: .*awhm-\d+\/[0-9a-f]{16} is not a private folder of this user's; the hook server will not use it\n$/)
    const r = await prompt(dir, env)
    expect(r.code).toBe(0)
    expect(context(r.stdout)).toBe(`${HEADER}\n- ${FACT}`)
    expect(r.stderr.split("\n")[0]).toBe("awhm hook: no hook server; running in this process")
    expect(listFiles(parent)).toEqual([])
    expect(fs.readdirSync(parent)).toEqual([])
  })

  it("a leaf swapped for a symbolic link to the other user's folder is refused", async () => {
    const { dir, tmp, env, parent } = await setup()
    const theirs = path.join(tmp, "theirs")
    asOtherUser("mkdir", ["-m", "777", theirs])
    fs.mkdirSync(parent, { mode: 0o700 })
    fs.symlinkSync(theirs, hookSocketDir(dir))
    const serve = await runAwhm(["hook", "serve", "--idle-seconds", "5"], { dataDir: dir, env: { ...env, AWHM_HOOK_SERVER: "1" } })
    expect(serve.stderr).toMatch(/is not a private folder of this user's; the hook server will not use it\n$/)
    expect(fs.readdirSync(theirs)).toEqual([])
    const r = await prompt(dir, env)
    expect(context(r.stdout)).toBe(`${HEADER}\n- ${FACT}`)
    expect(fs.readdirSync(theirs)).toEqual([])
  })

  it("a listener that cannot prove the data dir's token never gets the prompt; the hook answers by itself", async () => {
    const { dir, env } = await setup()
    // A real server first, so that the socket folder and the token exist; then an impostor takes its path.
    const real = await startHookServer(dir, { env })
    const [socketPath] = hookSockets(dir)
    // awhm doctor speaks the same handshake: the real server answers it.
    expect(await serverCheck(dir, env)).toEqual({ name: "hook server", ok: true, detail: "running and answering" })
    await real.stop()
    const received: Array<string> = []
    const impostor = net.createServer((socket) => {
      socket.on("data", (d) => {
        received.push(String(d))
        socket.write(JSON.stringify({ proof: "0".repeat(64), nonce: "n" }) + "\n")
      })
      socket.on("error", () => {})
    })
    // The stopped server took its empty folder along; the impostor's is as private as the real one's.
    fs.mkdirSync(path.dirname(socketPath!), { recursive: true, mode: 0o700 })
    fs.rmSync(socketPath!, { force: true })
    await new Promise<void>((resolve, reject) => {
      impostor.once("error", reject)
      impostor.listen(socketPath!, resolve)
    })
    cleanups.push(() => new Promise((resolve) => impostor.close(resolve)))
    const r = await prompt(dir, env)
    expect(r.code).toBe(0)
    expect(context(r.stdout)).toBe(`${HEADER}\n- ${FACT}`)
    expect(r.stderr).toBe(
      `awhm hook: ${socketPath} did not prove it is this data dir's hook server; not using it\n` +
        "awhm hook: no hook server; running in this process\n"
    )
    expect(received.join("")).toMatch(/^\{"hello":"[0-9a-f]{32}"\}\n$/)
    expect(received.join("")).not.toContain("staging")
    expect(await serverCheck(dir, env)).toEqual({
      name: "hook server",
      ok: false,
      detail: `${socketPath} did not prove it is this data dir's hook server, so the hooks do not use it`,
      fix: `stop whatever listens there and remove ${socketPath}`
    })
  })
})
