import { loadCachedBundle } from "./cachedBundle.js"
import { runHook } from "./hookClient.js"
import { exitWhenFlushed } from "../runtime/exitWhenFlushed.js"

// `awhm hook …` runs on every Claude Code prompt: it skips building the whole CLI, asks the hook server
// when one is running, and otherwise loads only the hook's own code (code-cached when the build shipped
// dist/awhm-hook.cjs). Help and every other command go through the full CLI.
const argv = process.argv
const HELP = new Set(["--help", "-h", "--wizard", "--version", "--completions"])

// Installing the hooks is an ordinary command: it may fail, with an exit code.
const CLI_HOOK_COMMANDS = new Set(["install", "uninstall"])

if (argv[2] === "hook" && argv.length > 3 && !CLI_HOOK_COMMANDS.has(argv[3]!) && !argv.slice(3).some((a) => HELP.has(a))) {
  // Ends once the reply is written (exitWhenFlushed): not after Node has torn down the heap.
  void runHook(argv.slice(3)).then(() => exitWhenFlushed())
} else {
  // The CLI from dist/awhm-cli.cjs with V8's code cache (see cachedBundle.ts), or from the ES module.
  const bundle = loadCachedBundle<{ runCli?: (argv: ReadonlyArray<string>) => void }>("awhm-cli.cjs")
  const runCli = bundle?.exports.runCli
  if (bundle !== null && runCli !== undefined) {
    // At exit, so the cache also holds the functions this command compiled on the way.
    process.once("exit", bundle.saveCache)
    runCli(argv)
  } else void import("../cli/main.js").then((m) => m.runCli(argv))
}
