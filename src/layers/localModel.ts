import { createRequire } from "node:module"
import { basename, dirname, join } from "node:path"

// A model folder loaded with only the two parts an embedding needs: transformers.js' tokenizer module and
// an ONNX Runtime session opened on the model file. The whole of transformers.js would also load
// onnxruntime-web and sharp (0.3 s of a 0.8 s load), and it reads the model into a JS buffer before
// handing it to ONNX Runtime (0.2 s more); the vectors are the same, since the same runtime runs the same
// graph with the same default session options.

/** What the tokenizer returns for a batch: ids, mask and token types as [batch, sequence] int64 tensors. */
export interface Tensor {
  readonly data: ArrayLike<number | bigint> & { [i: number]: number | bigint }
  readonly dims: ReadonlyArray<number>
}
export interface Encoded {
  readonly input_ids: Tensor
  readonly attention_mask: Tensor
  readonly token_type_ids?: Tensor
}
export interface Tokenizer {
  (texts: Array<string>, options: { padding: boolean; truncation: boolean; max_length: number }): Encoded
  readonly sep_token_id: number | undefined
  encode(text: string): ReadonlyArray<number>
}
export type RunModel = (inputs: Encoded) => Promise<{ readonly last_hidden_state?: Tensor }>

interface OrtTensor extends Tensor {
  readonly type: string
}
interface Ort {
  readonly Tensor: new (type: "int64", data: BigInt64Array, dims: ReadonlyArray<number>) => OrtTensor
  readonly InferenceSession: {
    create(path: string, options: { executionProviders: Array<string>; intraOpNumThreads: number }): Promise<{
      readonly inputNames: ReadonlyArray<string>
      run(feeds: Record<string, OrtTensor>): Promise<Record<string, Tensor | undefined>>
    }>
  }
}
interface TokenizerModule {
  readonly AutoTokenizer: { from_pretrained(name: string): Promise<unknown> }
}
interface TransformersEnv {
  localModelPath: string
  allowLocalModels: boolean
  allowRemoteModels: boolean
  useFSCache: boolean
}

interface Modules {
  readonly tokenizers: TokenizerModule
  readonly env: TransformersEnv
  readonly ort: Ort
}

const importModules = async (): Promise<Modules> => {
  try {
    // Bundled into the bins (scripts/bundleOptions.mjs); from sources, the package's own modules.
    const [tokenizers, { env }] = (await Promise.all([
      import("@xenova/transformers/src/tokenizers.js"),
      import("@xenova/transformers/src/env.js")
    ])) as [TokenizerModule, { env: TransformersEnv }]
    // transformers.js' own runtime, as CommonJS (a require skips the ES-module wrapper's export scan).
    const ort = createRequire(import.meta.url)("onnxruntime-node") as Ort
    return { tokenizers, env, ort }
  } catch (e) {
    throw new Error(`@xenova/transformers is not installed (${e instanceof Error ? e.message : String(e)})`)
  }
}

const loadTokenizer = async (m: Modules, dir: string): Promise<Tokenizer> => {
  // transformers.js resolves a local model as <localModelPath>/<id>/<file>; never reach for the hub.
  m.env.localModelPath = dirname(dir) + "/"
  m.env.allowLocalModels = true
  m.env.allowRemoteModels = false
  m.env.useFSCache = false
  return (await m.tokenizers.AutoTokenizer.from_pretrained(basename(dir))) as Tokenizer
}

const openSession = async ({ ort }: Modules, file: string, threads: number): Promise<RunModel> => {
  // From the path: ONNX Runtime reads the file itself, with no copy of it in the JS heap.
  const session = await ort.InferenceSession.create(file, { executionProviders: ["cpu"], intraOpNumThreads: threads })
  return async (enc) => {
    const ids = enc.input_ids
    const int64 = (t: Tensor) => new ort.Tensor("int64", t.data as BigInt64Array, t.dims)
    const given: Record<string, Tensor | undefined> = { ...enc }
    const feeds: Record<string, OrtTensor> = {}
    // As transformers.js' encoder forward: the inputs the graph declares, token types zero when absent.
    for (const name of session.inputNames) {
      const t = given[name]
      feeds[name] = t !== undefined ? int64(t) : new ort.Tensor("int64", new BigInt64Array(ids.data.length), ids.dims)
    }
    const out = await session.run(feeds)
    return { ...(out["last_hidden_state"] !== undefined ? { last_hidden_state: out["last_hidden_state"] } : {}) }
  }
}

/**
 * The tokenizer and the model of a complete local folder (`onnx/model.onnx`, or the int8 file), loaded
 * together; `threads`: ONNX Runtime's threads per run (the vectors are the same for any number).
 */
export const loadLocalModel = async (dir: string, quantized: boolean, threads: number): Promise<{ tokenizer: Tokenizer; model: RunModel }> => {
  const m = await importModules()
  const [tokenizer, model] = await Promise.all([
    loadTokenizer(m, dir),
    openSession(m, join(dir, quantized ? "onnx/model_quantized.onnx" : "onnx/model.onnx"), threads)
  ])
  return { tokenizer, model }
}
