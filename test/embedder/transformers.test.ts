// The live embedder with the real all-MiniLM-L6-v2, from a local folder only: nothing here downloads.
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { build, type BuildOptions } from "esbuild"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { DEFAULT_MODEL_ID, EmbedderTransformers, modelFiles } from "../../src/layers/EmbedderTransformers.js"
import { Embedder } from "../../src/services/Embedder.js"
import { dot, embedderContract, maxAbsDiff } from "./contract.js"
// @ts-expect-error the build script's shared esbuild options are plain JavaScript
import { nodeBundle } from "../../scripts/bundleOptions.mjs"

const ROOT = fileURLToPath(new URL("../..", import.meta.url))
const MODEL_DIR = process.env["AWHM_MODEL_DIR"] ?? join(ROOT, ".cache", "models", "all-MiniLM-L6-v2")
const missing = [...new Set([...modelFiles(false), ...modelFiles(true)])].filter((f) => !existsSync(join(MODEL_DIR, f)))
if (missing.length > 0) {
  // Fail, never skip: CI runs the setup first, and a silent skip would hide a broken model path.
  throw new Error(
    `The real-model tests need all-MiniLM-L6-v2 in ${MODEL_DIR} (missing ${missing.join(", ")}). ` +
      "Run `npm run setup:model` first, or set AWHM_MODEL_DIR to such a folder."
  )
}

const Live = EmbedderTransformers({ modelId: DEFAULT_MODEL_ID, modelDir: MODEL_DIR })
const LiveInt8 = EmbedderTransformers({ modelId: DEFAULT_MODEL_ID, modelDir: MODEL_DIR, quantized: true })

interface Reference {
  readonly source: string
  readonly sentences: ReadonlyArray<{ readonly text: string; readonly vector: ReadonlyArray<number> }>
}
// Computed once by scripts/reference-vectors.py with sentence-transformers on PyTorch, 6 decimals.
const reference = JSON.parse(
  readFileSync(join(ROOT, "test", "fixtures", "reference-vectors.json"), "utf8")
) as Reference
const referenceTexts = reference.sentences.map((s) => s.text)

// (anchor, paraphrase, unrelated)
const TRIPLES: ReadonlyArray<readonly [string, string, string]> = [
  ["The user prefers dark mode in the editor.", "In the editor, the user likes a dark theme.", "The quarterly budget review is on Friday."],
  ["My flight to Berlin leaves at 7am tomorrow.", "Tomorrow morning I fly to Berlin at seven.", "Use a binary heap to keep the top k scores."],
  ["Alice is allergic to peanuts.", "Alice has a peanut allergy.", "The server logs rotate every night at midnight."],
  ["We decided to use PostgreSQL for the new service.", "The team chose Postgres as the database for the new service.", "My cat likes to sleep on the windowsill."],
  ["The build fails because a dependency is missing.", "A missing package makes the build break.", "She plays the violin in a local orchestra."],
  ["Bob's birthday is on March 3rd.", "Bob was born on the third of March.", "The API returns a 404 when the user is not found."],
  ["Please always answer in French.", "Reply to me in French every time.", "The garden needs watering twice a week."],
  ["The meeting was moved to Thursday afternoon.", "We rescheduled the meeting for Thursday after lunch.", "Rust's borrow checker prevents data races."],
  ["I run five kilometres every morning.", "Each morning I go for a 5 km run.", "The invoice total includes value added tax."],
  ["The deployment uses Kubernetes on AWS.", "We deploy with Kubernetes running in Amazon's cloud.", "Grandma's apple pie recipe uses cinnamon."],
  ["The laptop battery drains quickly.", "My notebook's battery runs out fast.", "The museum opens at nine on weekdays."],
  ["He switched from Vim to VS Code last year.", "Last year he moved from Vim to Visual Studio Code.", "Tides are caused by the moon's gravity."]
]

embedderContract("EmbedderTransformers (fp32)", Live, { modelId: DEFAULT_MODEL_ID, dimension: 384 })

layer(Live, { timeout: "120 seconds" })("EmbedderTransformers with the real model", (it) => {
  it.effect("agrees with sentence-transformers (PyTorch) within 1e-5 per component, long texts included", () =>
    Effect.gen(function* () {
      const embedder = yield* Embedder
      const batch = yield* embedder.embed(referenceTexts)
      for (const [i, ref] of reference.sentences.entries()) {
        expect(maxAbsDiff(batch[i]!, ref.vector)).toBeLessThanOrEqual(1e-5)
        const [alone] = yield* embedder.embed([ref.text])
        expect(maxAbsDiff(alone!, ref.vector)).toBeLessThanOrEqual(1e-5)
      }
    }))

  it.effect("puts a paraphrase far closer than an unrelated sentence, on twelve pairs", () =>
    Effect.gen(function* () {
      const embedder = yield* Embedder
      for (const [anchor, paraphrase, unrelated] of TRIPLES) {
        const [a, p, u] = yield* embedder.embed([anchor, paraphrase, unrelated])
        const close = dot(a!, p!)
        const far = dot(a!, u!)
        expect(close, `${anchor} ~ ${paraphrase}`).toBeGreaterThanOrEqual(0.6)
        expect(far, `${anchor} vs ${unrelated}`).toBeLessThanOrEqual(0.2)
        expect(close - far).toBeGreaterThanOrEqual(0.45)
      }
    }))
})

layer(LiveInt8, { timeout: "120 seconds" })("EmbedderTransformers with the int8 model", (it) => {
  it.effect("stays within cosine 0.995 of the reference vectors", () =>
    Effect.gen(function* () {
      const vectors = yield* (yield* Embedder).embed(referenceTexts)
      for (const [i, ref] of reference.sentences.entries()) {
        expect(dot(vectors[i]!, Float32Array.from(ref.vector))).toBeGreaterThanOrEqual(0.995)
      }
    }))
})

describe("EmbedderTransformers without a model", () => {
  it.effect("builds without loading, then fails each embed with one EmbedderError naming the folder", () =>
    Effect.gen(function* () {
      const empty = mkdtempSync(join(tmpdir(), "awhm-no-model-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(empty, { recursive: true, force: true })))
      const embedder = yield* Effect.provide(Embedder, EmbedderTransformers({ modelId: DEFAULT_MODEL_ID, modelDir: empty }))
      expect(embedder.enabled).toBe(true)
      expect(embedder.dimension).toBe(384)
      expect(yield* embedder.embed([])).toEqual([])
      for (let attempt = 0; attempt < 2; attempt++) {
        const error = yield* Effect.flip(embedder.embed(["a secret memory"]))
        expect(error._tag).toBe("EmbedderError")
        expect(error.operation).toBe("load")
        expect(error.message).toBe(
          `embedding model ${DEFAULT_MODEL_ID} could not be loaded: no model at ${empty} ` +
            "(missing config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx); " +
            `run \`awhm model install\` (or point AWHM_MODEL_DIR at a copy of ${DEFAULT_MODEL_ID})`
        )
      }
    }).pipe(Effect.scoped))

  it("keeps transformers.js out of a bundle's startup: only dynamic imports, left external", async () => {
    const result = await build({
      entryPoints: [join(ROOT, "src", "layers", "EmbedderTransformers.ts")],
      bundle: true,
      platform: "node",
      format: "esm",
      write: false,
      metafile: true,
      logLevel: "silent",
      external: ["@xenova/transformers"]
    })
    const imports = Object.values(result.metafile.outputs).flatMap((o) => o.imports)
    // The whole library for a model from the hub; its tokenizer only for a local folder.
    expect(imports.filter((i) => i.path.startsWith("@xenova/transformers"))).toEqual([
      { path: "@xenova/transformers/src/tokenizers.js", kind: "dynamic-import", external: true },
      { path: "@xenova/transformers", kind: "dynamic-import", external: true }
    ])
  })

  it("bundles the tokenizer into the bins and the library, with onnxruntime-node required only when it loads", async () => {
    // The bins bundle their packages; the library (dist/index.mjs) leaves them external.
    for (const options of [{}, { packages: "external" as const, external: [] }]) {
      const result = await build({
        ...(nodeBundle as BuildOptions),
        ...options,
        entryPoints: [join(ROOT, "src", "layers", "EmbedderTransformers.ts")],
        format: "esm",
        write: false,
        metafile: true,
        logLevel: "silent"
      })
      const inputs = Object.keys(result.metafile.inputs)
      expect(inputs.some((f) => f.endsWith("@xenova/transformers/src/tokenizers.js"))).toBe(true)
      // Neither the browser runtime nor the image library (0.25 s of a model load) is in it.
      expect(inputs.filter((f) => /onnxruntime-web|sharp|models\.js$|image\.js$/.test(f))).toEqual([])
      // Nothing of transformers.js' own dependencies is imported when the bundle starts (they may be absent).
      const imports = Object.values(result.metafile.outputs).flatMap((o) => o.imports)
      expect(imports.filter((i) => i.kind !== "dynamic-import" && /onnxruntime|sharp|@huggingface|@xenova/.test(i.path))).toEqual([])
    }
  })
})
