import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { BIN, ROOT } from "./cli.js"

export interface RunningUi {
  /** The address `awhm ui` printed, secret included. */
  readonly url: string
  readonly origin: string
  readonly port: number
  readonly secret: string
  readonly child: ChildProcessWithoutNullStreams
  /** What the process wrote to stdout and stderr so far. */
  readonly stdout: () => string
  readonly stderr: () => string
  /** Sends SIGTERM (or the signal given) and resolves with the exit code. */
  readonly stop: (signal?: NodeJS.Signals) => Promise<number>
}

const URL_LINE = /(http:\/\/127\.0\.0\.1:(\d+))\/\?s=([A-Za-z0-9_-]+)/

/** Starts `node dist/awhm.mjs ui` on a data dir (mock embedder) and waits for the address it prints. */
export const startUi = (dataDir: string, args: ReadonlyArray<string> = [], env: Record<string, string> = {}): Promise<RunningUi> =>
  new Promise((resolve, reject) => {
    const childEnv: Record<string, string | undefined> = { ...process.env, AWHM_EMBEDDER: "mock", AWHM_HOOK_SERVER: "0", ...env, AWHM_DATA_DIR: dataDir }
    const child = spawn(process.execPath, [BIN, "ui", ...args], { env: childEnv, cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    const exited = new Promise<number>((done) => child.on("close", (code, signal) => done(code ?? (signal === null ? -1 : 128))))
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`awhm ui printed no address within 30 s; stderr: ${stderr}`))
    }, 30_000)
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d))
    let found = false
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d
      const m = URL_LINE.exec(stdout)
      if (m === null || found) return
      found = true
      clearTimeout(timer)
      resolve({
        url: m[0],
        origin: m[1]!,
        port: Number(m[2]),
        secret: m[3]!,
        child,
        stdout: () => stdout,
        stderr: () => stderr,
        stop: (signal: NodeJS.Signals = "SIGTERM") => {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal)
          return exited
        }
      })
    })
    void exited.then((code) => {
      clearTimeout(timer)
      if (!found) reject(new Error(`awhm ui exited (${code}) before printing an address; stderr: ${stderr}`))
    })
  })
