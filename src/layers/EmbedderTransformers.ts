import { Effect, Layer } from "effect"
import { existsSync } from "node:fs"
import { homedir } from "node:os"
import { join, resolve } from "node:path"
import { Embedder, EmbedderError } from "../services/Embedder.js"
import { hostImport } from "../runtime/hostImport.js"
import { loadLocalModel, type RunModel, type Tokenizer } from "./localModel.js"

/** The reference's model: sentence-transformers/all-MiniLM-L6-v2 as ONNX. */
export const DEFAULT_MODEL_ID = "Xenova/all-MiniLM-L6-v2"

export interface EmbedderTransformersOptions {
  /** Stored beside every vector; without modelDir also the hub repository downloaded on first use. */
  readonly modelId: string
  /** A local model folder (config.json, tokenizer files, onnx/model.onnx): nothing is ever downloaded. */
  readonly modelDir?: string
  /** Where a downloaded model is kept (default ~/.cache/awhm/models). */
  readonly cacheDir?: string
  /** Run onnx/model_quantized.onnx (int8): smaller and faster, vectors differ from the reference by ~1e-2. */
  readonly quantized?: boolean
  /** Output dimension, checked once the model has loaded (384 for all-MiniLM-L6-v2). */
  readonly dimension?: number
  /** Token limit per text: sentence-transformers' max_seq_length, 256 for all-MiniLM-L6-v2. */
  readonly maxTokens?: number
  /**
   * ONNX Runtime threads per run for a local folder (default 1). A second thread spins between runs: on
   * two shared cores it cost CPU and wall time (20 texts: 0.45 s CPU against 0.29 s). Same vectors.
   */
  readonly threads?: number
}

/** Files transformers.js needs in a local model folder. */
export const modelFiles = (quantized: boolean): ReadonlyArray<string> => [
  "config.json",
  "tokenizer.json",
  "tokenizer_config.json",
  quantized ? "onnx/model_quantized.onnx" : "onnx/model.onnx"
]

interface Loaded {
  readonly tokenizer: Tokenizer
  readonly model: RunModel
}

// A failure whose message is ours and safe to show (it never quotes input text).
class ModelMismatch extends Error {}

// Sorting by length keeps padding low; 32 texts per run bounds memory for long inputs.
const BATCH_SIZE = 32

// One load per process and model, shared by every layer built with the same options; a failed load is
// remembered too, so an offline user pays for the failure once and then stays lexical-only.
const loads = new Map<string, Promise<Loaded>>()

interface LoadOptions {
  readonly modelId: string
  readonly modelDir: string | undefined
  readonly cacheDir: string | undefined
  readonly quantized: boolean
  readonly threads: number
}

const load = async (o: LoadOptions): Promise<Loaded> => {
  if (o.modelDir !== undefined) {
    const dir = resolve(o.modelDir)
    // Checked first so that a missing model fails with one clear line, before anything is imported.
    const missing = modelFiles(o.quantized).filter((f) => !existsSync(join(dir, f)))
    if (missing.length > 0) {
      throw new Error(
        `no model at ${dir} (missing ${missing.join(", ")}); run \`awhm model install\` (or point AWHM_MODEL_DIR at a copy of ${o.modelId})`
      )
    }
    return loadLocalModel(dir, o.quantized, o.threads)
  }
  const tf = await importTransformers()
  // Downloaded from the hub on first use into our cache; no lookup in transformers.js' own models/ folder.
  tf.env.allowLocalModels = false
  tf.env.allowRemoteModels = true
  tf.env.useFSCache = true
  tf.env.cacheDir = o.cacheDir ?? join(homedir(), ".cache", "awhm", "models")
  try {
    return await fromPretrained(tf, o.modelId, o.quantized)
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e)
    throw new Error(`${why} (offline? point AWHM_MODEL_DIR at a local copy of ${o.modelId})`)
  }
}

type Transformers = typeof import("@xenova/transformers")

const importTransformers = async (): Promise<Transformers> => {
  try {
    // Dynamic so that loading this layer (and a bundled CLI) never pays for transformers.js + onnxruntime.
    // Through the host's import in a code-cached bundle (runtime/hostImport.ts).
    return (await hostImport("@xenova/transformers", () => import("@xenova/transformers"))) as Transformers
  } catch (e) {
    throw new Error(`@xenova/transformers is not installed (${e instanceof Error ? e.message : String(e)})`)
  }
}

const fromPretrained = async (tf: Transformers, repo: string, quantized: boolean): Promise<Loaded> => {
  const tokenizer = (await tf.AutoTokenizer.from_pretrained(repo)) as unknown as Tokenizer
  const model = (await tf.AutoModel.from_pretrained(repo, { quantized })) as unknown as RunModel
  return { tokenizer, model }
}

const embedBatch = async (m: Loaded, texts: Array<string>, maxTokens: number, dimension: number) => {
  // Given max_length, transformers.js pads every text to it; pad only to the longest text instead.
  const lengths = texts.map((t) => m.tokenizer.encode(t).length)
  const enc = m.tokenizer(texts, { padding: true, truncation: true, max_length: Math.min(maxTokens, Math.max(...lengths)) })
  const ids = enc.input_ids.data
  const mask = enc.attention_mask.data
  const seq = enc.input_ids.dims[1] ?? 0
  // transformers.js 2.17 truncates after adding [CLS]/[SEP], dropping the final [SEP]; the Python
  // tokenizer keeps it, so put it back to get the reference's vectors for long texts.
  const sep = m.tokenizer.sep_token_id
  if (sep !== undefined) {
    lengths.forEach((length, b) => {
      if (length > seq) ids[b * seq + seq - 1] = BigInt(sep)
    })
  }
  const out = await m.model(enc)
  const hidden = out.last_hidden_state
  const dim = hidden?.dims[2]
  if (hidden === undefined || dim !== dimension) {
    throw new ModelMismatch(`model output has dimension ${String(dim)}, expected ${dimension}`)
  }
  const h = hidden.data as Float32Array
  // sentence-transformers' Pooling(mean over attended tokens) then Normalize (x / max(|x|, 1e-12)).
  return texts.map((_, b) => {
    const acc = new Float64Array(dim)
    let count = 0
    for (let s = 0; s < seq; s++) {
      if (Number(mask[b * seq + s]) !== 1) continue
      count++
      const base = (b * seq + s) * dim
      for (let d = 0; d < dim; d++) acc[d]! += h[base + d]!
    }
    let norm = 0
    for (let d = 0; d < dim; d++) {
      acc[d]! /= Math.max(count, 1e-9)
      norm += acc[d]! * acc[d]!
    }
    norm = Math.max(Math.sqrt(norm), 1e-12)
    const v = new Float32Array(dim)
    for (let d = 0; d < dim; d++) v[d] = acc[d]! / norm
    return v
  })
}

const embedAll = async (m: Loaded, texts: ReadonlyArray<string>, maxTokens: number, dimension: number) => {
  const order = texts.map((_, i) => i).sort((a, b) => texts[b]!.length - texts[a]!.length)
  const result = new Array<Float32Array>(texts.length)
  for (let start = 0; start < order.length; start += BATCH_SIZE) {
    const idx = order.slice(start, start + BATCH_SIZE)
    const vectors = await embedBatch(m, idx.map((i) => texts[i]!), maxTokens, dimension)
    idx.forEach((i, j) => (result[i] = vectors[j]!))
  }
  return result
}

/**
 * The live embedder: a sentence-transformers model run locally by transformers.js (ONNX Runtime).
 * The model loads on the first non-empty embed call, once per process; if it cannot load, every embed
 * fails with EmbedderError and the caller falls back to lexical search.
 */
export const EmbedderTransformers = (opts: EmbedderTransformersOptions) =>
  Layer.sync(Embedder, () => {
    const o: LoadOptions = {
      modelId: opts.modelId,
      modelDir: opts.modelDir,
      cacheDir: opts.cacheDir,
      quantized: opts.quantized ?? false,
      threads: opts.threads ?? 1
    }
    const dimension = opts.dimension ?? 384
    const maxTokens = opts.maxTokens ?? 256
    const key = JSON.stringify([o.modelId, o.modelDir ?? null, o.cacheDir ?? null, o.quantized, o.threads])
    const getModel = Effect.tryPromise({
      try: () => {
        let p = loads.get(key)
        if (p === undefined) {
          p = load(o)
          loads.set(key, p)
        }
        return p
      },
      catch: (e) =>
        new EmbedderError({
          operation: "load",
          message: `embedding model ${o.modelId} could not be loaded: ${e instanceof Error ? e.message : String(e)}`
        })
    })
    return Embedder.of({
      modelId: o.modelId,
      enabled: true,
      dimension,
      embed: (texts) =>
        texts.length === 0
          ? Effect.succeed([])
          : Effect.flatMap(getModel, (m) =>
              Effect.tryPromise({
                try: () => embedAll(m, texts, maxTokens, dimension),
                // The library's message could quote the input; error text never carries memory content.
                catch: (e) =>
                  new EmbedderError({
                    operation: "embed",
                    message:
                      e instanceof ModelMismatch
                        ? `embedding with ${o.modelId} failed: ${e.message}`
                        : `embedding with ${o.modelId} failed (${e instanceof Error ? e.name : "unknown error"})`
                  })
              })
            )
    })
  })
