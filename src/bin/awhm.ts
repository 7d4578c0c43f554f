import { runHookBundle } from "./hookBundle.js"

// `awhm hook …` runs on every Claude Code prompt: it skips building the whole CLI and loads only the
// hook's own code (code-cached when the build shipped dist/awhm-hook.cjs). Help and every other command
// go through the full CLI.
const argv = process.argv
const HELP = new Set(["--help", "-h", "--wizard", "--version", "--completions"])

if (argv[2] === "hook" && argv.length > 3 && !argv.slice(3).some((a) => HELP.has(a))) {
  if (!runHookBundle(argv.slice(3))) void import("../programs/hooks/main.js").then((m) => m.main(argv.slice(3)))
} else {
  void import("../cli/main.js").then((m) => m.runCli(argv))
}
