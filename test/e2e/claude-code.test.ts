import * as fs from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { dataPaths } from "../../src/store/paths.js"
import { type CliResult, makeTempDir } from "../support/cli.js"
import { HEADER, runHook, startHookServer, type TestHookServer, waitFor } from "../support/hookServer.js"

// A Claude Code session as Claude Code drives the hooks: the real bin, one process per event, a temp
// data directory, the payloads Claude Code sends on stdin. Twice: every hook doing its own work, and
// prompt and stop answered by the hook server (session-end always hands its work to a process of its own).

const SHOP = "/home/me/shop"

describe.each([
  { mode: "each hook in its own process", server: false },
  { mode: "prompt and stop answered by the hook server", server: true }
])("Claude Code hooks, end to end: $mode", ({ server }) => {
  const temp = makeTempDir("awhm-e2e-")
  let hookServer: TestHookServer | null = null
  beforeAll(async () => {
    if (server) hookServer = await startHookServer(temp.dir)
  })
  afterAll(async () => {
    if (hookServer !== null) expect(await hookServer.stop()).toBe(0)
    temp.cleanup()
  })

  /** Runs a hook; through the server, checks that the server answered (and drops that debug line). */
  const hook = (event: string, payload: object, env: Record<string, string> = {}, args: ReadonlyArray<string> = []): Promise<CliResult> =>
    runHook(server, event, payload, { dataDir: temp.dir, env, args })

  const prompt = (sessionId: string, text: string, cwd = SHOP, env: Record<string, string> = {}, args: ReadonlyArray<string> = []) =>
    hook("prompt", { session_id: sessionId, transcript_path: "/nonexistent.jsonl", cwd, hook_event_name: "UserPromptSubmit", prompt: text }, env, args)

  /** The additionalContext lines of a prompt hook's stdout (null when it printed nothing). */
  const contextLines = (stdout: string): Array<string> | null => {
    if (stdout === "") return null
    const out = JSON.parse(stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } }
    expect(out.hookSpecificOutput.hookEventName).toBe("UserPromptSubmit")
    expect(stdout).toBe(JSON.stringify(out) + "\n")
    return out.hookSpecificOutput.additionalContext.split("\n")
  }

    it("a session is logged, consolidated at its end, and recalled in the next session", async () => {
      // Session one: nothing is known yet, so nothing is injected.
      const first = await prompt("sess-1", "Our staging database is PostgreSQL 16 on db-stage-2. Can you set up the migrations?")
      expect(first).toEqual({ code: 0, stdout: "", stderr: "" })

      const reply = { session_id: "sess-1", cwd: SHOP, hook_event_name: "Stop", stop_hook_active: false, last_assistant_message: "I set up the migrations for PostgreSQL 16 on db-stage-2." }
      expect(await hook("stop", reply)).toEqual({ code: 0, stdout: "", stderr: "" })
      expect(await hook("stop", reply)).toEqual({ code: 0, stdout: "", stderr: "" }) // a double fire

      const second = await prompt("sess-1", "Also, I prefer pnpm over npm.")
      expect(second).toEqual({ code: 0, stdout: "", stderr: "" })

      const paths = dataPaths(temp.dir)
      const log = fs.readFileSync(paths.logFile("claude-sess-1"), "utf8").trim().split("\n").map((l) => JSON.parse(l))
      expect(log.map((e) => [e.index, e.role, e.content, e.metadata])).toEqual([
        [0, "user", "Our staging database is PostgreSQL 16 on db-stage-2. Can you set up the migrations?", { scope: SHOP }],
        [1, "assistant", "I set up the migrations for PostgreSQL 16 on db-stage-2.", { scope: SHOP }],
        [2, "user", "Also, I prefer pnpm over npm.", { scope: SHOP }]
      ])
      expect(fs.existsSync(paths.walFile("claude-sess-1"))).toBe(true)

      // The hook returns at once; a detached process consolidates and records the outcome.
      const end = await hook("session-end", { session_id: "sess-1", cwd: SHOP, hook_event_name: "SessionEnd", reason: "exit" })
      expect(end).toEqual({ code: 0, stdout: "", stderr: "" })
      await waitFor("the detached consolidation", () => fs.existsSync(paths.sessionEndLog) && fs.readFileSync(paths.sessionEndLog, "utf8").endsWith("\n"))
      expect(fs.readFileSync(paths.sessionEndLog, "utf8")).toMatch(/^\S+Z claude-sess-1 consolidated 2 new memories\n$/)
      expect(fs.existsSync(paths.walFile("claude-sess-1"))).toBe(false)

      // Session two, same project: the fact comes back, the question itself does not.
      const recall = await prompt("sess-2", "Which database does staging use?")
      expect(recall.code).toBe(0)
      expect(recall.stderr).toBe("")
      expect(contextLines(recall.stdout)).toEqual([
        HEADER,
        "- Our staging database is PostgreSQL 16 on db-stage-2.",
        "- I set up the migrations for PostgreSQL 16 on db-stage-2."
      ])
      const again = await prompt("sess-2", "Which database does staging use?")
      expect(contextLines(again.stdout)).toEqual(contextLines(recall.stdout))

      const pnpm = await prompt("sess-2", "Which package manager do I prefer?")
      expect(contextLines(pnpm.stdout)).toEqual([HEADER, "- I prefer pnpm over npm."])
    })

    it("memories stay with their project unless scope_mode is global", async () => {
      const elsewhere = await prompt("sess-3", "Which database does staging use?", "/home/me/blog")
      expect(elsewhere).toEqual({ code: 0, stdout: "", stderr: "" })
      const global = await prompt("sess-4", "Which database does staging use?", "/home/me/blog", { AWHM_SCOPE: "global" })
      expect(contextLines(global.stdout)?.[1]).toBe("- Our staging database is PostgreSQL 16 on db-stage-2.")
    })

    it("the injected context is bounded and honours -k", async () => {
      // 120 characters: the first memory fits, the room left for the second is too small to be useful.
      const fits = await prompt("sess-5", "Which database does staging use?", SHOP, { AWHM_HOOK_CONTEXT_CHARS: "120" })
      expect(contextLines(fits.stdout)).toEqual([HEADER, "- Our staging database is PostgreSQL 16 on db-stage-2."])
      // 100 characters: the first memory is cut at a word.
      const cut = await prompt("sess-5", "Which database does staging use?", SHOP, { AWHM_HOOK_CONTEXT_CHARS: "100" })
      const lines = contextLines(cut.stdout)!
      expect(lines).toEqual([HEADER, "- Our staging database is PostgreSQL 16 on…"])
      expect(lines.join("\n").length).toBeLessThanOrEqual(100)
      const one = await prompt("sess-5", "Which database does staging use?", SHOP, {}, ["-k", "1"])
      expect(contextLines(one.stdout)).toEqual([HEADER, "- Our staging database is PostgreSQL 16 on db-stage-2."])
    })

    it("--semantic ranks with the embedder too", async () => {
      const semantic = await prompt("sess-6", "Which database does staging use?", SHOP, {}, ["--semantic"])
      expect(semantic.code).toBe(0)
      expect(semantic.stderr).toBe("")
      expect(contextLines(semantic.stdout)?.[1]).toBe("- Our staging database is PostgreSQL 16 on db-stage-2.")
    })
})
