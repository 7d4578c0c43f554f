import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { expect } from "@effect/vitest"
import { hookSocketDir } from "../../src/store/hookSocket.js"
import { BIN, type CliResult, ROOT, runAwhm } from "./cli.js"

/** The first line of the prompt hook's additionalContext. */
export const HEADER = "Relevant memories from previous sessions (from awhm):"
/** What a hook says on stderr with AWHM_HOOK_DEBUG=1 when the hook server answered it. */
export const SERVED = "awhm hook: answered by the hook server\n"
/** What the session-end hook says then: its work went to a process of its own. */
export const HANDED_OFF = "awhm hook: handed session-end to a detached process\n"

/**
 * Runs `awhm hook EVENT` with `payload` on stdin, on its own or (`server`) with the hook server on; then it
 * checks that the hook said who answered (prompt and stop: the server; session-end: a detached process)
 * and leaves that line out of the result.
 */
export const runHook = async (
  server: boolean,
  event: string,
  payload: object,
  options: { readonly dataDir: string; readonly env?: Record<string, string>; readonly args?: ReadonlyArray<string> }
): Promise<CliResult> => {
  const env = { ...options.env, ...(server ? { AWHM_HOOK_SERVER: "1", AWHM_HOOK_DEBUG: "1" } : {}) }
  const r = await runAwhm(["hook", event, ...(options.args ?? [])], { dataDir: options.dataDir, env, input: JSON.stringify(payload) })
  if (!server) return r
  const said = event === "session-end" ? HANDED_OFF : event === "prompt" || event === "stop" ? SERVED : ""
  expect(r.stderr.startsWith(said)).toBe(true)
  return { ...r, stderr: r.stderr.slice(said.length) }
}

/** A hook server started by a test, in the foreground (its stderr kept), stopped by the test. */
export interface TestHookServer {
  readonly child: ChildProcess
  readonly stderr: () => string
  /** Resolves with the exit code once the process has ended. */
  readonly exited: Promise<number | null>
  /** `awhm hook shutdown`, then waits for the process to end. */
  readonly stop: () => Promise<number | null>
}

/** The hook server's socket files of a data dir. */
export const hookSockets = (dataDir: string): Array<string> => {
  const dir = hookSocketDir(dataDir)
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith(".sock")).map((f) => path.join(dir, f)) : []
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Polls `check` every 20 ms until it holds (fails after `timeoutMs`). */
export const waitFor = async (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> => {
  const started = Date.now()
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`)
    await sleep(20)
  }
}

/** Runs `awhm hook serve` on `dataDir` and waits until its socket is there. */
export const startHookServer = async (
  dataDir: string,
  options: { readonly idleSeconds?: number; readonly env?: Record<string, string> } = {}
): Promise<TestHookServer> => {
  const env: Record<string, string | undefined> = { ...process.env, AWHM_EMBEDDER: "mock", ...options.env, AWHM_DATA_DIR: dataDir }
  delete env.AWHM_HOOK_ACTIVE
  for (const k of Object.keys(env)) if (k.startsWith("CLAUDE") && !(k in (options.env ?? {}))) delete env[k]
  const args = [BIN, "hook", "serve", "--idle-seconds", String(options.idleSeconds ?? 300)]
  const child = spawn(process.execPath, args, { env, cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] })
  let stderr = ""
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d))
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
  let ended = false
  void exited.then(() => (ended = true))
  await waitFor("the hook server's socket", () => ended || hookSockets(dataDir).length > 0)
  if (ended) throw new Error(`the hook server exited at once: ${stderr}`)
  return {
    child,
    stderr: () => stderr,
    exited,
    stop: async () => {
      if (!ended) await runAwhm(["hook", "shutdown"], { dataDir })
      return exited
    }
  }
}
