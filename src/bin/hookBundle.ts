import { HOOK_EVENTS } from "../hooks/argv.js"
import { loadCachedBundle } from "./cachedBundle.js"

// The hook path ships as dist/awhm-hook.cjs, run through V8's code cache (see cachedBundle.ts).

type HookMain = (args: ReadonlyArray<string>, stdin?: string) => Promise<void>

/** The event as a file-name part (anything else, which the hook reports as unknown, shares one cache). */
const cacheKind = (event: string | undefined): string => ((HOOK_EVENTS as ReadonlyArray<string | undefined>).includes(event) ? event! : "other")

/**
 * Runs `awhm hook <args>` from dist/awhm-hook.cjs with V8's code cache, or from the ES module when the
 * bundle is not there (running from sources). `stdin`: the payload, when already read.
 */
export const runHookInProcess = async (args: ReadonlyArray<string>, stdin?: string): Promise<void> => {
  // A cache per event: what a prompt hook compiles is not what a server or a shutdown does.
  const bundle = loadCachedBundle<{ main?: HookMain }>("awhm-hook.cjs", cacheKind(args[0]))
  const main = bundle?.exports.main
  if (bundle === null || main === undefined) return (await import("../hooks/main.js")).main(args, stdin)
  // After the run, so the cache also holds the functions this hook compiled on the way.
  return main(args, stdin).then(bundle.saveCache)
}
