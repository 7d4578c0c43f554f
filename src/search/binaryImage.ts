// Flat binary images that open without a rebuild: a magic, a section count, each section's byte length,
// then the sections, each starting on a 4-byte boundary so int32 sections are read in place (views into
// the file's bytes, not copies). Native byte order, as the typed arrays that read them.
import * as fs from "node:fs"

/** Sections behind a magic, each padded to 4 bytes. */
export const packSections = (magic: number, sections: ReadonlyArray<Uint8Array>): Uint8Array => {
  const head = 8 + 4 * sections.length
  let size = head
  for (const s of sections) size += s.length + ((4 - (s.length % 4)) % 4)
  const out = new Uint8Array(size)
  const view = new DataView(out.buffer)
  view.setUint32(0, magic, true)
  view.setUint32(4, sections.length, true)
  let at = head
  sections.forEach((s, i) => {
    view.setUint32(8 + 4 * i, s.length, true)
    out.set(s, at)
    at += s.length + ((4 - (s.length % 4)) % 4)
  })
  return out
}

/** The length of a packSections image's head (magic, count, lengths): what sectionLayout reads. */
export const headLength = (count: number): number => 8 + 4 * count

/** Where a packSections image's sections start and how long they are, from its head; null when it does not fit. */
export interface SectionLayout {
  readonly starts: ReadonlyArray<number>
  readonly lengths: ReadonlyArray<number>
  /** The whole image's length. */
  readonly total: number
}

export const sectionLayout = (head: Uint8Array, magic: number, count: number): SectionLayout | null => {
  if (head.length < headLength(count)) return null
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength)
  if (view.getUint32(0, true) !== magic || view.getUint32(4, true) !== count) return null
  const starts: Array<number> = []
  const lengths: Array<number> = []
  let at = headLength(count)
  for (let i = 0; i < count; i++) {
    const len = view.getUint32(8 + 4 * i, true)
    starts.push(at)
    lengths.push(len)
    at += len + ((4 - (len % 4)) % 4)
  }
  return { starts, lengths, total: at }
}

/**
 * The sections of a packSections image (views into `bytes`, copied once when `bytes` is not 4-byte
 * aligned), or null when the magic, the count or the lengths do not fit.
 */
export const unpackSections = (input: Uint8Array, magic: number, count: number): Array<Uint8Array> | null => {
  const bytes = input.byteOffset % 4 === 0 ? input : Uint8Array.prototype.slice.call(input)
  const layout = sectionLayout(bytes, magic, count)
  if (layout === null || layout.total !== bytes.length) return null
  return layout.starts.map((start, i) => bytes.subarray(start, start + layout.lengths[i]!))
}

/** Reads bytes of a file at a position into `into`; gives how many it read (fewer at its end). */
export type ReadAt = (into: Uint8Array, position: number) => number

/** The layout of a packSections image of `count` sections at `at` in a file, from its head; null when there is none. */
export const readLayout = (read: ReadAt, at: number, magic: number, count: number): SectionLayout | null => {
  const head = new Uint8Array(headLength(count))
  return read(head, at) === head.length ? sectionLayout(head, magic, count) : null
}

/** A ReadAt over an open file descriptor. */
export const readAtFd = (fd: number): ReadAt => (into, position) => {
  let got = 0
  while (got < into.length) {
    const n = fs.readSync(fd, into, got, into.length - got, position + got)
    if (n === 0) break
    got += n
  }
  return got
}

/**
 * Where an image is read from: bytes in memory (views, nothing copied) or a file held open and read where
 * asked (positioned reads: a process reads only the parts it uses). Reads past the end give null.
 */
export interface ImageSource {
  readonly size: number
  /** True when the bytes are in memory (reads are views, nothing worth caching). */
  readonly inMemory: boolean
  /** Bytes [at, at + length): a view, or a fresh copy read from the file. */
  bytes(at: number, length: number): Uint8Array | null
  /** `count` int32s at `at` (a 4-byte boundary): a view, or a fresh copy read from the file. */
  ints(at: number, count: number): Int32Array | null
  /** Copies `into.length` int32s at `at` (a 4-byte boundary) into `into`; false when they are not there. */
  intsInto(at: number, into: Int32Array): boolean
}

const inRange = (size: number, at: number, length: number): boolean =>
  Number.isInteger(at) && Number.isInteger(length) && at >= 0 && length >= 0 && at + length <= size

/** An image in memory (copied once when it does not start on a 4-byte boundary). */
export const memorySource = (input: Uint8Array): ImageSource => {
  const bytes = input.byteOffset % 4 === 0 ? input : Uint8Array.prototype.slice.call(input)
  const range = (at: number, length: number) => (inRange(bytes.length, at, length) ? bytes.subarray(at, at + length) : null)
  return {
    size: bytes.length,
    inMemory: true,
    bytes: range,
    ints: (at, count) => {
      const b = at % 4 === 0 ? range(at, 4 * count) : null
      return b === null ? null : int32View(b)
    },
    intsInto: (at, into) => {
      const b = at % 4 === 0 ? range(at, 4 * into.length) : null
      const ints = b === null ? null : int32View(b)
      if (ints !== null) into.set(ints)
      return ints !== null
    }
  }
}

// A file image dropped without close() still gives its descriptor back when it is collected.
const unclosed = new FinalizationRegistry<number>((fd) => {
  try {
    fs.closeSync(fd)
  } catch {
    // already closed
  }
})

/**
 * An image file held open (its descriptor: a file replaced since is still read as it was) and read where
 * asked. Once closed, every read throws (a descriptor number is reused by the next file opened).
 */
export class FileImage implements ImageSource {
  readonly inMemory = false
  /** Bytes read so far (what a process paid for this image). */
  bytesRead = 0
  private fd: number | null

  constructor(fd: number) {
    this.fd = fd
    this.size = fs.fstatSync(fd).size
    unclosed.register(this, fd, this)
  }

  readonly size: number

  bytes(at: number, length: number): Uint8Array | null {
    if (!inRange(this.size, at, length)) return null
    const out = new Uint8Array(length)
    return this.fill(out, at) ? out : null
  }

  ints(at: number, count: number): Int32Array | null {
    if (at % 4 !== 0 || !inRange(this.size, at, 4 * count)) return null
    const out = new Int32Array(count)
    return this.fill(new Uint8Array(out.buffer), at) ? out : null
  }

  intsInto(at: number, into: Int32Array): boolean {
    return at % 4 === 0 && inRange(this.size, at, 4 * into.length) && this.fill(int32Bytes(into), at)
  }

  /** A ReadAt over the file (throws once closed). */
  readonly readAt: ReadAt = (into, position) => {
    if (this.fd === null) throw new Error("image file read after close")
    const got = readAtFd(this.fd)(into, position)
    this.bytesRead += got
    return got
  }

  close(): void {
    if (this.fd === null) return
    unclosed.unregister(this)
    const fd = this.fd
    this.fd = null
    fs.closeSync(fd)
  }

  private fill(into: Uint8Array, at: number): boolean {
    return this.readAt(into, at) === into.length
  }
}

/** Part of an image left in its file, held open: read where asked, `close` once done with it. */
export interface ImageRows {
  readonly read: ReadAt
  close(): void
}

/**
 * Runs `use` on a FileImage over `fd` (taking the descriptor); closes it after, unless `use` called `keep`,
 * which hands the file over (its reader and close) to whatever keeps reading it.
 */
export const useFileImage = <A>(fd: number, use: (file: FileImage, keep: () => ImageRows) => A): A => {
  let file: FileImage
  try {
    file = new FileImage(fd)
  } catch (e) {
    fs.closeSync(fd)
    throw e
  }
  let kept = false
  const keep = (): ImageRows => {
    kept = true
    return { read: file.readAt, close: () => file.close() }
  }
  try {
    return use(file, keep)
  } finally {
    if (!kept) file.close()
  }
}

/** The layout of a packSections image of `count` sections at `at` in a source; null when there is none. */
export const sourceLayout = (source: ImageSource, at: number, magic: number, count: number): SectionLayout | null => {
  const head = source.bytes(at, headLength(count))
  return head === null ? null : sectionLayout(head, magic, count)
}

/** An int32 section as bytes. */
export const int32Bytes = (ints: Int32Array): Uint8Array => new Uint8Array(ints.buffer, ints.byteOffset, ints.byteLength)

/** An int32 section read in place (its bytes start on a 4-byte boundary: unpackSections gives such). */
export const int32View = (bytes: Uint8Array): Int32Array | null =>
  bytes.length % 4 === 0 && bytes.byteOffset % 4 === 0 ? new Int32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4) : null

// A lazy table's search reads the strings left in range at once below this many bytes.
const SPAN_READ = 4096
// How many compared strings a lazy table keeps (about the first 16 steps of every search).
const MAX_PROBES = 1 << 16

/**
 * Strings in one section, read one at a time without decoding the rest: a count, the end offsets, and the
 * UTF-8 text. `sorted`: stored in JavaScript string order, so indexOf is a binary search over them.
 */
export class StringTable {
  private constructor(
    readonly size: number,
    private readonly ends: Int32Array,
    /** The text in memory, or null: read from `lazy` where asked. */
    private readonly text: Buffer | null,
    private readonly lazy: { readonly source: ImageSource; readonly at: number; readonly length: number } | null,
    private readonly order: Int32Array | null
  ) {}

  /**
   * Encodes strings (or their UTF-8 bytes, as `bytesAt` gave them); with `lookup`, a sorted permutation is
   * stored too, so indexOf works on any order (strings only).
   */
  static encode(strings: ReadonlyArray<string | Uint8Array>, lookup: boolean): Uint8Array {
    const texts = strings.map((s) => (typeof s === "string" ? Buffer.from(s, "utf8") : s))
    const n = strings.length
    const ints = new Int32Array(2 + n + (lookup ? n : 0))
    ints[0] = n
    ints[1] = lookup ? 1 : 0
    let end = 0
    texts.forEach((t, i) => {
      end += t.length
      ints[2 + i] = end
    })
    if (lookup) {
      const text = strings as ReadonlyArray<string>
      const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => (text[a]! < text[b]! ? -1 : text[a]! > text[b]! ? 1 : 0))
      order.forEach((o, i) => (ints[2 + n + i] = o))
    }
    return Buffer.concat([int32Bytes(ints), ...texts])
  }

  /** Reads an encoded table in place; null when the bytes do not fit. */
  static decode(bytes: Uint8Array): StringTable | null {
    return bytes.byteOffset % 4 === 0 ? StringTable.decodeAt(memorySource(bytes), 0, bytes.length) : null
  }

  /**
   * Reads the table of `length` bytes at `at` of a source: its offsets (and order) at once, its text where
   * asked (in place when the source is in memory); null when the bytes do not fit.
   */
  static decodeAt(source: ImageSource, at: number, length: number): StringTable | null {
    const head = length < 8 ? null : source.ints(at, 2)
    if (head === null) return null
    const n = head[0]!
    const lookup = head[1] === 1
    const intsLength = 4 * (2 + n + (lookup ? n : 0))
    if (n < 0 || intsLength > length) return null
    const ends = source.ints(at + 8, n)
    const order = lookup ? source.ints(at + 8 + 4 * n, n) : null
    if (ends === null || (lookup && order === null)) return null
    const textLength = length - intsLength
    if ((n > 0 ? ends[n - 1]! : 0) !== textLength) return null
    if (!source.inMemory) return new StringTable(n, ends, null, { source, at: at + intsLength, length: textLength }, order)
    const bytes = source.bytes(at + intsLength, textLength)
    if (bytes === null) return null
    return new StringTable(n, ends, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length), null, order)
  }

  /** Bytes of text still to be read from the source (0: the text is in memory). */
  get lazyBytes(): number {
    return this.lazy === null ? 0 : this.lazy.length
  }

  /** The same table with its whole text in memory (read once; itself when it is already). */
  loaded(): StringTable {
    if (this.lazy === null) return this
    const bytes = this.lazy.source.bytes(this.lazy.at, this.lazy.length)
    if (bytes === null) throw new Error("string table cut short")
    return new StringTable(this.size, this.ends, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length), null, this.order)
  }

  /** Where string i's bytes start in the text. */
  private startOf(i: number): number {
    return i === 0 ? 0 : this.ends[i - 1]!
  }

  at(i: number): string {
    const start = this.startOf(i)
    const end = this.ends[i]!
    if (this.text !== null) return this.text.toString("utf8", start, end)
    const bytes = this.read(start, end)
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("utf8")
  }

  /** String i's UTF-8 bytes, as stored (a view, or read from the source). */
  bytesAt(i: number): Uint8Array {
    const start = this.startOf(i)
    const end = this.ends[i]!
    return this.text !== null ? this.text.subarray(start, end) : this.read(start, end)
  }

  /** The position of `s`, or -1 (a sorted table, or one encoded with lookup). */
  indexOf(s: string): number {
    let lo = 0
    let hi = this.size - 1
    while (lo <= hi) {
      // A sorted table read from its file: the few strings left in range come in one read.
      if (this.lazy !== null && this.order === null && this.ends[hi]! - this.startOf(lo) <= SPAN_READ) return this.indexInSpan(s, lo, hi)
      const mid = (lo + hi) >> 1
      const i = this.order === null ? mid : this.order[mid]!
      const here = this.probe(i)
      if (here === s) return i
      if (here < s) lo = mid + 1
      else hi = mid - 1
    }
    return -1
  }

  // A table read from its file keeps the strings its searches compared with: every search starts at the
  // same middle ones, so a process looking up hundreds of words reads each of those once, not every time.
  private probes: Map<number, string> | null = null

  private probe(i: number): string {
    if (this.lazy === null) return this.at(i)
    const probes = (this.probes ??= new Map())
    let here = probes.get(i)
    if (here === undefined) {
      here = this.at(i)
      if (probes.size < MAX_PROBES) probes.set(i, here)
    }
    return here
  }

  /** indexOf over the sorted strings lo..hi, read together. */
  private indexInSpan(s: string, lo: number, hi: number): number {
    const base = this.startOf(lo)
    const bytes = this.read(base, this.ends[hi]!)
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)
    while (lo <= hi) {
      const mid = (lo + hi) >> 1
      const here = text.toString("utf8", this.startOf(mid) - base, this.ends[mid]! - base)
      if (here === s) return mid
      if (here < s) lo = mid + 1
      else hi = mid - 1
    }
    return -1
  }

  private read(start: number, end: number): Uint8Array {
    const bytes = this.lazy!.source.bytes(this.lazy!.at + start, end - start)
    if (bytes === null) throw new Error("string table cut short")
    return bytes
  }
}
