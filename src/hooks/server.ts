import * as fs from "node:fs"
import * as net from "node:net"
import { Effect } from "effect"
import { loadConfig } from "../layers/ConfigLive.js"
import { markLongLived } from "../runtime/longLived.js"
import { acquireLockSync } from "../store/fileLock.js"
import {
  type HookReply,
  type HookRequest,
  hookEnv,
  hookSocketDir,
  hookSocketPath,
  hookTokenFile,
  makeSocketDir,
  MAX_REQUEST_BYTES,
  newNonce,
  socketAnswers,
  tokenProof
} from "../store/hookSocket.js"
import { readOrCreateSecret } from "../store/secretFile.js"
import { parseHookArgv } from "./argv.js"
import type { HookIO, HookRunner } from "./io.js"
import { makeWarmRecall, PRACTICE_QUESTIONS } from "./warmRecall.js"
import { recallConfig } from "./wiring.js"

// The hook server: a background process per data dir (and build) that answers `awhm hook prompt` and
// `awhm hook stop` over a Unix socket, with the graph and the indexes already in memory. The hook client
// (src/bin/hookClient.ts) starts it and runs the hook itself whenever it is not there.

export interface HookServerOptions {
  readonly dataDir: string
  readonly buildId: string
  /** What answers each request: the same runner as an in-process hook. */
  readonly runHook: HookRunner
  /** Exit after this long without a request. */
  readonly idleMs: number
  /** The environment the server's own configuration (for warming up) is read from. */
  readonly env: NodeJS.ProcessEnv
}

/** How often the server checks that its socket and data dir are still there. */
const CHECK_MS = 2_000

/** After this long without a hook, the server practises (PRACTICE_QUESTIONS), one question at a time. */
const PRACTICE_AFTER_MS = 3_000
/** Questions practised per server: enough for V8 to have optimised what a prompt runs. */
export const PRACTICE_COUNT = 3 * PRACTICE_QUESTIONS.length

const SERVED_EVENTS = new Set(["prompt", "stop"])

const inode = (file: string): number | null => {
  try {
    return fs.lstatSync(file).ino
  } catch {
    return null
  }
}

const listen = (server: net.Server, socketPath: string): Promise<void> =>
  new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(socketPath, () => {
      server.off("error", reject)
      resolve()
    })
  })

/** When the client has read the answer and closed, or a second later at most (a client that never closes). */
const closedOrLater = (socket: net.Socket): Promise<void> =>
  new Promise((resolve) => {
    if (socket.destroyed) return resolve()
    const timer = setTimeout(resolve, 1_000)
    socket.once("close", () => {
      clearTimeout(timer)
      resolve()
    })
  })

/** The server's own warnings (a deferred index save that failed): its stderr, no hook's reply. */
const serverWarn = (line: string) => {
  process.stderr.write(line + "\n")
}

/**
 * Runs one hook for a client, with its stdin, environment and output kept apart from the server's, and hands
 * `send` its reply at once when the hook says its output is complete (HookIO.answered: before its stores
 * close), else when it ends. What the hook writes after that goes to the server's own stderr. Resolves once
 * the hook has ended (its stores closed).
 */
const runRequest = async (
  request: HookRequest,
  dataDir: string,
  recall: ReturnType<typeof makeWarmRecall>,
  runHook: HookRunner,
  send: (reply: HookReply) => void
): Promise<void> => {
  const out: Array<string> = []
  const err: Array<string> = []
  let sent = false
  const answer = () => {
    if (sent) return
    sent = true
    send({ stdout: out.join(""), stderr: err.join("") })
  }
  const { args, problems } = parseHookArgv(request.argv)
  for (const problem of problems) err.push(`awhm hook error: ${problem}\n`)
  if (args !== null && !SERVED_EVENTS.has(args.event)) err.push(`awhm hook error: the hook server runs only prompt and stop\n`)
  else if (args !== null) {
    const io: HookIO = {
      readStdin: () => Promise.resolve(request.stdin),
      stdout: (text) => (sent ? serverWarn(text.trimEnd()) : out.push(text)),
      stderr: (text) => (sent ? serverWarn(text.trimEnd()) : err.push(text)),
      env: request.env,
      answered: answer
    }
    // The socket belongs to one data dir: that is the one the hook runs on, whatever else it says.
    await Effect.runPromise(runHook({ ...args, dataDir }, io, recall.services))
  }
  answer()
}

/** The request, when it carries the proof that its sender knows the data dir's token. */
const parseRequest = (text: string, expectedProof: string | null): HookRequest | null => {
  try {
    const r = JSON.parse(text) as Partial<HookRequest> & { proof?: unknown }
    if (expectedProof === null || r.proof !== expectedProof) return null
    if (!Array.isArray(r.argv) || r.argv.some((a) => typeof a !== "string")) return null
    if (typeof r.stdin !== "string" || typeof r.env !== "object" || r.env === null) return null
    return { argv: r.argv as Array<string>, env: hookEnv(r.env), stdin: r.stdin }
  } catch {
    return null
  }
}

/**
 * Serves hooks until idle for `idleMs`, asked to shut down, signalled, or its socket or data dir is
 * gone. Resolves "already-running" at once when another server of this build answers on the socket.
 */
export const serveHooks = async (options: HookServerOptions): Promise<"stopped" | "already-running" | "no-data-dir"> => {
  markLongLived()
  const { dataDir } = options
  const dir = hookSocketDir(dataDir)
  if (!fs.existsSync(dataDir)) return "no-data-dir"
  if (!makeSocketDir(dataDir)) {
    if (!fs.existsSync(dataDir)) return "no-data-dir"
    throw new Error(`${dir} is not a private folder of this user's; the hook server will not use it`)
  }
  // What this server proves to every hook before the hook sends its prompt (only this user can read it).
  const token = readOrCreateSecret(hookTokenFile(dataDir))
  const socketPath = hookSocketPath(dataDir, options.buildId)
  const recall = makeWarmRecall()
  // Half-open: the client ends its side after the request and still reads the reply.
  const server = net.createServer({ allowHalfOpen: true })

  // Only one server per socket: the check and the takeover of a dead server's socket are one step.
  const release = acquireLockSync(socketPath + ".lock")
  try {
    if (await socketAnswers(socketPath)) return "already-running"
    fs.rmSync(socketPath, { force: true })
    await listen(server, socketPath)
  } finally {
    release()
  }
  const ownInode = inode(socketPath)
  // A data dir removed and made again (by a process still writing into it) is not this server's any more.
  const dataDirInode = inode(dataDir)

  let lastActivity = Date.now()
  let practiceTimer: ReturnType<typeof setTimeout> | undefined = undefined
  let queue: Promise<unknown> = Promise.resolve()
  let pending = 0
  let stopping = false
  /** Set once the stores are closed: a hook whose request ends after that closes them again itself. */
  let closed = false
  let stopped!: () => void
  const done = new Promise<void>((resolve) => (stopped = resolve))

  const stop = () => {
    if (stopping) return
    stopping = true
    clearInterval(timer)
    clearTimeout(practiceTimer)
    server.close()
    // Only our own socket: a newer server may have taken the path over.
    if (inode(socketPath) === ownInode) fs.rmSync(socketPath, { force: true })
    try {
      fs.rmdirSync(dir) // only when empty: no other build's server uses it
    } catch {
      // another server's socket is there
    }
    // Hooks already accepted are still answered; then the stores close.
    const drain = (): Promise<void> => {
      const current = queue
      return current.then(() => (current === queue ? undefined : drain()))
    }
    void drain()
      .then(() => {
        closed = true
        return Effect.runPromise(recall.release)
      })
      .finally(stopped)
  }

  const timer = setInterval(() => {
    const idle = pending === 0 && Date.now() - lastActivity >= options.idleMs
    if (idle || inode(socketPath) !== ownInode || inode(dataDir) !== dataDirInode) stop()
  }, Math.min(CHECK_MS, options.idleMs))

  server.on("connection", (socket) => {
    let chunks: Array<Buffer> = []
    let size = 0
    /** The proof the client's request must carry, once this server has proved itself; null before. */
    let expectedProof: string | null = null
    let greeted = false
    socket.on("error", () => socket.destroy())
    socket.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_REQUEST_BYTES) return socket.destroy()
      chunks.push(chunk)
      if (greeted) return
      const buf = Buffer.concat(chunks)
      const nl = buf.indexOf(0x0a)
      if (nl === -1) return
      greeted = true
      chunks = [buf.subarray(nl + 1)]
      let hello: { hello?: unknown } = {}
      try {
        hello = JSON.parse(buf.subarray(0, nl).toString("utf8")) as typeof hello
      } catch {
        return // answered as an unreadable request once it ends
      }
      if (typeof hello.hello !== "string" || hello.hello.length > 128) return
      const nonce = newNonce()
      expectedProof = tokenProof(token, "client", nonce)
      socket.write(JSON.stringify({ proof: tokenProof(token, "server", hello.hello), nonce }) + "\n")
    })
    socket.on("end", () => {
      const request = parseRequest(Buffer.concat(chunks).toString("utf8"), expectedProof)
      lastActivity = Date.now()
      if (request !== null && request.argv[0] === "shutdown") {
        // Answered once the hook in progress is done and the stores are closed: after that, nothing of
        // this server touches the data dir again (a hard delete relies on it).
        stop()
        void done.then(() => socket.end(JSON.stringify({ stdout: "", stderr: "" } satisfies HookReply)))
        return
      }
      pending++
      let sent = false
      const send = (r: HookReply) => {
        if (sent) return
        sent = true
        pending--
        lastActivity = Date.now()
        socket.end(JSON.stringify(r))
      }
      // One hook at a time: they share the indexes. The answer goes out as soon as the hook has it.
      const ran = queue.then(() =>
        request === null
          ? send({ stdout: "", stderr: "awhm hook error: the hook server got an unreadable request\n" })
          : closed
            ? runRequest(request, dataDir, recall, options.runHook, send).finally(() => {
                recall.saveDeferred(serverWarn)
                return Effect.runPromise(recall.release)
              })
            : runRequest(request, dataDir, recall, options.runHook, send)
      )
      // The next hook waits for this one's stores to close, then for the listing and the index save this one
      // left, which wait until the answer is read.
      queue = ran
        .catch((e: unknown) => {
          const line = `awhm hook error: ${String(e).split("\n")[0]}`
          // After the answer, a failure (closing the hook's stores) is the server's own to report.
          if (sent) serverWarn(line)
          else send({ stdout: "", stderr: line + "\n" })
        })
        .then(() => closedOrLater(socket))
        .then(() => recall.listDeferred())
        .then(() => recall.saveDeferred(serverWarn))
    })
  })
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.once(signal, stop)

  // Warm up for the configuration the hooks are most likely to send: the server's own.
  const warmUp = Effect.flatMap(loadConfig({ data_dir: dataDir }, options.env), (config) =>
    recall.warmUp(recallConfig(config, false))
  )
  queue = queue.then(() => Effect.runPromise(Effect.ignore(warmUp)))
  // A listing the warm-up left waits for the first hook's answer.

  // Once no hook has come for a while, practice questions one at a time, each queued only while no hook waits:
  // a hook that comes meanwhile waits for one question at most. Practice is no activity (the idle exit ignores it).
  let practiced = 0
  const practise = () => {
    if (stopping || practiced >= PRACTICE_COUNT) return
    const quiet = Date.now() - lastActivity
    if (pending > 0 || quiet < PRACTICE_AFTER_MS) {
      practiceTimer = setTimeout(practise, Math.max(PRACTICE_AFTER_MS - quiet, 50))
      return
    }
    const n = practiced++
    const done = queue.then(() => (stopping ? undefined : Effect.runPromise(Effect.ignore(recall.practice(n)))))
    queue = done
      .then(() => recall.listDeferred())
      .then(() => recall.saveDeferred(serverWarn))
      .then(() => {
        if (practiced === PRACTICE_COUNT && options.env.AWHM_HOOK_DEBUG) serverWarn(`awhm hook serve: practised ${PRACTICE_COUNT} questions`)
      })
    void queue.then(() => {
      if (!stopping) practiceTimer = setTimeout(practise, 0)
    })
  }
  void queue.then(() => {
    if (!stopping) practiceTimer = setTimeout(practise, 0)
  })

  await done
  return "stopped"
}
