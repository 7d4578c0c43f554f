// Bundles the bins into dist/ with esbuild: one file per bin starts several times faster than
// loading Effect as separate modules. transformers.js (and its native deps) stays external and is
// loaded lazily, only when a command needs the embedding model.
import { build } from "esbuild"

const external = ["@xenova/transformers", "onnxruntime-node", "sharp", "better-sqlite3"]

await build({
  entryPoints: { awhm: "src/bin/awhm.ts", "awhm-mcp": "src/bin/awhm-mcp.ts" },
  outdir: "dist",
  outExtension: { ".js": ".mjs" },
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  external,
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __awhmCreateRequire } from 'node:module'; const require = __awhmCreateRequire(import.meta.url);"
  },
  legalComments: "none",
  logLevel: "warning"
})
