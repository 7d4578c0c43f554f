// In a CommonJS bundle, every module's `import * as fs from "node:fs"` becomes its own
// `__toESM(require("node:fs"))`: a fresh object with a getter for each of the builtin's ~100 exports, made
// when the module is first used (the CLI has ~50 such imports of node:fs and ~40 of node:path). Here each
// builtin imported by an import statement goes through one module of the bundle that re-exports it, made
// once and shared by every importer. Builtins loaded with require() stay as they are.
export const sharedBuiltins = {
  name: "awhm-shared-builtins",
  setup(build) {
    build.onResolve({ filter: /^node:/ }, (args) =>
      args.namespace === "awhm-builtin"
        ? { path: args.path, external: true }
        : args.kind === "import-statement"
          ? { path: args.path, namespace: "awhm-builtin" }
          : undefined
    )
    build.onLoad({ filter: /.*/, namespace: "awhm-builtin" }, (args) => ({
      contents: `export * from ${JSON.stringify(args.path)}\n`,
      loader: "js"
    }))
  }
}
