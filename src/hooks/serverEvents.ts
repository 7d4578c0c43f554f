import { Effect } from "effect"
import { buildId } from "../runtime/buildId.js"
import { shutdownHookServers } from "../store/hookSocket.js"
import { resolveDataDir } from "../store/paths.js"
import type { HookArgs } from "./argv.js"
import type { HookIO, HookRunner } from "./io.js"

/** Without a request for this long, the hook server exits (the next prompt starts it again). */
export const DEFAULT_IDLE_SECONDS = 900

/** `awhm hook serve` (run the hook server in the foreground) and `awhm hook shutdown` (stop it). */
export const runServerEvent = (args: HookArgs, io: HookIO, runHook: HookRunner) =>
  Effect.gen(function* () {
    const dataDir = resolveDataDir(args.dataDir, io.env)
    if (args.event === "shutdown") {
      const n = yield* Effect.promise(() => shutdownHookServers(dataDir))
      io.stderr(`awhm: stopped ${n} hook server${n === 1 ? "" : "s"}\n`)
      return
    }
    if (buildId === null) return yield* Effect.fail(new Error("the hook server runs only from the built bin (npm run build)"))
    const id = buildId
    const { serveHooks } = yield* Effect.promise(() => import("./server.js"))
    const idleMs = (args.idleSeconds ?? DEFAULT_IDLE_SECONDS) * 1000
    const outcome = yield* Effect.tryPromise({
      try: () => serveHooks({ dataDir, buildId: id, idleMs, env: io.env, runHook }),
      catch: (e) => (e instanceof Error ? e : new Error(String(e)))
    })
    if (outcome === "already-running") io.stderr("awhm: a hook server is already running for this data dir\n")
    if (outcome === "no-data-dir") io.stderr(`awhm: no data dir at ${dataDir}; the hook server has nothing to serve\n`)
  })
