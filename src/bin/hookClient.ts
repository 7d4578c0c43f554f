import { buildId } from "../runtime/buildId.js"
import { askHookServer, hookEnv, hookSocketPath, MAX_REQUEST_BYTES, privateSocketDir } from "../store/hookSocket.js"
import { resolveDataDir } from "../store/paths.js"
import { readProcessStdin } from "../runtime/stdin.js"
import { parseHookArgv } from "../hooks/argv.js"
import { PAYLOAD_ERROR, payloadObject } from "../hooks/payloadJson.js"

// The bin ends the process with it once the reply is written (the client file carries it, so the bin imports no chunk).
export { exitWhenFlushed } from "../runtime/exitWhenFlushed.js"

/** Runs the hook in this process (`stdin`: the payload, when already read); the bin passes it in. */
export type InProcessHook = (args: ReadonlyArray<string>, stdin?: string) => Promise<void>

// `awhm hook prompt|stop` on every turn of an agent: ask the data dir's hook server, which has the graph
// and the indexes in memory, and only when none is running do the work here (and start one for the
// next prompt). Plain Node: loading Effect would cost more than the server saves. The build ships it as one
// small CommonJS file (dist/awhm-hook-client.cjs); what only some runs need is loaded when needed
// (child_process, and the in-process hook, which the bin lends).

/** Below the 20 s Claude Code is told to give the hook (`awhm hook settings`), so the hook says why itself. */
const REPLY_TIMEOUT_MS = 15_000

const debug = (line: string) => {
  if (process.env.AWHM_HOOK_DEBUG) process.stderr.write(`awhm hook: ${line}\n`)
}

/** Starts `awhm hook serve` detached from this process (and from Claude Code's pipes). */
const startServer = async (dataDir: string) => {
  try {
    const bin = process.argv[1]
    if (bin === undefined) return
    const { spawn } = await import("node:child_process")
    const child = spawn(process.execPath, [bin, "hook", "serve", "--data-dir", dataDir], {
      detached: true,
      stdio: "ignore",
      // Not the project's directory: a long-lived process should not keep it busy.
      cwd: "/",
      env: process.env
    })
    child.on("error", () => {})
    child.unref()
    debug("started the hook server")
  } catch {
    // The server is an optimisation: the next prompt runs in-process again.
  }
}

/**
 * Session end: `/clear` and `/exit` wait for this hook, and consolidation takes seconds. So the payload goes
 * to `awhm hook session-end --wait` in a process of its own, detached from Claude Code's, and the hook
 * returns. False when that process could not be started (the caller then consolidates itself).
 */
const handOffSessionEnd = async (args: ReadonlyArray<string>, stdin: string): Promise<boolean> => {
  const bin = process.argv[1]
  if (bin === undefined) return false
  try {
    const { spawn } = await import("node:child_process")
    const child = spawn(process.execPath, [bin, "hook", ...args, "--wait"], {
      detached: true,
      stdio: ["pipe", "ignore", "ignore"],
      cwd: "/",
      env: process.env
    })
    const started = await new Promise<boolean>((resolve) => {
      child.once("spawn", () => resolve(true))
      child.once("error", () => resolve(false))
    })
    if (!started) return false
    // The payload is small: once written to the pipe it is the child's, whatever becomes of this process.
    await new Promise<void>((resolve) => {
      child.stdin!.on("error", () => resolve())
      child.stdin!.end(stdin, () => resolve())
    })
    child.unref()
    debug("handed session-end to a detached process")
    return true
  } catch {
    return false
  }
}

/** Runs `awhm hook <args>` (the arguments after `hook`), through the hook server when it can. */
export const runHook = async (args: ReadonlyArray<string>, runHookInProcess: InProcessHook): Promise<void> => {
  const { args: parsed, problems } = parseHookArgv(args)
  if (parsed?.event === "session-end" && parsed.wait !== true && !process.env.AWHM_HOOK_ACTIVE) {
    for (const problem of problems) process.stderr.write(`awhm hook error: ${problem}\n`)
    const stdin = await readProcessStdin()
    const payload = payloadObject(stdin)
    if (payload === null) return
    if (payload === "invalid") {
      process.stderr.write(`awhm hook error: ${PAYLOAD_ERROR}\n`)
      return
    }
    if (await handOffSessionEnd(args, stdin)) return
    return runHookInProcess(args, stdin)
  }
  const build = buildId
  const served =
    parsed !== null &&
    (parsed.event === "prompt" || parsed.event === "stop") &&
    !process.env.AWHM_HOOK_ACTIVE &&
    process.env.AWHM_HOOK_SERVER !== "0"
  if (!served || build === null) return runHookInProcess(args)
  const stdin = await readProcessStdin()
  const dataDir = resolveDataDir(parsed.dataDir, process.env)
  const socketPath = hookSocketPath(dataDir, build)
  // A payload the server would refuse is run here (where an over-long prompt is stored cut).
  const reply =
    privateSocketDir(dataDir) && Buffer.byteLength(stdin) < MAX_REQUEST_BYTES - 64 * 1024
      ? await askHookServer(dataDir, socketPath, { argv: args, env: hookEnv(process.env), stdin }, REPLY_TIMEOUT_MS)
      : "unavailable"
  if (reply === "unproven") {
    process.stderr.write(`awhm hook: ${socketPath} did not prove it is this data dir's hook server; not using it\n`)
  } else if (reply !== "unavailable") {
    debug("answered by the hook server")
    process.stdout.write(reply.stdout)
    process.stderr.write(reply.stderr)
    process.exitCode = 0
    return
  }
  debug("no hook server; running in this process")
  await runHookInProcess(args, stdin)
  if (reply === "unavailable") await startServer(dataDir)
}
