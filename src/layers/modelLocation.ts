import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { DEFAULT_MODEL_ID, modelFiles } from "./EmbedderTransformers.js"

/** The folder name of the default model, wherever it is kept. */
export const MODEL_FOLDER = "all-MiniLM-L6-v2"

/** Where the model came from: `model_dir`/`AWHM_MODEL_DIR`, the data dir's `models/`, or the package's `.cache/models/`. */
export type ModelSource = "configured" | "data-dir" | "package"

export interface ModelLocation {
  readonly dir: string
  readonly source: ModelSource
  /** Every file transformers.js needs is there. */
  readonly complete: boolean
  /** Every place looked in, in order (for the message when none has the model). */
  readonly searched: ReadonlyArray<string>
}

/** The installed package's root (the folder of its package.json), from this module's own file. */
export const packageRoot = (): string | null => {
  let dir = path.dirname(fileURLToPath(import.meta.url))
  for (;;) {
    const manifest = path.join(dir, "package.json")
    if (fs.existsSync(manifest)) {
      try {
        if ((JSON.parse(fs.readFileSync(manifest, "utf8")) as { name?: unknown }).name === "awhm") return dir
      } catch {
        // not ours; keep looking
      }
    }
    const parent = path.dirname(dir)
    if (parent === dir) return null
    dir = parent
  }
}

const complete = (dir: string, quantized: boolean) => modelFiles(quantized).every((f) => fs.existsSync(path.join(dir, f)))

/** The data dir's model folder, where `awhm model install` puts the model. */
export const dataDirModel = (dataDir: string) => path.join(dataDir, "models", MODEL_FOLDER)

/**
 * Finds the local model without any variable: a configured folder wins (even when incomplete, so its error
 * names it); else the data dir's `models/`; else the package's `.cache/models/` (where `npm run setup:model`
 * puts it). None complete: the data dir's folder, marked incomplete. Null for a model other than the default
 * one with no folder configured (transformers.js then fetches it by id, as the user asked).
 */
export const locateModel = (
  options: { readonly modelId: string; readonly modelDir: string | null; readonly dataDir: string; readonly quantized?: boolean },
  env: NodeJS.ProcessEnv = process.env
): ModelLocation | null => {
  const quantized = options.quantized ?? false
  const configured = options.modelDir ?? (env.AWHM_MODEL_DIR !== undefined && env.AWHM_MODEL_DIR !== "" ? env.AWHM_MODEL_DIR : null)
  if (configured !== null) {
    const dir = path.resolve(configured)
    return { dir, source: "configured", complete: complete(dir, quantized), searched: [dir] }
  }
  if (options.modelId !== DEFAULT_MODEL_ID) return null
  const root = packageRoot()
  const candidates: ReadonlyArray<{ readonly dir: string; readonly source: ModelSource }> = [
    { dir: dataDirModel(options.dataDir), source: "data-dir" },
    ...(root === null ? [] : [{ dir: path.join(root, ".cache", "models", MODEL_FOLDER), source: "package" as const }])
  ]
  const searched = candidates.map((c) => c.dir)
  const found = candidates.find((c) => complete(c.dir, quantized))
  return found !== undefined
    ? { ...found, complete: true, searched }
    : { dir: candidates[0]!.dir, source: "data-dir", complete: false, searched }
}
