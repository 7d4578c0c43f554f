import { loadCachedBundle } from "./cachedBundle.js"

// The hook path ships as dist/awhm-hook.cjs, run through V8's code cache (see cachedBundle.ts).

type HookMain = (args: ReadonlyArray<string>, stdin?: string) => Promise<void>

/**
 * Runs `awhm hook <args>` from dist/awhm-hook.cjs with V8's code cache, or from the ES module when the
 * bundle is not there (running from sources). `stdin`: the payload, when already read.
 */
export const runHookInProcess = async (args: ReadonlyArray<string>, stdin?: string): Promise<void> => {
  const bundle = loadCachedBundle<{ main?: HookMain }>("awhm-hook.cjs")
  const main = bundle?.exports.main
  if (bundle === null || main === undefined) return (await import("../hooks/main.js")).main(args, stdin)
  // After the run, so the cache also holds the functions this hook compiled on the way.
  return main(args, stdin).then(bundle.saveCache)
}
