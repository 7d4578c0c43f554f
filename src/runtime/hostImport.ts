// In a script V8 compiled from its code cache (src/bin/cachedBundle.ts), `import()` fails ("A dynamic
// import callback was not specified"). The host module that runs such a bundle lends its own import here,
// and code that loads an ES module the bundle leaves out (the embedding model's @xenova/transformers) uses it.

const HOST_IMPORT = Symbol.for("awhm.hostImport")

type Importer = (specifier: string) => Promise<unknown>

/** Lends the caller's `import` to the bundles it runs. */
export const lendImport = (importer: Importer): void => {
  ;(globalThis as { [HOST_IMPORT]?: Importer })[HOST_IMPORT] = importer
}

/** Imports an ES module through the host's import when one was lent, else through `fallback` (this code's own). */
export const hostImport = (specifier: string, fallback: Importer): Promise<unknown> =>
  ((globalThis as { [HOST_IMPORT]?: Importer })[HOST_IMPORT] ?? fallback)(specifier)
