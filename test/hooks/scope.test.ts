import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { dataPaths } from "../../src/store/paths.js"
import { makeTempDir } from "../support/cli.js"
import { HEADER, runHook, startHookServer, type TestHookServer } from "../support/hookServer.js"

// Which project a hook's messages belong to, through the real bin, run by itself and through the hook
// server: Claude Code's project directory, else the payload's cwd, raised to the top of its git repository.

const FACT = "Our staging database is PostgreSQL 16 on db-stage-2."

describe.each([
  { mode: "each hook in its own process", server: false },
  { mode: "through the hook server", server: true }
])("hook scope: $mode", ({ server }) => {
  const temp = makeTempDir("awhm-scope-")
  const data = path.join(temp.dir, "data")
  const repo = path.join(temp.dir, "shop")
  const sub = path.join(repo, "packages", "api")
  const plain = path.join(temp.dir, "notes")
  let hookServer: TestHookServer | null = null
  beforeAll(async () => {
    fs.mkdirSync(sub, { recursive: true })
    fs.mkdirSync(path.join(plain, "drafts"), { recursive: true })
    fs.mkdirSync(data)
    execFileSync("git", ["init", "-q", repo])
    if (server) hookServer = await startHookServer(data)
  })
  afterAll(async () => {
    if (hookServer !== null) expect(await hookServer.stop()).toBe(0)
    temp.cleanup()
  })

  const hook = async (event: string, payload: object, env: Record<string, string> = {}) => {
    const r = await runHook(server, event, payload, { dataDir: data, env })
    expect(r.code).toBe(0)
    expect(r.stderr).toBe("")
    return r.stdout
  }
  const logged = (sessionId: string) =>
    fs.readFileSync(dataPaths(data).logFile(sessionId), "utf8").trim().split("\n")
      .map((l) => JSON.parse(l) as { role: string; content: string; metadata: object })
      .map((l) => [l.role, l.content, l.metadata])

  it("a session started in a subfolder, or a cd during a turn, is logged under the repository's top", async () => {
    expect(await hook("prompt", { session_id: "a", cwd: sub, prompt: FACT })).toBe("")
    // Claude Code's project dir wins over the cwd of a `cd` inside the turn.
    await hook("stop", { session_id: "a", cwd: path.join(sub, "src"), last_assistant_message: "Noted." }, { CLAUDE_PROJECT_DIR: sub })
    expect(logged("claude-a")).toEqual([
      ["user", FACT, { scope: repo }],
      ["assistant", "Noted.", { scope: repo }]
    ])
  })

  it("Claude Code started at the repository's top recalls what was said in its subfolder", async () => {
    const out = await hook("prompt", { session_id: "b", cwd: repo, prompt: "Which database does staging use?" }, { CLAUDE_PROJECT_DIR: repo })
    expect(JSON.parse(out)).toEqual({ hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: `${HEADER}\n- ${FACT}` } })
  })

  it("outside git the project is CLAUDE_PROJECT_DIR, else the cwd; another project recalls nothing", async () => {
    await hook("prompt", { session_id: "c", cwd: path.join(plain, "drafts"), prompt: "My notes are in Markdown." }, { CLAUDE_PROJECT_DIR: plain })
    await hook("prompt", { session_id: "c", cwd: path.join(plain, "drafts"), prompt: "The drafts folder is for blog posts." })
    expect(logged("claude-c").map((l) => l[2])).toEqual([{ scope: plain }, { scope: path.join(plain, "drafts") }])
    expect(await hook("prompt", { session_id: "d", cwd: plain, prompt: "Which database does staging use?" })).toBe("")
  })

  it("without a session id in the payload, Claude Code's CLAUDE_CODE_SESSION_ID names the session", async () => {
    await hook("prompt", { cwd: repo, prompt: "I prefer pnpm over npm." }, { CLAUDE_CODE_SESSION_ID: "env-session" })
    expect(logged("claude-env-session")).toEqual([["user", "I prefer pnpm over npm.", { scope: repo }]])
  })
})
