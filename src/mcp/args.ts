/**
 * The arguments `awhm-mcp` serves without the CLI parser: none, or `--data-dir DIR`. Anything else
 * (help, a typo) is null and goes through the full CLI, which explains it.
 */
export const mcpFastArgs = (args: ReadonlyArray<string>): { readonly dataDir?: string } | null => {
  if (args.length === 0) return {}
  if (args.length === 1 && args[0]!.startsWith("--data-dir=") && args[0]!.length > 11) return { dataDir: args[0]!.slice(11) }
  if (args.length === 2 && args[0] === "--data-dir" && args[1] !== "" && !args[1]!.startsWith("-")) return { dataDir: args[1]! }
  return null
}
