import { shortQuery } from "./queryArgv.js"

/**
 * The CLI's entry (dist/awhm-cli.cjs): `awhm query` in its common forms runs without @effect/cli and the
 * command tree (queryFast.ts), everything else through main.ts. Each is loaded only when it runs.
 */
export const runCli = (argv: ReadonlyArray<string>): void => {
  const query = shortQuery(argv)
  if (query !== null) void import("./queryFast.js").then((m) => m.runShortQuery(argv, query))
  else void import("./main.js").then((m) => m.runCli(argv))
}
