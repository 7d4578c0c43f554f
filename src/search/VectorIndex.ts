// Exact top-k vector search over an int8 matrix in WebAssembly memory.
//
// A full float32 scan of 100k x 384 reads 154 MB per query: about 40 ms in plain JavaScript and
// still ~16 ms with SIMD, bound by memory bandwidth. So each vector is held as int8 with a per-row
// scale, and a query runs in two passes:
//   1. an int8 scan (a quarter of the bytes; a hand-written WebAssembly SIMD kernel) gives every row an
//      approximate score and a proven error bound (Cauchy-Schwarz on the rounding residuals), hence an
//      interval holding its exact score;
//   2. only rows whose interval reaches the k-th best lower end are rescored exactly, in float64.
// The result is the exact top k, the same as a full scan, not an approximation. A vector given as floats
// keeps a float32 copy for pass 2; a vector given in its stored compact form (int8 with a scale,
// src/store/compactVector.ts) is held as those bytes only, and is exact as it is (no residual).
//
// An index opened from an image in a file (readImage with `rows`) may leave its rows there: a search reads
// them in chunks of CHUNK_ROWS into one reused buffer, runs both passes on each chunk (pass 2 against the
// floor known so far, which is never above the final one: the rows rescored are a superset, the top k the
// same), so a one-shot process holds one chunk, not the matrix. After a few searches (a warm process) or a
// change to an image row, the rows are read into memory once.

import { type ImageRows, int32Bytes, int32View, packSections, type ReadAt, readLayout, StringTable, unpackSections } from "./binaryImage.js"

export interface VectorHit {
  readonly id: string
  /** Dot product with the query: the cosine similarity when both vectors are unit length. */
  readonly score: number
}

// ---- The kernels, hand-assembled so the library needs no toolchain (the text form is beside each line).
const get = (i: number) => [0x20, i]
const set = (i: number) => [0x21, i]
const tee = (i: number) => [0x22, i]
const i32 = (n: number) => [0x41, ...sleb(n)]
const simd = (op: number, ...imm: Array<number>) => [0xfd, ...leb(op), ...imm]
const load128 = (offset: number) => simd(0x00, 0x04, offset) // v128.load align=16
const zero128 = simd(0x0c, ...new Array<number>(16).fill(0)) // v128.const 0
const loop = (...body: Array<Array<number>>) => [0x03, 0x40, ...body.flat(), 0x0b]

// Params: 0 query, 1 matrix, 2 rows, 3 stride (elements per row, a multiple of 16), 4 out. Locals: 5 end, 6 qp, 7 qEnd, 8.. v128.
// Both skip n == 0, set end = out + 4n, and run `row` until out reaches end.
const kernel = (qBytesPerElement: number, row: Array<number>, store: Array<number>) => [
  ...get(2), 0x45, 0x0d, 0x00, // if n == 0 return
  ...get(4), ...get(2), ...i32(2), 0x74, 0x6a, ...set(5), // end = out + (n << 2)
  ...get(0), ...get(3), ...i32(Math.log2(qBytesPerElement)), 0x74, 0x6a, ...set(7), // qEnd = q + stride * size
  ...loop(
    row,
    get(4), store, // *out = sum of the accumulator lanes
    get(4), i32(4), [0x6a], tee(4), // out += 4
    get(5), [0x49, 0x0d, 0x00] // out < end -> next row
  )
]

// i8dots: out[r] = sum_d m[r][d] * q[d], m int8, q int16 (pre-widened), exact int32; 16 elements per turn.
// (Unrolling to 32 measured no faster: the scan is bound by memory bandwidth.)
const I8_DOTS = [
  0x02, 0x03, 0x7f, 0x03, 0x7b, // locals: 3 x i32, 3 x v128 (8, 9 accumulators; 10 the loaded row chunk)
  ...kernel(
    2,
    [
      ...zero128, ...tee(8), ...set(9),
      ...get(0), ...set(6),
      ...loop(
        [...get(1), ...load128(0), ...set(10)],
        // a0 += dot(widen_low(m), q[0..8]); a1 += dot(widen_high(m), q[8..16])
        // (i16x8.extend_low/high_i8x16_s, i32x4.dot_i16x8_s, i32x4.add)
        [...get(8), ...get(10), ...simd(0x87), ...get(6), ...load128(0), ...simd(0xba), ...simd(0xae), ...set(8)],
        [...get(9), ...get(10), ...simd(0x88), ...get(6), ...load128(16), ...simd(0xba), ...simd(0xae), ...set(9)],
        [...get(1), ...i32(16), 0x6a, ...set(1)], // m += 16
        [...get(6), ...i32(32), 0x6a, ...tee(6), ...get(7), 0x49, 0x0d, 0x00] // qp += 32; qp < qEnd -> loop
      ),
      ...get(8), ...get(9), ...simd(0xae), ...set(8)
    ],
    [
      ...get(8), ...simd(0x1b, 0), ...get(8), ...simd(0x1b, 1), 0x6a, // i32x4.extract_lane, i32.add
      ...get(8), ...simd(0x1b, 2), 0x6a, ...get(8), ...simd(0x1b, 3), 0x6a,
      0x36, 0x02, 0x00 // i32.store
    ]
  ),
  0x0b
]

function leb(n: number): Array<number> {
  const out: Array<number> = []
  do {
    let byte = n & 0x7f
    n >>>= 7
    if (n !== 0) byte |= 0x80
    out.push(byte)
  } while (n !== 0)
  return out
}
function sleb(n: number): Array<number> {
  const out: Array<number> = []
  for (;;) {
    const byte = n & 0x7f
    n >>= 7
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) return [...out, byte]
    out.push(byte | 0x80)
  }
}
const section = (id: number, bytes: Array<number>) => [id, ...leb(bytes.length), ...bytes]
const name = (s: string) => [s.length, ...Array.from(s, (c) => c.charCodeAt(0))]
const body = (code: Array<number>) => [...leb(code.length), ...code]

// The few WebAssembly APIs used: the project's lib settings (ES2023, no DOM) do not declare them.
interface WasmMemory {
  readonly buffer: ArrayBuffer
  grow(pages: number): number
}
const Wasm = (globalThis as unknown as {
  readonly WebAssembly: {
    readonly Module: new (bytes: Uint8Array) => object
    readonly Instance: new (module: object) => { readonly exports: Record<string, unknown> }
  }
}).WebAssembly

let compiled: object | undefined
const kernels = () =>
  (compiled ??= new Wasm.Module(
    new Uint8Array([
      0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // \0asm, version 1
      ...section(1, [0x01, 0x60, 0x05, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x00]), // type: (i32 x5) -> ()
      ...section(3, [0x01, 0x00]), // one function of that type
      ...section(5, [0x01, 0x00, 0x01]), // one memory, at least one page
      ...section(7, [0x02, ...name("memory"), 0x02, 0x00, ...name("i8dots"), 0x00, 0x00]),
      ...section(10, [0x01, ...body(I8_DOTS)])
    ])
  ))

type Dots = (query: number, matrix: number, rows: number, stride: number, out: number) => void

const PAGE = 65536
// Scratch for reading a stored vector's float32 scale without a DataView per vector.
const scaleBytes = new Uint8Array(4)
const scaleFloat = new Float32Array(scaleBytes.buffer)
// Binary searches in an image's ids after which they are put in a map: a map costs about a decode of every id
// (a search decodes ~log2(n)), so it pays once a process has looked up a good part of them (a warm process).
const mapAfterLookups = (size: number): number => Math.max(256, size / 8)
// An image's magic: "AVI1".
const IMAGE_MAGIC = 0x31495641
// Slack on the bound for float rounding in the bound's own arithmetic.
const ROUNDING = 1e-5
// Rows a search over rows left in their file reads at a time (3 MB at 384 dimensions).
const CHUNK_ROWS = 8192
// Searches over rows left in their file after which they are read into memory (a warm process).
const RESIDENT_AFTER_SEARCHES = 2

/**
 * Rows to make room for when opening n: a few more, so the rows a writer adds next (a consolidation's new
 * nodes) do not double every per-row array at once (at 1M rows, ~300 ms of copying).
 */
const withRoom = (n: number): number => n + 1024 + (n >> 6)

/**
 * Exact top-k search by dot product over vectors of one dimension, each under a string id.
 * Memory per vector: 1 byte per dimension (rows padded to a multiple of 16), plus a float32 copy for a
 * vector added as floats (`add`); none for one added in its stored compact form (`addCompact`).
 */
export class VectorIndex {
  readonly dim: number
  private readonly stride: number
  private readonly memory: WasmMemory
  private readonly i8dots: Dots
  private capacity = 0
  // Rows [0, onDisk) are in the image file (`disk`), not in memory; the rest are in memory from i8At.
  private onDisk = 0
  private disk: { readonly rows: ImageRows; readonly at: number } | null = null
  private searches = 0
  // Where a chunk of rows read from the file goes (before i8At when there are such rows).
  private readonly chunkAt: number
  // Rows [0, fromBase) have their ids in `base`; ids and rows hold the rest (row = fromBase + position).
  private readonly ids: Array<string> = []
  private readonly rows = new Map<string, number>()
  // An index opened from an image keeps the image's ids there (found by binary search) until a removal or
  // many lookups call for a map: a search reads only the ids of its hits, and adding a row touches none.
  private base: StringTable | null = null
  private fromBase = 0
  private lookups = 0
  // Per row: the vector is scale * q exactly (compact) or within residual of it (floats, kept in `floats`).
  private scale = new Float64Array(0)
  // |scale * q| and |v - scale * q| (the rounding residual), for the bound.
  private quantNorm = new Float64Array(0)
  private residual = new Float64Array(0)
  // The stored scale of a compact row (its largest magnitude).
  private storedScale = new Float64Array(0)
  // The float32 copy of each row added as floats (`add`), by row.
  private readonly floats = new Map<number, Float32Array>()
  // A view of all of linear memory (renewed when it grows).
  private i8 = new Int8Array(0)
  // Linear memory, in bytes: [query i16][i8 matrix][i32 scores].
  private readonly queryI16At = 0
  private i8At: number
  private scoresAt = 0

  constructor(dim: number) {
    if (!Number.isInteger(dim) || dim <= 0) throw new RangeError(`dimension must be a positive integer, got ${dim}`)
    this.dim = dim
    this.stride = Math.ceil(dim / 16) * 16
    this.i8At = this.stride * 2
    this.chunkAt = this.i8At
    const instance = new Wasm.Instance(kernels())
    this.memory = instance.exports["memory"] as WasmMemory
    this.i8dots = instance.exports["i8dots"] as Dots
    this.reserve(1024)
  }

  /** Number of vectors held. */
  get size(): number {
    return this.fromBase + this.ids.length
  }

  has(id: string): boolean {
    return this.rowOf(id) !== undefined
  }

  /** Adds a vector, replacing any vector already held under the same id. The vector is copied. */
  add(id: string, vector: ArrayLike<number>): void {
    if (vector.length !== this.dim) throw new RangeError(`vector has ${vector.length} dimensions, index has ${this.dim}`)
    let max = 0
    for (let d = 0; d < this.dim; d++) {
      const x = vector[d]!
      if (!Number.isFinite(x)) throw new RangeError(`vector for ${id} has a non-finite value`)
      max = Math.max(max, Math.abs(x))
    }
    const row = this.rowInMemory(id)
    const f32 = Float32Array.from(vector)
    const i8 = new Int8Array(this.memory.buffer, this.rowAt(row), this.stride).fill(0)
    const s = max > 0 ? max / 127 : 1
    let qn = 0
    let res = 0
    for (let d = 0; d < this.dim; d++) {
      const q = Math.round(f32[d]! / s)
      i8[d] = q
      qn += q * q
      res += (f32[d]! - s * q) ** 2
    }
    this.floats.set(row, f32)
    this.scale[row] = s
    this.quantNorm[row] = s * Math.sqrt(qn)
    this.residual[row] = Math.sqrt(res)
  }

  /**
   * Adds a vector in its stored compact form (compactVector's bytes: the float32 scale, then one int8 per
   * dimension), replacing any vector under the same id. Its scores are those of the stored vector,
   * q[d] * scale / 127, with nothing else kept. `at`: where in `bytes` the vector starts (a bulk reader
   * passes one buffer of many); `bytes` from there on must hold at least the vector. False (nothing added)
   * when it does not, or the scale is not finite.
   */
  addCompact(id: string, bytes: Uint8Array, at = 0): boolean {
    if (at < 0 || bytes.byteLength - at < 4 + this.dim) return false
    scaleBytes[0] = bytes[at]!
    scaleBytes[1] = bytes[at + 1]!
    scaleBytes[2] = bytes[at + 2]!
    scaleBytes[3] = bytes[at + 3]!
    const scale = scaleFloat[0]!
    if (!Number.isFinite(scale)) return false
    const row = this.rowInMemory(id)
    const i8 = this.view()
    const start = this.rowAt(row)
    let qn = 0
    for (let d = 0; d < this.dim; d++) {
      const q = (bytes[at + 4 + d]! << 24) >> 24
      i8[start + d] = q
      qn += q * q
    }
    for (let d = this.dim; d < this.stride; d++) i8[start + d] = 0
    const s = scale / 127
    this.floats.delete(row)
    this.storedScale[row] = scale
    this.scale[row] = s
    this.quantNorm[row] = Math.abs(s) * Math.sqrt(qn)
    this.residual[row] = 0
    return true
  }

  /**
   * The index as one flat image (binaryImage.ts) that fromImage opens without re-reading a vector: the ids,
   * each row's stored scale, its sum of squares and its int8 values as held; `keep` picks the rows. Compact rows
   * only (those added by addCompact, as stores hold them): null when a row was added as floats, whose float copy
   * an image would drop.
   */
  toImage(keep: (id: string) => boolean = () => true): Uint8Array | null {
    if (this.floats.size > 0) return null
    this.loadRows()
    const rows: Array<number> = []
    for (let r = 0; r < this.size; r++) if (keep(this.idAt(r))) rows.push(r)
    const n = rows.length
    const scales = new Float32Array(n)
    const squares = new Int32Array(n)
    const all = new Int8Array(this.memory.buffer, this.i8At, this.size * this.stride)
    const matrix = new Int8Array(n * this.stride)
    rows.forEach((r, i) => {
      scales[i] = this.storedScale[r]!
      const row = all.subarray(r * this.stride, (r + 1) * this.stride)
      matrix.set(row, i * this.stride)
      let qn = 0
      for (let d = 0; d < this.dim; d++) qn += row[d]! * row[d]!
      squares[i] = qn
    })
    return packSections(IMAGE_MAGIC, [
      int32Bytes(new Int32Array([this.dim, n])),
      StringTable.encode(rows.map((r) => this.idAt(r)), true),
      new Uint8Array(scales.buffer),
      int32Bytes(squares),
      new Uint8Array(matrix.buffer)
    ])
  }

  /** Every (id, vector) held, in row order: the vector as it scores (a compact row decoded). */
  *entries(): Generator<readonly [string, Float32Array]> {
    this.loadRows()
    for (let r = 0; r < this.size; r++) {
      const f = this.floats.get(r)
      if (f !== undefined) {
        yield [this.idAt(r), Float32Array.from(f)]
        continue
      }
      const i8 = new Int8Array(this.memory.buffer, this.i8At + r * this.stride, this.dim)
      const v = new Float32Array(this.dim)
      for (let d = 0; d < this.dim; d++) v[d] = (i8[d]! * this.storedScale[r]!) / 127
      yield [this.idAt(r), v]
    }
  }

  /** An index from a toImage image (its rows copied in one move), or null when the bytes are not one. */
  static fromImage(bytes: Uint8Array): VectorIndex | null {
    const sections = unpackSections(bytes, IMAGE_MAGIC, 5)
    if (sections === null) return null
    const matrix = sections[4]!
    return VectorIndex.fromParts(sections, matrix.length, (into) => {
      into.set(matrix)
      return true
    })
  }

  /**
   * An index from a toImage image of `length` bytes at `at` in a file: its rows are read straight into the
   * index's memory (no copy of them on the JavaScript heap); null when the bytes there are not one. With
   * `rows` (reading the same file, held open), the rows stay in the file and searches read them in chunks.
   */
  static readImage(read: ReadAt, at: number, length: number, rows?: ImageRows): VectorIndex | null {
    const layout = readLayout(read, at, IMAGE_MAGIC, 5)
    if (layout === null || layout.total !== length) return null
    // Everything before the rows (head, ids, scales, squares) in one read.
    const before = new Uint8Array(layout.starts[4]!)
    if (read(before, at) !== before.length) return null
    const sections = layout.starts.slice(0, 4).map((start, i) => before.subarray(start, start + layout.lengths[i]!))
    const rowsAt = at + layout.starts[4]!
    return VectorIndex.fromParts(
      sections,
      layout.lengths[4]!,
      (into) => read(into, rowsAt) === into.length,
      rows === undefined ? null : { rows, at: rowsAt }
    )
  }

  /** An index from an image's first four sections; `fillRows` puts its int8 rows (`rowBytes` of them) in place. */
  private static fromParts(
    sections: ReadonlyArray<Uint8Array>,
    rowBytes: number,
    fillRows: (into: Uint8Array) => boolean,
    disk: { readonly rows: ImageRows; readonly at: number } | null = null
  ): VectorIndex | null {
    const head = int32View(sections[0]!)
    const ids = StringTable.decode(sections[1]!)
    const squares = int32View(sections[3]!)
    if (head === null || head.length !== 2 || ids === null || squares === null) return null
    const [dim, n] = [head[0]!, head[1]!]
    if (!Number.isInteger(dim) || dim <= 0 || ids.size !== n || squares.length !== n) return null
    const scaleBytes = sections[2]!
    const scales = new Float32Array(scaleBytes.buffer, scaleBytes.byteOffset, scaleBytes.length / 4)
    const index = new VectorIndex(dim)
    if (scaleBytes.length !== 4 * n || rowBytes !== n * index.stride) return null
    if (disk !== null && n > 0) {
      index.disk = disk
      index.onDisk = n
      index.i8At = index.chunkAt + CHUNK_ROWS * index.stride
      index.reserve(Math.max(withRoom(n), index.capacity))
    } else {
      if (n > index.capacity) index.reserve(withRoom(n))
      if (!fillRows(new Uint8Array(index.memory.buffer, index.i8At, rowBytes))) return null
    }
    for (let r = 0; r < n; r++) {
      const scale = scales[r]!
      if (!Number.isFinite(scale)) return null
      const s = scale / 127
      index.storedScale[r] = scale
      index.scale[r] = s
      index.quantNorm[r] = Math.abs(s) * Math.sqrt(squares[r]!)
    }
    index.base = ids
    index.fromBase = ids.size
    return index
  }

  /** The dot product of the vector held under id with query (as search scores it), or undefined. */
  score(id: string, query: ArrayLike<number>): number | undefined {
    const row = this.rowOf(id)
    if (row === undefined) return undefined
    if (query.length !== this.dim) throw new RangeError(`query has ${query.length} dimensions, index has ${this.dim}`)
    const q = query instanceof Float32Array ? query : Float32Array.from(query)
    if (row >= this.onDisk) return this.exact(row, this.rowAt(row), q)
    this.readRows(row, 1)
    return this.exact(row, this.chunkAt, q)
  }

  /** Removes the vector held under id; false when there was none. The last row moves into its place. */
  remove(id: string): boolean {
    this.materialize()
    this.loadRows()
    const row = this.rows.get(id)
    if (row === undefined) return false
    const last = this.ids.length - 1
    if (row !== last) {
      const moved = this.ids[last]!
      new Uint8Array(this.memory.buffer).copyWithin(this.i8At + row * this.stride, this.i8At + last * this.stride, this.i8At + (last + 1) * this.stride)
      this.scale[row] = this.scale[last]!
      this.quantNorm[row] = this.quantNorm[last]!
      this.residual[row] = this.residual[last]!
      this.storedScale[row] = this.storedScale[last]!
      const f = this.floats.get(last)
      if (f === undefined) this.floats.delete(row)
      else this.floats.set(row, f)
      this.ids[row] = moved
      this.rows.set(moved, row)
    }
    this.ids.pop()
    this.floats.delete(last)
    this.rows.delete(id)
    return true
  }

  /**
   * The k vectors with the highest dot product with query, best first (ties: the earlier row first),
   * scored exactly. filter, when given, must accept an id for it to appear; it is consulted only
   * for rows that could make the top k, so it may see fewer ids than the index holds.
   */
  search(query: ArrayLike<number>, k: number, filter?: (id: string) => boolean): Array<VectorHit> {
    if (query.length !== this.dim) throw new RangeError(`query has ${query.length} dimensions, index has ${this.dim}`)
    const n = this.size
    k = Math.min(Math.floor(k), n)
    if (k <= 0) return []

    // The query in float32 and as int16-widened int8 with its own scale and residual.
    const qf = Float32Array.from(query)
    const qi = new Int16Array(this.memory.buffer, this.queryI16At, this.stride).fill(0)
    let max = 0
    let norm = 0
    for (let d = 0; d < this.dim; d++) {
      max = Math.max(max, Math.abs(qf[d]!))
      norm += qf[d]! * qf[d]!
    }
    if (!Number.isFinite(norm)) throw new RangeError("query has a non-finite value")
    const t = max > 0 ? max / 127 : 1
    let residual = 0
    for (let d = 0; d < this.dim; d++) {
      qi[d] = Math.round(qf[d]! / t)
      residual += (qf[d]! - t * qi[d]!) ** 2
    }
    residual = Math.sqrt(residual)
    norm = Math.sqrt(norm)

    // Pass 1: v.u = s t (q_v . q_u) + s q_v . r_u + r_v . u, so |v.u - s t (q_v . q_u)| <= |s q_v||r_u| + |r_v||u|.
    // Both passes run chunk by chunk (one chunk of all rows when all are in memory); `lows` and `best` carry over.
    if (this.disk !== null && ++this.searches > RESIDENT_AFTER_SEARCHES) this.loadRows()
    const { scale, quantNorm } = this
    const rowResidual = this.residual
    const step = this.disk === null ? n : CHUNK_ROWS
    // Filter answers for the chunk's rows, asked at most once per row: 0 not asked, 1 accepted, 2 refused.
    const verdict = filter === undefined ? null : this.verdicts(Math.min(step, n))
    // The k-th best lower end among accepted rows: the exact k-th best score is at least this.
    const lows = new TopK(k)
    const best = new TopK(k)
    for (let from = 0; from < n; ) {
      // A chunk never straddles the end of the rows in the file.
      const to = Math.min(n, from + step, from < this.onDisk ? this.onDisk : n)
      const rows = to - from
      let at: number
      if (from < this.onDisk) {
        this.readRows(from, rows)
        at = this.chunkAt
      } else at = this.rowAt(from)
      this.i8dots(this.queryI16At, at, rows, this.stride, this.scoresAt)
      const raw = new Int32Array(this.memory.buffer, this.scoresAt, rows)
      if (verdict !== null) verdict.fill(0, 0, rows)
      const accepted = (r: number) => {
        if (verdict === null) return true
        const v = r - from
        if (verdict[v] === 0) verdict[v] = filter!(this.idAt(r)) ? 1 : 2
        return verdict[v] === 1
      }
      for (let i = 0; i < rows; i++) {
        const r = from + i
        const low = scale[r]! * t * raw[i]! - quantNorm[r]! * residual - rowResidual[r]! * norm - ROUNDING
        if (lows.admits(low) && accepted(r)) lows.push(low, r)
      }
      const floor = lows.full() ? lows.weakestScore() : Number.NEGATIVE_INFINITY

      // Pass 2: exact scores for the rows whose upper end reaches the floor (so far).
      for (let i = 0; i < rows; i++) {
        const r = from + i
        const high = scale[r]! * t * raw[i]! + quantNorm[r]! * residual + rowResidual[r]! * norm + ROUNDING
        if (high < floor || !accepted(r)) continue
        const score = this.exact(r, at + i * this.stride, qf)
        if (best.admits(score)) best.push(score, r)
      }
      from = to
    }
    return best.sorted().map(({ score, row }) => ({ id: this.idAt(row), score }))
  }

  /** Row r's dot product with q: over its float32 copy, or its int8 values (at byte `at` of memory) times its scale. */
  private exact(r: number, at: number, q: Float32Array): number {
    const f = this.floats.get(r)
    let sum = 0
    if (f !== undefined) {
      for (let d = 0; d < this.dim; d++) sum += f[d]! * q[d]!
      return sum
    }
    const i8 = this.view()
    for (let d = 0; d < this.dim; d++) sum += i8[at + d]! * q[d]!
    // As the stored vector reads back, q[d] * scale / 127 (so a stored unit axis scores exactly 1).
    return (sum * this.storedScale[r]!) / 127
  }

  /** A view of all of linear memory. */
  private view(): Int8Array {
    if (this.i8.buffer !== this.memory.buffer) this.i8 = new Int8Array(this.memory.buffer)
    return this.i8
  }

  /** Where an in-memory row's int8 values start. */
  private rowAt(row: number): number {
    return this.i8At + (row - this.onDisk) * this.stride
  }

  /** The filter answers' scratch, `rows` long (kept between searches). */
  private verdicts(rows: number): Uint8Array {
    if (this.verdictScratch.length < rows) this.verdictScratch = new Uint8Array(rows)
    return this.verdictScratch
  }

  private verdictScratch = new Uint8Array(0)

  /** Lets go of the image file its rows are read from, if any (the index is not used after). */
  close(): void {
    const disk = this.disk
    this.disk = null
    disk?.rows.close()
  }

  /** Reads `count` rows from `from` (all in the file) into the chunk buffer. */
  private readRows(from: number, count: number): void {
    const disk = this.disk!
    const into = new Uint8Array(this.memory.buffer, this.chunkAt, count * this.stride)
    if (disk.rows.read(into, disk.at + from * this.stride) !== into.length) throw new Error("vector image cut short")
  }

  /** Reads the rows left in the file into memory (before the ones added since), and lets the file go. */
  private loadRows(): void {
    const disk = this.disk
    if (disk === null) return
    const held = this.onDisk
    const added = this.size - held
    this.disk = null
    this.onDisk = 0
    this.reserve(this.capacity)
    const bytes = new Uint8Array(this.memory.buffer)
    bytes.copyWithin(this.i8At + held * this.stride, this.i8At, this.i8At + added * this.stride)
    const into = bytes.subarray(this.i8At, this.i8At + held * this.stride)
    const got = disk.rows.read(into, disk.at)
    disk.rows.close()
    if (got !== into.length) throw new Error("vector image cut short")
  }

  /** The row for id, its int8 values in memory (an image row left in the file brings all of them in). */
  private rowInMemory(id: string): number {
    const row = this.rowFor(id)
    if (row < this.onDisk) this.loadRows()
    return row
  }

  /** The row for id: its own, or a new one at the end. */
  private rowFor(id: string): number {
    let row = this.rowOf(id)
    if (row === undefined) {
      row = this.size
      if (row === this.capacity) this.reserve(this.capacity * 2)
      this.ids.push(id)
      this.rows.set(id, row)
    }
    return row
  }

  private idAt(row: number): string {
    return row < this.fromBase ? this.base!.at(row) : this.ids[row - this.fromBase]!
  }

  /** id's row: an image id found by binary search (until so many lookups that a map pays), others by map. */
  private rowOf(id: string): number | undefined {
    if (this.base !== null && ++this.lookups > mapAfterLookups(this.base.size)) this.materialize()
    if (this.base !== null) {
      const row = this.base.indexOf(id)
      if (row >= 0) return row
    }
    return this.rows.get(id)
  }

  /** Moves the image's ids into ids and rows, before the rows added since (a removal, or many lookups). */
  private materialize(): void {
    const base = this.base
    if (base === null) return
    this.base = null
    const added = this.ids.splice(0)
    for (let r = 0; r < base.size; r++) {
      const id = base.at(r)
      this.ids.push(id)
      this.rows.set(id, r)
    }
    for (const id of added) this.ids.push(id)
    this.fromBase = 0
  }

  /** Room for `capacity` rows (those left in the file take none in memory; a chunk buffer and its scores stand for them). */
  private reserve(capacity: number): void {
    const inMemory = capacity - this.onDisk
    const scoresAt = this.i8At + inMemory * this.stride
    const bytes = scoresAt + Math.max(inMemory, this.onDisk > 0 ? CHUNK_ROWS : 0) * 4
    const have = this.memory.buffer.byteLength
    if (bytes > have) this.memory.grow(Math.ceil((bytes - have) / PAGE))
    this.scoresAt = scoresAt
    if (capacity === this.capacity) return
    const grow = (a: Float64Array) => {
      const b = new Float64Array(capacity)
      b.set(a)
      return b
    }
    this.scale = grow(this.scale)
    this.quantNorm = grow(this.quantNorm)
    this.residual = grow(this.residual)
    this.storedScale = grow(this.storedScale)
    this.capacity = capacity
  }
}

/** The best k (score, row) pairs seen: a binary min-heap whose root is the weakest (ties: later row). */
class TopK {
  private readonly scores: Float64Array
  private readonly rows: Int32Array
  private size = 0

  constructor(private readonly k: number) {
    this.scores = new Float64Array(k)
    this.rows = new Int32Array(k)
  }

  full(): boolean {
    return this.size === this.k
  }

  weakestScore(): number {
    return this.scores[0]!
  }

  /** Whether (score, row) would enter; rows arrive in increasing order, so a tie never displaces. */
  admits(score: number): boolean {
    return this.size < this.k || score > this.scores[0]!
  }

  push(score: number, row: number): void {
    const s = this.scores
    const r = this.rows
    const weaker = (i: number, j: number) => s[i]! < s[j]! || (s[i] === s[j] && r[i]! > r[j]!)
    const swap = (i: number, j: number) => {
      const ts = s[i]!
      const tr = r[i]!
      s[i] = s[j]!
      r[i] = r[j]!
      s[j] = ts
      r[j] = tr
    }
    if (this.size < this.k) {
      let i = this.size++
      s[i] = score
      r[i] = row
      while (i > 0) {
        const p = (i - 1) >> 1
        if (!weaker(i, p)) break
        swap(i, p)
        i = p
      }
      return
    }
    s[0] = score
    r[0] = row
    let i = 0
    for (;;) {
      const l = 2 * i + 1
      let m = i
      if (l < this.k && weaker(l, m)) m = l
      if (l + 1 < this.k && weaker(l + 1, m)) m = l + 1
      if (m === i) return
      swap(i, m)
      i = m
    }
  }

  sorted(): Array<{ score: number; row: number }> {
    return Array.from({ length: this.size }, (_, i) => ({ score: this.scores[i]!, row: this.rows[i]! })).sort(
      (a, b) => b.score - a.score || a.row - b.row
    )
  }
}
