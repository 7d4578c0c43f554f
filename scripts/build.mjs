// Bundles the bins into dist/ with esbuild: one file per bin starts several times faster than
// loading Effect as separate modules. transformers.js (and its native deps) stays external and is
// loaded lazily, only when a command needs the embedding model.
import * as fs from "node:fs"
import { build } from "esbuild"
import { nodeBundle } from "./bundleOptions.mjs"

// Old chunks would otherwise pile up in dist/chunks at every build.
fs.rmSync("dist/chunks", { recursive: true, force: true })

await build({
  ...nodeBundle,
  entryPoints: { awhm: "src/bin/awhm.ts", "awhm-mcp": "src/bin/awhm-mcp.ts" },
  outdir: "dist",
  outExtension: { ".js": ".mjs" },
  format: "esm",
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __awhmCreateRequire } from 'node:module'; const require = __awhmCreateRequire(import.meta.url);"
  }
})

// The hook path as one CommonJS file, run through V8's code cache by src/bin/hookBundle.ts (Node 20 has
// no compile cache for ES modules, and compiling is a third of a hook's start-up).
await build({
  ...nodeBundle,
  entryPoints: { "awhm-hook": "src/programs/hooks/main.ts" },
  outdir: "dist",
  outExtension: { ".js": ".cjs" },
  format: "cjs"
})

// The library entry (package "exports"): dependencies stay external so an Effect app shares its own
// copy of effect with awhm's services and layers.
await build({
  ...nodeBundle,
  entryPoints: { index: "src/index.ts" },
  outdir: "dist",
  outExtension: { ".js": ".mjs" },
  format: "esm",
  external: [],
  packages: "external"
})
