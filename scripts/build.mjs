// Bundles the bins into dist/ with esbuild: one file per bin starts several times faster than
// loading Effect as separate modules. transformers.js (and its native deps) stays external and is
// loaded lazily, only when a command needs the embedding model.
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { build } from "esbuild"
import { asciiFile } from "./asciiBundle.mjs"
import { nodeBundle } from "./bundleOptions.mjs"
import { sharedBuiltins } from "./sharedBuiltins.mjs"

// The build's identity, from the sources and the lockfile: a hook talks only to a hook server of the
// same build, so an upgrade never sends prompts to an old server still in memory.
const buildId = (() => {
  const hash = createHash("sha256")
  const files = fs.readdirSync("src", { recursive: true }).map(String).filter((f) => f.endsWith(".ts")).sort()
  for (const f of [...files.map((f) => path.join("src", f)), "package-lock.json"]) {
    hash.update(f + "\0")
    hash.update(fs.readFileSync(f))
  }
  return hash.digest("hex").slice(0, 16)
})()
const define = { __AWHM_BUILD_ID__: JSON.stringify(buildId) }

// The bins are minified (names kept, for errors and stack traces): half the bytes that every command reads
// and hashes at start-up, a smaller code cache to deserialise, less heap (docs/benchmarks.md, scale section).
// The library entry stays readable. To profile a bin, build with AWHM_BUILD_UNMINIFIED=1.
const minified = process.env.AWHM_BUILD_UNMINIFIED === "1" ? {} : { minify: true, keepNames: true }

// The web viewer's page script and style (src/ui/client/), built for the browser and carried in the bin as
// strings (src/ui/page.ts): `awhm ui` serves them with no files beside it and no network.
const browserAsset = async (entry, options = {}) =>
  (await build({ entryPoints: [entry], bundle: true, minify: true, write: false, legalComments: "none", logLevel: "warning", ...options }))
    .outputFiles[0].text
const uiDefine = {
  __AWHM_UI_JS__: JSON.stringify(await browserAsset("src/ui/client/main.ts", { platform: "browser", format: "iife", target: "es2022" })),
  __AWHM_UI_CSS__: JSON.stringify(await browserAsset("src/ui/client/style.css"))
}

// Old chunks would otherwise pile up in dist/chunks at every build.
fs.rmSync("dist/chunks", { recursive: true, force: true })

await build({
  ...nodeBundle,
  ...minified,
  entryPoints: { awhm: "src/bin/awhm.ts", "awhm-mcp": "src/bin/awhm-mcp.ts" },
  outdir: "dist",
  outExtension: { ".js": ".mjs" },
  format: "esm",
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  define: { ...define, ...uiDefine },
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __awhmCreateRequire } from 'node:module'; const require = __awhmCreateRequire(import.meta.url);"
  }
})

// The hook path and the MCP server as CommonJS files, run through V8's code cache by
// src/bin/cachedBundle.ts (Node 20 has no compile cache for ES modules, and compiling is a third of a
// hook's start-up).
await build({
  ...nodeBundle,
  ...minified,
  plugins: [...nodeBundle.plugins, sharedBuiltins],
  entryPoints: { "awhm-hook": "src/hooks/main.ts", "awhm-mcp-server": "src/mcp/main.ts" },
  outdir: "dist",
  outExtension: { ".js": ".cjs" },
  format: "cjs",
  // import.meta.url (used to find the package's own files) from the CommonJS file's own path.
  define: { ...define, "import.meta.url": "__awhmImportMetaUrl" },
  banner: { js: 'const __awhmImportMetaUrl = require("node:url").pathToFileURL(__filename).href;' }
})
for (const f of ["dist/awhm-hook.cjs", "dist/awhm-mcp-server.cjs"]) asciiFile(f)

// The hook client (`awhm hook prompt|stop` on every turn): plain Node in one CommonJS file that
// dist/awhm.mjs requires, so a prompt loads one small file instead of a graph of ES module chunks.
await build({
  ...nodeBundle,
  entryPoints: { "awhm-hook-client": "src/bin/hookClient.ts" },
  outdir: "dist",
  outExtension: { ".js": ".cjs" },
  format: "cjs",
  define: { ...define, "import.meta.url": "__awhmImportMetaUrl" },
  banner: { js: 'const __awhmImportMetaUrl = require("node:url").pathToFileURL(__filename).href;' }
})

// The bin on PATH (package.json "bin"), as one small CommonJS file: a hook answered by the server then loads
// no ES module at all (Node's ES module loader and the helper chunk cost ~8 ms of its ~75 ms). It carries the
// code-cache loader (src/bin/cachedBundle.ts), so every other command goes straight to dist/awhm-cli.cjs.
// What only a run from sources needs stays out (there is always a bundle beside this file). dist/awhm.mjs
// stays the same bin as an ES module, for hook commands installed as `node …/dist/awhm.mjs`.
const bundlesOnly = {
  name: "awhm-bundles-only",
  setup(build) {
    build.onResolve({ filter: /^(?:\.\/hookClient|\.\.\/cli\/entry|\.\.\/hooks\/main)\.js$/ }, (args) => ({ path: args.path, external: true }))
  }
}
await build({
  ...nodeBundle,
  ...minified,
  plugins: [...nodeBundle.plugins, bundlesOnly],
  entryPoints: { awhm: "src/bin/awhm.ts" },
  outdir: "dist",
  outExtension: { ".js": ".cjs" },
  format: "cjs",
  define: { ...define, "import.meta.url": "__awhmImportMetaUrl" },
  banner: { js: '#!/usr/bin/env node\nconst __awhmImportMetaUrl = require("node:url").pathToFileURL(__filename).href;' }
})

// The whole CLI the same way, with the web viewer's assets (`awhm ui`). Its entry (src/cli/entry.ts) runs
// `awhm query`'s common forms without @effect/cli; every module behind it loads when first used.
await build({
  ...nodeBundle,
  ...minified,
  plugins: [...nodeBundle.plugins, sharedBuiltins],
  entryPoints: { "awhm-cli": "src/cli/entry.ts" },
  outdir: "dist",
  outExtension: { ".js": ".cjs" },
  format: "cjs",
  define: { ...define, ...uiDefine, "import.meta.url": "__awhmImportMetaUrl" },
  banner: { js: 'const __awhmImportMetaUrl = require("node:url").pathToFileURL(__filename).href;' }
})
asciiFile("dist/awhm-cli.cjs")

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
