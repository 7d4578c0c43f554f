// esbuild settings shared by the build and the bench runner. transformers.js and the native modules stay
// external: they load from node_modules, and transformers.js only when a command needs the model.
// playwright-core (the viewer's browser bench) loads its own files at run time.
import { createRequire } from "node:module"
import * as path from "node:path"
import { build } from "esbuild"
import { compromiseLexicon } from "./compromiseLexicon.mjs"
import { effectDeepImports } from "./effectDeepImports.mjs"

export const EXTERNAL = ["@xenova/transformers", "onnxruntime-node", "sharp", "better-sqlite3", "playwright-core"]

const require = createRequire(import.meta.url)

// A local model needs only transformers.js' tokenizer (src/layers/localModel.ts runs ONNX
// Runtime itself): those modules are bundled, so they are code-cached with the bin. Their backend module
// imports onnxruntime-web beside onnxruntime-node (unused on Node, 0.2 s to load) with static imports an
// ES-module bundle would hoist to its start; it becomes what it is on Node: onnxruntime-node, required
// when the tokenizer first loads.
const ONNX_BACKEND = [
  'import { createRequire } from "node:module"',
  'export const ONNX = createRequire(import.meta.url)("onnxruntime-node")',
  'export const executionProviders = ["cpu", "wasm"]'
].join("\n")
const tokenizerOnly = {
  name: "awhm-tokenizer-only",
  setup(build) {
    build.onResolve({ filter: /^@xenova\/transformers\/src\/tokenizers\.js$/ }, (args) => ({ path: require.resolve(args.path) }))
    // The tokenizer's chat templates, bundled with it: the library build leaves packages external, and
    // @huggingface/jinja is there only when transformers.js is.
    build.onResolve({ filter: /^@huggingface\/jinja$/ }, (args) =>
      args.importer.includes(`${path.sep}@xenova${path.sep}transformers${path.sep}`) ? { path: createRequire(args.importer).resolve(args.path) } : undefined
    )
    build.onResolve({ filter: /\/backends\/onnx\.js$/ }, (args) =>
      args.importer.includes(`${path.sep}@xenova${path.sep}transformers${path.sep}`) ? { path: "onnx.js", namespace: "awhm-onnx-backend" } : undefined
    )
    build.onLoad({ filter: /.*/, namespace: "awhm-onnx-backend" }, () => ({ contents: ONNX_BACKEND, loader: "js" }))
  }
}

/** A Node 20 bundle with the external native modules. */
export const nodeBundle = {
  bundle: true,
  platform: "node",
  target: "node20",
  external: EXTERNAL,
  plugins: [tokenizerOnly, compromiseLexicon(build), effectDeepImports],
  legalComments: "none",
  logLevel: "warning"
}
