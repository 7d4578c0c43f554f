import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"

// A model folder loaded with only the two parts an embedding needs: transformers.js' tokenizer module and
// an ONNX Runtime session opened on the model file. The whole of transformers.js would also load
// onnxruntime-web and sharp (0.3 s of a 0.8 s load), and it reads the model into a JS buffer before
// handing it to ONNX Runtime (0.2 s more); the vectors are the same, since the same runtime runs the same
// graph with the same default session options. The tokenizer is built from the folder's two JSON files as
// transformers.js' AutoTokenizer builds it, without its hub: that reads a local file through fetch's Response,
// Headers and streams, whose first use loads Node's fetch (undici): ~25 ms of CPU of every query's start.

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
type TokenizerClass = new (tokenizerJSON: unknown, tokenizerConfig: unknown) => unknown
interface TokenizerModule {
  readonly AutoTokenizer: { readonly TOKENIZER_CLASS_MAPPING: Readonly<Record<string, TokenizerClass | undefined>> }
  readonly PreTrainedTokenizer: TokenizerClass
}

interface Modules {
  readonly tokenizers: TokenizerModule
  readonly ort: Ort
}

const importModules = async (): Promise<Modules> => {
  try {
    // Bundled into the bins (scripts/bundleOptions.mjs); from sources, the package's own modules.
    const tokenizers = (await import("@xenova/transformers/src/tokenizers.js")) as TokenizerModule
    // transformers.js' own runtime, as CommonJS (a require skips the ES-module wrapper's export scan).
    const ort = createRequire(import.meta.url)("onnxruntime-node") as Ort
    return { tokenizers, ort }
  } catch (e) {
    throw new Error(`@xenova/transformers is not installed (${e instanceof Error ? e.message : String(e)})`)
  }
}

/** The folder's tokenizer, as transformers.js 2.17's AutoTokenizer.from_pretrained makes it (no `legacy` given). */
const loadTokenizer = ({ tokenizers }: Modules, dir: string): Tokenizer => {
  const json = JSON.parse(readFileSync(join(dir, "tokenizer.json"), "utf8")) as unknown
  const config = JSON.parse(readFileSync(join(dir, "tokenizer_config.json"), "utf8")) as { tokenizer_class?: unknown }
  // Some tokenizers are saved with the "Fast" suffix; an unknown class is built as the base class.
  const name = typeof config.tokenizer_class === "string" ? config.tokenizer_class.replace(/Fast$/, "") : "PreTrainedTokenizer"
  const Class = tokenizers.AutoTokenizer.TOKENIZER_CLASS_MAPPING[name] ?? tokenizers.PreTrainedTokenizer
  return new Class(json, config) as Tokenizer
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
  const tokenizer = loadTokenizer(m, dir)
  const model = await openSession(m, join(dir, quantized ? "onnx/model_quantized.onnx" : "onnx/model.onnx"), threads)
  return { tokenizer, model }
}
