// Embeddings on disk as int8 with a per-vector scale: 4 + dim bytes instead of float32's 4 * dim (388 bytes
// instead of 1,536 for 384 dimensions). The scale is the vector's largest magnitude (a float32), stored
// first; component d is q[d] * scale / 127. The largest components come back exact, every other one within
// scale / 254, so a dot product with a unit query moves by about scale / 440 (~0.0003 for a MiniLM vector).
// Readers also accept the float32 bytes written before (4 * dim, never equal to 4 + dim).

/** Bytes of a compact vector of `dim` dimensions. */
export const compactLength = (dim: number): number => 4 + dim

/** The compact bytes of a vector: its largest magnitude as float32 (little-endian), then one int8 per component. */
export const encodeVector = (v: ArrayLike<number>): Buffer => {
  let max = 0
  for (let d = 0; d < v.length; d++) max = Math.max(max, Math.abs(v[d]!))
  const scale = Math.fround(max)
  const out = Buffer.alloc(compactLength(v.length))
  out.writeFloatLE(scale, 0)
  if (scale > 0 && Number.isFinite(scale)) {
    const q = new Int8Array(out.buffer, out.byteOffset + 4, v.length)
    for (let d = 0; d < v.length; d++) q[d] = Math.max(-127, Math.min(127, Math.round((v[d]! * 127) / scale)))
  }
  return out
}

// Scratch for reading one little-endian float32 without a DataView per vector.
const word = new Uint8Array(4)
const wordFloat = new Float32Array(word.buffer)
const floatAt = (bytes: Uint8Array, at: number): number => {
  word[0] = bytes[at]!
  word[1] = bytes[at + 1]!
  word[2] = bytes[at + 2]!
  word[3] = bytes[at + 3]!
  return wordFloat[0]!
}

/**
 * The vector stored in `bytes` of a `dim`-dimension embedding: compact (4 + dim bytes) or the float32 form
 * of older files and rows (4 * dim bytes); null for any other length. Written into `out` when given (a bulk
 * reader reuses one array: allocating typed arrays costs more than decoding them).
 */
export const decodeVector = (bytes: Uint8Array, dim: number, out?: Float32Array): Float32Array | null => {
  if (!Number.isInteger(dim) || dim < 0) return null
  if (bytes.byteLength === compactLength(dim)) {
    const v = out ?? new Float32Array(dim)
    const scale = floatAt(bytes, 0)
    for (let d = 0; d < dim; d++) v[d] = (((bytes[4 + d]! << 24) >> 24) * scale) / 127
    return v
  }
  if (bytes.byteLength === 4 * dim) {
    const v = out ?? new Float32Array(dim)
    for (let d = 0; d < dim; d++) v[d] = floatAt(bytes, 4 * d)
    return v
  }
  return null
}

/** Whether `bytes` already hold the compact form of a `dim`-dimension vector. */
export const isCompact = (bytes: Uint8Array, dim: number): boolean => bytes.byteLength === compactLength(dim)

/** The vector as it reads back after being stored: what every process that reads it will see. */
export const storedVector = (v: Float32Array): Float32Array => decodeVector(encodeVector(v), v.length)!
