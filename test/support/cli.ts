import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Effect } from "effect"

/** The repository root and the built bin that CLI tests run as a real process. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
export const BIN = process.env.VITEST_AWHM_BIN ?? path.join(ROOT, "dist", "awhm.cjs")

export interface CliResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

export interface CliOptions {
  /** The data directory (AWHM_DATA_DIR). */
  readonly dataDir?: string
  /** Extra environment; AWHM_EMBEDDER defaults to mock. */
  readonly env?: Record<string, string>
  /** Written to stdin, then stdin is closed. */
  readonly input?: string
  readonly timeoutMs?: number
  /** Run as this (other) user, through runuser (the tests run as root). */
  readonly user?: string
  /** The working directory (default: the repository root). */
  readonly cwd?: string
  /** Another script to run instead of BIN (dist/awhm.mjs, the ES module bin older installs name). */
  readonly bin?: string
}

/** Runs `node dist/awhm.cjs ...args` (the bin on PATH) and collects its exit code and output. */
export const runAwhm = (args: ReadonlyArray<string>, options: CliOptions = {}): Promise<CliResult> =>
  new Promise((resolve, reject) => {
    if (process.env.VITEST_AWHM_BUILD_ERROR !== undefined) {
      reject(new Error(`dist/awhm.cjs could not be built: ${process.env.VITEST_AWHM_BUILD_ERROR}`))
      return
    }
    // No hook server unless a test asks for one: a hook must not leave a background process behind.
    const defaults = { AWHM_EMBEDDER: "mock", AWHM_HOOK_SERVER: "0" }
    const env: Record<string, string | undefined> = { ...process.env, ...defaults, ...options.env }
    // Only what the test sets: no stray awhm configuration, and no Claude Code session of whoever runs the tests.
    for (const k of Object.keys(env)) {
      if ((k.startsWith("AWHM_") || k.startsWith("CLAUDE")) && !(k in (options.env ?? {})) && !(k in defaults)) delete env[k]
    }
    if (options.dataDir !== undefined) env.AWHM_DATA_DIR = options.dataDir
    const [command, argv] =
      options.user === undefined
        ? [process.execPath, [options.bin ?? BIN, ...args]]
        : ["runuser", ["-u", options.user, "--", process.execPath, options.bin ?? BIN, ...args]]
    const child = spawn(command, argv, { env, cwd: options.cwd ?? ROOT, stdio: ["pipe", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d))
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d))
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 30_000)
    child.on("error", reject)
    child.on("close", (code, signal) => {
      clearTimeout(timer)
      resolve({ code: code ?? (signal === null ? -1 : 128), stdout, stderr })
    })
    child.stdin.end(options.input ?? "")
  })

/** A fresh temp directory (removed by the returned cleanup). */
export const makeTempDir = (prefix = "awhm-test-"): { readonly dir: string; readonly cleanup: () => void } => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) }
}

/** A temp directory that lives as long as the current scope (for `it.scoped` / `it.effect` tests). */
export const scopedTempDir = (prefix = "awhm-test-") =>
  Effect.acquireRelease(
    Effect.sync(() => makeTempDir(prefix)),
    (t) => Effect.sync(t.cleanup)
  ).pipe(Effect.map((t) => t.dir))

/** Every file under `dir`, relative, sorted (to check that nothing escaped where it should not). */
export const listFiles = (dir: string): Array<string> => {
  const out: Array<string> = []
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name)
      if (e.isDirectory()) walk(p)
      else out.push(path.relative(dir, p))
    }
  }
  if (fs.existsSync(dir)) walk(dir)
  return out.sort()
}
