import { createRequire } from "node:module"

// `awhm hook …` runs on every Claude Code prompt: it skips building the whole CLI, asks the hook server
// when one is running, and otherwise loads only the hook's own code (code-cached when the build shipped
// dist/awhm-hook.cjs). Help and every other command go through the full CLI.
const argv = process.argv
const HELP = new Set(["--help", "-h", "--wizard", "--version", "--completions"])

/** The commands whose runs keep a code cache of their own (every other command shares one). */
const CLI_CACHE_KINDS = new Set(["query", "consolidate"])

// Installing the hooks is an ordinary command: it may fail, with an exit code.
const CLI_HOOK_COMMANDS = new Set(["install", "uninstall"])

type HookClient = Pick<typeof import("./hookClient.js"), "runHook" | "exitWhenFlushed">

/** The hook in this process, for when no hook server answers: loaded only then. */
const runHookInProcess = (args: ReadonlyArray<string>, stdin?: string): Promise<void> =>
  import("./hookBundle.js").then((m) => m.runHookInProcess(args, stdin))

/**
 * The hook client from dist/awhm-hook-client.cjs (one CommonJS file of plain Node: loading it costs a
 * millisecond, where the same code as ES module chunks cost ~15 ms of the loader), or from the ES module
 * when running from sources.
 */
const hookClient = (): Promise<HookClient> => {
  try {
    return Promise.resolve(createRequire(import.meta.url)("./awhm-hook-client.cjs") as HookClient)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "MODULE_NOT_FOUND") throw e
    return import("./hookClient.js")
  }
}

if (argv[2] === "hook" && argv.length > 3 && !CLI_HOOK_COMMANDS.has(argv[3]!) && !argv.slice(3).some((a) => HELP.has(a))) {
  // Ends once the reply is written (exitWhenFlushed): not after Node has torn down the heap.
  void hookClient().then((client) => client.runHook(argv.slice(3), runHookInProcess).then(() => client.exitWhenFlushed()))
} else {
  void import("./cachedBundle.js").then(({ loadCachedBundle }) => {
    // The CLI from dist/awhm-cli.cjs with V8's code cache (see cachedBundle.ts), or from the ES module.
    // A cache of its own for each command scripts run again and again: `awhm query` compiles little of what
    // `awhm consolidate` does (one cache would hold both, and each would read the other's code at every start).
    const kind = CLI_CACHE_KINDS.has(argv[2] ?? "") ? argv[2] : "other"
    const bundle = loadCachedBundle<{ runCli?: (argv: ReadonlyArray<string>) => void }>("awhm-cli.cjs", kind)
    const runCli = bundle?.exports.runCli
    if (bundle !== null && runCli !== undefined) {
      // At exit, so the cache also holds the functions this command compiled on the way.
      process.once("exit", bundle.saveCache)
      runCli(argv)
    } else void import("../cli/entry.js").then((m) => m.runCli(argv))
  })
}
