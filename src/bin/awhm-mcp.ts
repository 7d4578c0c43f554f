import { runCli } from "../cli/main.js"

// `awhm-mcp` is `awhm mcp`.
runCli([process.argv[0] ?? "node", process.argv[1] ?? "awhm-mcp", "mcp", ...process.argv.slice(2)])
