// esbuild settings shared by the build and the bench runner. transformers.js and the native modules stay
// external: they load from node_modules, and transformers.js only when a command needs the model.
// playwright-core (the viewer's browser bench) loads its own files at run time.
export const EXTERNAL = ["@xenova/transformers", "onnxruntime-node", "sharp", "better-sqlite3", "playwright-core"]

/** A Node 20 bundle with the external native modules. */
export const nodeBundle = {
  bundle: true,
  platform: "node",
  target: "node20",
  external: EXTERNAL,
  legalComments: "none",
  logLevel: "warning"
}
