// Exact top-k vector search over one contiguous float32 matrix.
//
// The scan is the hot loop (100k x 384 = 38M multiply-adds per query). Plain JavaScript does it in about
// 40 ms; a 120-byte WebAssembly SIMD kernel (f32x4, four accumulators) does it in a fraction of that,
// so the matrix lives in the kernel's linear memory and JavaScript only selects the top k from the
// scores it writes. Exact: every row is scored in float32, nothing is approximated.

export interface VectorHit {
  readonly id: string
  /** Dot product with the query: the cosine similarity when both vectors are unit length. */
  readonly score: number
}

// dots(q, m, n, stride, out): out[r] = sum_d m[r*stride + d] * q[d] for r < n, stride a multiple of 16.
// Hand-assembled so the library needs no toolchain; the text form is beside each line.
const KERNEL_BODY = [
  0x02, 0x03, 0x7f, 0x04, 0x7b, // locals: end, qp, qEnd: i32; a0..a3: v128
  0x20, 0x02, 0x45, 0x0d, 0x00, // n == 0 -> return
  0x20, 0x04, 0x20, 0x02, 0x41, 0x02, 0x74, 0x6a, 0x21, 0x05, // end = out + (n << 2)
  0x20, 0x00, 0x20, 0x03, 0x41, 0x02, 0x74, 0x6a, 0x21, 0x07, // qEnd = q + (stride << 2)
  0x03, 0x40, // loop rows
  0xfd, 0x0c, ...new Array<number>(16).fill(0), 0x22, 0x08, 0x22, 0x09, 0x22, 0x0a, 0x21, 0x0b, // a0..a3 = 0
  0x20, 0x00, 0x21, 0x06, // qp = q
  0x03, 0x40, // loop cols: 16 floats per turn
  ...[0x00, 0x10, 0x20, 0x30].flatMap((offset, i) => [
    0x20, 0x08 + i, // a_i
    0x20, 0x01, 0xfd, 0x00, 0x04, offset, // v128.load m+offset
    0x20, 0x06, 0xfd, 0x00, 0x04, offset, // v128.load qp+offset
    0xfd, 0xe6, 0x01, 0xfd, 0xe4, 0x01, // f32x4.mul, f32x4.add
    0x21, 0x08 + i // a_i = a_i + m*q
  ]),
  0x20, 0x01, 0x41, 0xc0, 0x00, 0x6a, 0x21, 0x01, // m += 64
  0x20, 0x06, 0x41, 0xc0, 0x00, 0x6a, 0x22, 0x06, // qp += 64
  0x20, 0x07, 0x49, 0x0d, 0x00, // qp < qEnd -> continue cols
  0x0b,
  0x20, 0x08, 0x20, 0x09, 0xfd, 0xe4, 0x01, 0x20, 0x0a, 0x20, 0x0b, 0xfd, 0xe4, 0x01, 0xfd, 0xe4, 0x01, 0x21, 0x08, // a0 = (a0+a1)+(a2+a3)
  0x20, 0x04, // address out
  0x20, 0x08, 0xfd, 0x1f, 0x00, 0x20, 0x08, 0xfd, 0x1f, 0x01, 0x92, // lane0 + lane1
  0x20, 0x08, 0xfd, 0x1f, 0x02, 0x92, 0x20, 0x08, 0xfd, 0x1f, 0x03, 0x92, // + lane2 + lane3
  0x38, 0x02, 0x00, // f32.store
  0x20, 0x04, 0x41, 0x04, 0x6a, 0x22, 0x04, // out += 4
  0x20, 0x05, 0x49, 0x0d, 0x00, // out < end -> continue rows
  0x0b,
  0x0b
]

const leb = (n: number): Array<number> => {
  const out: Array<number> = []
  do {
    let byte = n & 0x7f
    n >>>= 7
    if (n !== 0) byte |= 0x80
    out.push(byte)
  } while (n !== 0)
  return out
}
const section = (id: number, bytes: Array<number>) => [id, ...leb(bytes.length), ...bytes]
const name = (s: string) => [s.length, ...Array.from(s, (c) => c.charCodeAt(0))]

let kernelModule: WebAssembly.Module | undefined
const kernel = () =>
  (kernelModule ??= new WebAssembly.Module(
    new Uint8Array([
      0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // \0asm, version 1
      ...section(1, [0x01, 0x60, 0x05, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x00]), // type (i32 x5) -> ()
      ...section(3, [0x01, 0x00]), // one function of type 0
      ...section(5, [0x01, 0x00, 0x01]), // one memory, at least one page
      ...section(7, [0x02, ...name("memory"), 0x02, 0x00, ...name("dots"), 0x00, 0x00]),
      ...section(10, [0x01, ...leb(KERNEL_BODY.length), ...KERNEL_BODY])
    ])
  ))

const PAGE = 65536

/**
 * Exact top-k search by dot product over vectors of one dimension, each under a string id.
 * Memory: 4 bytes per float, rows padded to a multiple of 16 floats, capacity grown by doubling.
 */
export class VectorIndex {
  readonly dim: number
  private readonly stride: number
  private readonly memory: WebAssembly.Memory
  private readonly dots: (q: number, m: number, n: number, stride: number, out: number) => void
  private f32: Float32Array
  private capacity = 0
  private readonly ids: Array<string> = []
  private readonly rows = new Map<string, number>()
  // Byte offsets in linear memory: [query][matrix: capacity x stride][scores: capacity].
  private readonly queryAt = 0
  private readonly matrixAt: number

  constructor(dim: number) {
    if (!Number.isInteger(dim) || dim <= 0) throw new RangeError(`dimension must be a positive integer, got ${dim}`)
    this.dim = dim
    this.stride = Math.ceil(dim / 16) * 16
    this.matrixAt = this.stride * 4
    const instance = new WebAssembly.Instance(kernel())
    this.memory = instance.exports["memory"] as WebAssembly.Memory
    this.dots = instance.exports["dots"] as VectorIndex["dots"]
    this.f32 = new Float32Array(this.memory.buffer)
    this.reserve(1024)
  }

  /** Number of vectors held. */
  get size(): number {
    return this.ids.length
  }

  has(id: string): boolean {
    return this.rows.has(id)
  }

  /** Adds a vector, replacing any vector already held under the same id. The vector is copied. */
  add(id: string, vector: ArrayLike<number>): void {
    if (vector.length !== this.dim) throw new RangeError(`vector has ${vector.length} dimensions, index has ${this.dim}`)
    for (let d = 0; d < this.dim; d++) {
      if (!Number.isFinite(vector[d])) throw new RangeError(`vector for ${id} has a non-finite value`)
    }
    let row = this.rows.get(id)
    if (row === undefined) {
      row = this.ids.length
      if (row === this.capacity) this.reserve(this.capacity * 2)
      this.ids.push(id)
      this.rows.set(id, row)
    }
    // Padding floats stay zero: they are zero when the memory is new and rows are moved whole.
    this.f32.set(vector, (this.matrixAt >> 2) + row * this.stride)
  }

  /** Removes the vector held under id; false when there was none. The last row moves into its place. */
  remove(id: string): boolean {
    const row = this.rows.get(id)
    if (row === undefined) return false
    const last = this.ids.length - 1
    const base = this.matrixAt >> 2
    if (row !== last) {
      const moved = this.ids[last]!
      this.f32.copyWithin(base + row * this.stride, base + last * this.stride, base + (last + 1) * this.stride)
      this.ids[row] = moved
      this.rows.set(moved, row)
    }
    this.f32.fill(0, base + last * this.stride, base + (last + 1) * this.stride)
    this.ids.pop()
    this.rows.delete(id)
    return true
  }

  /**
   * The k vectors with the highest dot product with query, best first (ties: the earlier row first).
   * filter, when given, must accept an id for it to appear; it is consulted only for rows that would
   * make the current top k, so it may see fewer ids than the index holds.
   */
  search(query: ArrayLike<number>, k: number, filter?: (id: string) => boolean): Array<VectorHit> {
    if (query.length !== this.dim) throw new RangeError(`query has ${query.length} dimensions, index has ${this.dim}`)
    const n = this.ids.length
    k = Math.min(Math.floor(k), n)
    if (k <= 0) return []
    this.f32.set(query, this.queryAt >> 2)
    const scoresAt = this.matrixAt + this.capacity * this.stride * 4
    this.dots(this.queryAt, this.matrixAt, n, this.stride, scoresAt)
    const scores = this.f32.subarray(scoresAt >> 2, (scoresAt >> 2) + n)

    // Min-heap of the best k so far, root = the weakest (lowest score; on ties the later row).
    const hs = new Float64Array(k)
    const hr = new Int32Array(k)
    let size = 0
    const weaker = (i: number, j: number) => hs[i]! < hs[j]! || (hs[i] === hs[j] && hr[i]! > hr[j]!)
    const swap = (i: number, j: number) => {
      const s = hs[i]!, r = hr[i]!
      hs[i] = hs[j]!
      hr[i] = hr[j]!
      hs[j] = s
      hr[j] = r
    }
    for (let r = 0; r < n; r++) {
      const s = scores[r]!
      if (size === k && s <= hs[0]!) continue
      if (filter !== undefined && !filter(this.ids[r]!)) continue
      if (size < k) {
        let i = size++
        hs[i] = s
        hr[i] = r
        while (i > 0) {
          const p = (i - 1) >> 1
          if (!weaker(i, p)) break
          swap(i, p)
          i = p
        }
      } else {
        hs[0] = s
        hr[0] = r
        let i = 0
        for (;;) {
          const l = 2 * i + 1
          const rr = l + 1
          let m = i
          if (l < k && weaker(l, m)) m = l
          if (rr < k && weaker(rr, m)) m = rr
          if (m === i) break
          swap(i, m)
          i = m
        }
      }
    }
    const order = Array.from({ length: size }, (_, i) => i).sort((a, b) => hs[b]! - hs[a]! || hr[a]! - hr[b]!)
    return order.map((i) => ({ id: this.ids[hr[i]!]!, score: hs[i]! }))
  }

  private reserve(capacity: number): void {
    const bytes = this.matrixAt + capacity * this.stride * 4 + capacity * 4
    const have = this.memory.buffer.byteLength
    if (bytes > have) this.memory.grow(Math.ceil((bytes - have) / PAGE))
    // Growing detaches the old buffer.
    this.f32 = new Float32Array(this.memory.buffer)
    this.capacity = capacity
  }
}
