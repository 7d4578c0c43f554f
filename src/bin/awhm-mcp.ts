import { mcpFastArgs } from "../mcp/args.js"
import type { main as McpMain } from "../mcp/main.js"
import { loadCachedBundle } from "./cachedBundle.js"

// `awhm-mcp` is `awhm mcp`. Plain `awhm-mcp [--data-dir DIR]`, as clients start it, skips the CLI parser
// and runs dist/awhm-mcp-server.cjs through V8's code cache (see cachedBundle.ts); help and anything
// unusual go through the full CLI.
const args = process.argv.slice(2)
const fast = mcpFastArgs(args)

if (fast === null) {
  void import("../cli/main.js").then((m) => m.runCli([process.argv[0] ?? "node", process.argv[1] ?? "awhm-mcp", "mcp", ...args]))
} else {
  const bundle = loadCachedBundle<{ main?: typeof McpMain }>("awhm-mcp-server.cjs")
  const main = bundle?.exports.main
  if (bundle === null || main === undefined) {
    void import("../mcp/main.js").then((m) => m.main(fast))
  } else {
    // At exit, so the cache also holds what serving compiled on the way.
    process.once("exit", bundle.saveCache)
    main(fast)
  }
}
