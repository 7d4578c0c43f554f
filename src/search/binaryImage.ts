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

/** An int32 section as bytes. */
export const int32Bytes = (ints: Int32Array): Uint8Array => new Uint8Array(ints.buffer, ints.byteOffset, ints.byteLength)

/** An int32 section read in place (its bytes start on a 4-byte boundary: unpackSections gives such). */
export const int32View = (bytes: Uint8Array): Int32Array | null =>
  bytes.length % 4 === 0 && bytes.byteOffset % 4 === 0 ? new Int32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4) : null

/**
 * Strings in one section, read one at a time without decoding the rest: a count, the end offsets, and the
 * UTF-8 text. `sorted`: stored in JavaScript string order, so indexOf is a binary search over them.
 */
export class StringTable {
  private constructor(
    readonly size: number,
    private readonly ends: Int32Array,
    private readonly text: Buffer,
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
    const head = bytes.length < 8 ? null : int32View(bytes.subarray(0, 8))
    if (head === null) return null
    const n = head[0]!
    const lookup = head[1] === 1
    const intsLength = 4 * (2 + n + (lookup ? n : 0))
    if (n < 0 || intsLength > bytes.length) return null
    const ends = int32View(bytes.subarray(8, 8 + 4 * n))
    const order = lookup ? int32View(bytes.subarray(8 + 4 * n, intsLength)) : null
    if (ends === null || (lookup && order === null)) return null
    const text = Buffer.from(bytes.buffer, bytes.byteOffset + intsLength, bytes.length - intsLength)
    if ((n > 0 ? ends[n - 1]! : 0) !== text.length) return null
    return new StringTable(n, ends, text, order)
  }

  at(i: number): string {
    return this.text.toString("utf8", i === 0 ? 0 : this.ends[i - 1]!, this.ends[i]!)
  }

  /** String i's UTF-8 bytes, as stored (a view). */
  bytesAt(i: number): Uint8Array {
    return this.text.subarray(i === 0 ? 0 : this.ends[i - 1]!, this.ends[i]!)
  }

  /** The position of `s`, or -1 (a sorted table, or one encoded with lookup). */
  indexOf(s: string): number {
    let lo = 0
    let hi = this.size - 1
    while (lo <= hi) {
      const mid = (lo + hi) >> 1
      const i = this.order === null ? mid : this.order[mid]!
      const here = this.at(i)
      if (here === s) return i
      if (here < s) lo = mid + 1
      else hi = mid - 1
    }
    return -1
  }
}
