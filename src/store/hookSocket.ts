import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"

// Where the hook server of a data dir listens, and the one-line JSON protocol between it and the hooks.
// Plain Node on purpose: the hook client runs on every prompt and must not load Effect.

/** Unix socket paths longer than this do not fit in sockaddr_un (108 bytes on Linux, 104 on macOS). */
const MAX_SOCKET_PATH = 100

/** What a hook sends: its arguments after `awhm hook`, its environment (see hookEnv) and its stdin. */
export interface HookRequest {
  readonly argv: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
  readonly stdin: string
}

/** What the server answers: the hook's stdout and stderr, to be written as they are. */
export interface HookReply {
  readonly stdout: string
  readonly stderr: string
}

/**
 * The folder of a data dir's hook sockets: `<data-dir>/run`, or a private folder under the temp dir
 * when that path would be too long for a socket.
 */
export const hookSocketDir = (dataDir: string): string => {
  const inside = path.join(dataDir, "run")
  if (inside.length + "/hook-0123456789abcdef.sock".length <= MAX_SOCKET_PATH) return inside
  const uid = typeof process.getuid === "function" ? process.getuid() : 0
  const id = createHash("sha256").update(dataDir).digest("hex").slice(0, 16)
  return path.join(os.tmpdir(), `awhm-${uid}`, id)
}

/**
 * Whether a socket folder is safe to use: a directory of this user's that nobody else can enter (the
 * temp-dir fallback must not talk to, or be, somebody else's socket).
 */
export const privateSocketDir = (dir: string): boolean => {
  try {
    const st = fs.lstatSync(dir)
    const uid = typeof process.getuid === "function" ? process.getuid() : st.uid
    return st.isDirectory() && st.uid === uid && (st.mode & 0o077) === 0
  } catch {
    return false
  }
}

/**
 * Creates a data dir's socket folder owner-only; false when an existing one is not private, or when the
 * data dir itself is gone (a server must never bring back a data dir that was removed).
 */
export const makeSocketDir = (dataDir: string): boolean => {
  const dir = hookSocketDir(dataDir)
  const inside = dir.startsWith(dataDir + path.sep)
  try {
    fs.mkdirSync(dir, { recursive: !inside, mode: 0o700 })
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") return false
  }
  return privateSocketDir(dir)
}

/** The socket of the hook server built from `buildId` (a server only ever answers hooks of its own build). */
export const hookSocketPath = (dataDir: string, buildId: string): string =>
  path.join(hookSocketDir(dataDir), `hook-${buildId}.sock`)

/** Claude Code's variables a hook reads: where the project is, which session it runs in. */
const CLAUDE_VARS = new Set(["CLAUDE_PROJECT_DIR", "CLAUDE_CODE_SESSION_ID"])

/**
 * The part of an environment a hook reads: the AWHM_* configuration and Claude Code's project and
 * session variables. The hook client sends only these; the server takes only these.
 */
export const hookEnv = (env: Readonly<Record<string, unknown>>): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(env)) if ((k.startsWith("AWHM_") || CLAUDE_VARS.has(k)) && typeof v === "string") out[k] = v
  return out
}

/**
 * Sends one request to the server at `socketPath`. "unavailable" when nothing is listening there (no
 * server, or a dead one's socket): nothing was sent, so the caller may run the hook itself. Once sent,
 * a failure is an answer with one error line, never a second run (the prompt may already be logged).
 */
export const askHookServer = (socketPath: string, request: HookRequest, timeoutMs: number): Promise<HookReply | "unavailable"> =>
  new Promise((resolve) => {
    let connected = false
    let settled = false
    const chunks: Array<Buffer> = []
    const finish = (value: HookReply | "unavailable") => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      resolve(value)
    }
    const failed = (why: string) =>
      finish(connected ? { stdout: "", stderr: `awhm hook error: the hook server ${why}; this prompt got no memories\n` } : "unavailable")
    const socket = net.createConnection(socketPath, () => {
      connected = true
      socket.end(JSON.stringify(request) + "\n")
    })
    const timer = setTimeout(() => failed(`did not answer within ${timeoutMs} ms`), timeoutMs)
    socket.on("data", (chunk: Buffer) => chunks.push(chunk))
    socket.on("error", () => failed("closed the connection"))
    socket.on("close", () => {
      if (!connected) return failed("is not running")
      try {
        const reply = JSON.parse(Buffer.concat(chunks).toString("utf8")) as HookReply
        if (typeof reply.stdout === "string" && typeof reply.stderr === "string") return finish(reply)
      } catch {
        // fall through: a torn answer
      }
      failed("gave an unreadable answer")
    })
  })

/**
 * Asks every hook server of a data dir (any build) to exit; resolves once each has finished its hook in
 * progress and closed its stores. Returns how many there were.
 */
export const shutdownHookServers = async (dataDir: string): Promise<number> => {
  const dir = hookSocketDir(dataDir)
  let names: Array<string>
  try {
    names = fs.readdirSync(dir).filter((f) => f.startsWith("hook-") && f.endsWith(".sock"))
  } catch {
    return 0
  }
  const replies = await Promise.all(
    names.map((f) => askHookServer(path.join(dir, f), { argv: ["shutdown"], env: {}, stdin: "" }, 10_000))
  )
  return replies.filter((r) => r !== "unavailable").length
}

/** Whether something answers on a Unix socket (a socket file alone may be a dead server's). */
export const socketAnswers = (socketPath: string): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = net.createConnection(socketPath, () => {
      socket.destroy()
      resolve(true)
    })
    socket.on("error", () => resolve(false))
  })

/** How many hook servers (of any build) answer for a data dir. */
export const runningHookServers = async (dataDir: string): Promise<number> => {
  const dir = hookSocketDir(dataDir)
  let names: Array<string>
  try {
    names = fs.readdirSync(dir).filter((f) => f.startsWith("hook-") && f.endsWith(".sock"))
  } catch {
    return 0
  }
  const answers = await Promise.all(names.map((f) => socketAnswers(path.join(dir, f))))
  return answers.filter(Boolean).length
}
