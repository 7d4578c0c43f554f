import * as fs from "node:fs"
import * as path from "node:path"
import { build, type BuildOptions } from "esbuild"
import { Effect } from "effect"

/** Where a test worker's bundle goes: `.cache/test-graph/` inside the project, so its drivers resolve from node_modules. */
export const workerBundlePath = (name: string): string => path.resolve(".cache", "test-graph", `${name}-${process.pid}.mjs`)

/** Bundles the worker script `entry` into `outfile` for the test's scope, and removes it after. */
export const bundleWorker = (entry: string, outfile: string, external: Pick<BuildOptions, "external" | "packages">) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      build({ entryPoints: [path.resolve(entry)], outfile, bundle: true, platform: "node", format: "esm", target: "node20", logLevel: "warning", ...external })
    ),
    () => Effect.sync(() => fs.rmSync(outfile, { force: true }))
  )
