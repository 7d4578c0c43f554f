import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { dataPaths } from "./paths.js"
import { checkPrivateDir, privateDirProblem } from "./privateDir.js"
import { readSecret } from "./secretFile.js"

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

/** The secret a hook server proves it knows before a hook hands it a prompt: only this user can read it. */
export const hookTokenFile = (dataDir: string): string => path.join(dataPaths(dataDir).meta, "hook_token")

/** Whether `dir` is a real directory of this user's that nobody else can even enter. */
const ownerOnly = (dir: string): boolean => {
  try {
    const st = fs.lstatSync(dir)
    return privateDirProblem(st) === null && (st.mode & 0o077) === 0
  } catch {
    return false
  }
}

/**
 * The socket folder and the folders above it that awhm made for it (the temp-dir fallback has two:
 * `awhm-<uid>` and the data dir's own), outermost first, and the folder holding the outermost.
 */
const socketDirLevels = (dataDir: string): { readonly base: string; readonly levels: ReadonlyArray<string> } => {
  const dir = hookSocketDir(dataDir)
  return dir.startsWith(dataDir + path.sep)
    ? { base: dataDir, levels: [dir] }
    : { base: path.dirname(path.dirname(dir)), levels: [path.dirname(dir), dir] }
}

/**
 * Whether a data dir's socket folder is safe to use: every level awhm made is this user's alone and not a
 * symbolic link, in a folder nobody else can rearrange (the temp dir is fine: it is sticky). Otherwise a
 * hook could talk to, or a server listen in, somebody else's folder.
 */
export const privateSocketDir = (dataDir: string): boolean => {
  const { base, levels } = socketDirLevels(dataDir)
  try {
    checkPrivateDir(levels[0]!)
  } catch {
    return false
  }
  return fs.existsSync(base) && levels.every(ownerOnly)
}

/**
 * Creates a data dir's socket folder owner-only, one level at a time (an existing level is checked, never
 * trusted); false when a level is not private, or when the data dir itself is gone (a server must never
 * bring back a data dir that was removed).
 */
export const makeSocketDir = (dataDir: string): boolean => {
  const { base, levels } = socketDirLevels(dataDir)
  if (!fs.existsSync(base)) return false
  for (const dir of levels) {
    try {
      fs.mkdirSync(dir, { mode: 0o700 })
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") return false
    }
    if (!ownerOnly(dir)) return false
  }
  return privateSocketDir(dataDir)
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

/** Requests larger than this are refused (a prompt of several megabytes is not a prompt). */
export const MAX_REQUEST_BYTES = 16 * 1024 * 1024

/** What proves knowledge of the data dir's token for a nonce, without revealing the token. */
export const tokenProof = (token: string, side: "server" | "client", nonce: string): string =>
  createHmac("sha256", token).update(`${side}\0${nonce}`).digest("hex")

/** Whether `a` is the proof `b`, in a time that does not depend on where they differ. */
const sameProof = (a: unknown, b: string): boolean =>
  typeof a === "string" && a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b))

/** A fresh nonce for one side of the handshake. */
export const newNonce = (): string => randomBytes(16).toString("hex")

/**
 * Sends one request to the server at `socketPath`, after the server has proved it knows the data dir's
 * token (the hook's prompt goes to nobody else). The protocol: the hook sends `{"hello":nonce}` and a
 * newline; the server answers `{"proof","nonce"}` and a newline; the hook sends the request with its own
 * proof and ends its side; the server answers with one JSON reply.
 * "unavailable": nothing is listening there (no server, or a dead one's socket), or there is no token yet;
 * "unproven": something listens but could not prove it is this data dir's server. Either way nothing
 * was sent, so the caller may run the hook itself. Once sent, a failure is an answer with one error line,
 * never a second run (the prompt may already be logged).
 */
export const askHookServer = (
  dataDir: string,
  socketPath: string,
  request: HookRequest,
  timeoutMs: number
): Promise<HookReply | "unavailable" | "unproven"> =>
  new Promise((resolve) => {
    const token = readSecret(hookTokenFile(dataDir))
    if (token === null) return resolve("unavailable")
    const nonce = newNonce()
    let connected = false
    let sent = false
    let settled = false
    let chunks: Array<Buffer> = []
    const finish = (value: HookReply | "unavailable" | "unproven") => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      resolve(value)
    }
    const failed = (why: string) =>
      finish(sent ? { stdout: "", stderr: `awhm hook error: the hook server ${why}; this prompt got no memories\n` } : connected ? "unproven" : "unavailable")
    const socket = net.createConnection(socketPath, () => {
      connected = true
      socket.write(JSON.stringify({ hello: nonce }) + "\n")
    })
    const timer = setTimeout(() => failed(`did not answer within ${timeoutMs} ms`), timeoutMs)
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk)
      if (sent) return
      const buf = Buffer.concat(chunks)
      const nl = buf.indexOf(0x0a)
      if (nl === -1) return
      let hello: { proof?: unknown; nonce?: unknown } = {}
      try {
        hello = JSON.parse(buf.subarray(0, nl).toString("utf8")) as typeof hello
      } catch {
        // not a server of ours
      }
      if (!sameProof(hello.proof, tokenProof(token, "server", nonce)) || typeof hello.nonce !== "string") return finish("unproven")
      chunks = [buf.subarray(nl + 1)]
      sent = true
      socket.end(JSON.stringify({ ...request, proof: tokenProof(token, "client", hello.nonce) }) + "\n")
    })
    socket.on("error", () => failed("closed the connection"))
    socket.on("close", () => {
      if (!sent) return failed("is not running")
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
/** The hook server sockets of a data dir, of every build (none when their folder is missing). */
const hookSocketFiles = (dataDir: string): Array<string> => {
  const dir = hookSocketDir(dataDir)
  try {
    return fs
      .readdirSync(dir)
      .filter((f) => f.startsWith("hook-") && f.endsWith(".sock"))
      .map((f) => path.join(dir, f))
  } catch {
    return []
  }
}

export const shutdownHookServers = async (dataDir: string): Promise<number> => {
  const replies = await Promise.all(
    hookSocketFiles(dataDir).map((socket) => askHookServer(dataDir, socket, { argv: ["shutdown"], env: {}, stdin: "" }, 10_000))
  )
  return replies.filter((r) => r !== "unavailable" && r !== "unproven").length
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
  const answers = await Promise.all(hookSocketFiles(dataDir).map(socketAnswers))
  return answers.filter(Boolean).length
}
