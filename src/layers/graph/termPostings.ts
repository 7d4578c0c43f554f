// Each term's postings as compact blobs beside the FTS5 index (migration 0008): rowids as int32 (little
// endian), one entry per occurrence, ascending, cut into blocks of at most BLOCK_POSTINGS, each keyed by its
// first rowid (a rowid's occurrences never straddle two blocks; a rowid belongs to the last block whose first
// is not above it, or to the first block), so a writer rewrites only the blocks holding the rowids it touches
// (new rows land in the last block). A query reads a term's blocks, about a row per thousand postings, instead
// of a row per posting from fts5vocab parsed out of a string: about 25 ms less a query at 1M nodes. Writers
// keep the blocks in step in the same transaction as node_terms.
import type * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import { parseIntList } from "./exactBm25.js"

/**
 * Postings per block at most: a block is one row of about a page (4 KiB), so a writer that adds a row to a
 * common term rewrites a page or two, and a query reads a term of n postings in n / 1024 rows.
 */
export const BLOCK_POSTINGS = 1024

/** A node's indexed terms (the FTS5 document: analyzed terms, space-separated) and its rowid. */
export interface TermsOf {
  readonly rid: number
  readonly terms: string
}

const encode = (rids: ArrayLike<number>, n = rids.length): Uint8Array => {
  const out = new Int32Array(n)
  for (let i = 0; i < n; i++) out[i] = rids[i]!
  return new Uint8Array(out.buffer)
}

/** The rowids of a block's blob (a copy: SQLite's buffer is not 4-byte aligned). */
const decode = (blob: Uint8Array): Int32Array => {
  const out = new Int32Array(blob.length >> 2)
  new Uint8Array(out.buffer).set(blob.subarray(0, out.length << 2))
  return out
}

/** A term's postings: rowids ascending, one entry per occurrence. */
export const readPostings = (sql: SqlClient.SqlClient, term: string) =>
  Effect.map(sql<{ docs: Uint8Array }>`SELECT docs FROM term_postings WHERE term = ${term} ORDER BY first`, (rows) => {
    if (rows.length === 1) return decode(rows[0]!.docs)
    let n = 0
    for (const r of rows) n += r.docs.length >> 2
    const out = new Int32Array(n)
    const bytes = new Uint8Array(out.buffer)
    let at = 0
    for (const r of rows) {
      const len = (r.docs.length >> 2) << 2
      bytes.set(r.docs.subarray(0, len), at)
      at += len
    }
    return out
  })

/** Ascending rowids cut into blocks of at most BLOCK_POSTINGS, never inside one rowid's run. */
const pieces = (rids: ArrayLike<number>): Array<Array<number>> => {
  const out: Array<Array<number>> = []
  for (let i = 0; i < rids.length; ) {
    let j = Math.min(i + BLOCK_POSTINGS, rids.length)
    while (j < rids.length && j > i && rids[j] === rids[j - 1]) j--
    if (j === i) j = Math.min(i + BLOCK_POSTINGS, rids.length)
    out.push(Array.prototype.slice.call(rids, i, j) as Array<number>)
    i = j
  }
  return out
}

/** Writes ascending rowids of a term as new blocks. */
const writeBlocks = (sql: SqlClient.SqlClient, term: string, rids: ArrayLike<number>) =>
  Effect.forEach(pieces(rids), (part) => sql`INSERT INTO term_postings (term, first, docs) VALUES (${term}, ${part[0]!}, ${encode(part)})`, {
    discard: true
  })

/**
 * Every term's postings again from the FTS5 index (the migration; a writer that finds the stored terms of a
 * row it changes are not what the analyzer gives now): terms in batches of about 200k postings.
 */
export const rebuildTermPostings = (sql: SqlClient.SqlClient) =>
  Effect.gen(function* () {
    yield* sql`DELETE FROM term_postings`
    yield* sql`CREATE VIRTUAL TABLE IF NOT EXISTS temp.node_terms_inst USING fts5vocab(main, node_terms, instance)`
    const vocab = yield* sql<{ term: string; cnt: number }>`SELECT term, cnt FROM node_terms_df`
    for (let i = 0; i < vocab.length; ) {
      let j = i
      let postings = 0
      while (j < vocab.length && (j === i || postings + vocab[j]!.cnt <= 200_000)) postings += vocab[j++]!.cnt
      const rows = yield* sql<{ term: string; docs: string | null }>`SELECT term, group_concat(doc) AS docs FROM temp.node_terms_inst
        WHERE term >= ${vocab[i]!.term} AND term <= ${vocab[j - 1]!.term} GROUP BY term`
      for (const r of rows) yield* writeBlocks(sql, r.term, parseIntList(r.docs).sort())
      i = j
    }
  })

/**
 * Takes `removed` rows' terms out of the postings and puts `added` rows' in (a row re-indexed is in both):
 * each block touched is read, changed and written once (as one block or, past BLOCK_POSTINGS, several).
 */
export const updateTermPostings = (sql: SqlClient.SqlClient, removed: ReadonlyArray<TermsOf>, added: ReadonlyArray<TermsOf>) =>
  Effect.gen(function* () {
    // term → (rowids out, rowids in: one entry per occurrence)
    const touched = new Map<string, { out: Array<number>; in: Array<number> }>()
    const of = (term: string) => {
      let change = touched.get(term)
      if (change === undefined) touched.set(term, (change = { out: [], in: [] }))
      return change
    }
    for (const r of removed) for (const t of r.terms.split(" ")) if (t !== "") of(t).out.push(r.rid)
    for (const r of added) for (const t of r.terms.split(" ")) if (t !== "") of(t).in.push(r.rid)
    for (const [term, change] of touched) {
      const firsts = (yield* sql<{ first: number }>`SELECT first FROM term_postings WHERE term = ${term} ORDER BY first`).map((r) => r.first)
      // Block index of a rowid: the last whose first is not above it, else the first block (-1: none yet).
      const blockOf = (rid: number) => {
        let lo = 0
        let hi = firsts.length - 1
        if (hi < 0) return -1
        while (lo < hi) {
          const mid = (lo + hi + 1) >> 1
          if (firsts[mid]! <= rid) lo = mid
          else hi = mid - 1
        }
        return lo
      }
      const blocks = new Map<number, { out: Set<number>; in: Array<number> }>()
      const at = (rid: number) => {
        const b = blockOf(rid)
        let c = blocks.get(b)
        if (c === undefined) blocks.set(b, (c = { out: new Set(), in: [] }))
        return c
      }
      for (const rid of change.out) at(rid).out.add(rid)
      for (const rid of change.in) at(rid).in.push(rid)
      for (const [b, c] of blocks) {
        let kept: Array<number> = []
        if (b >= 0) {
          const [row] = yield* sql<{ docs: Uint8Array }>`SELECT docs FROM term_postings WHERE term = ${term} AND first = ${firsts[b]!}`
          if (row !== undefined) kept = Array.from(decode(row.docs)).filter((rid) => !c.out.has(rid))
          yield* sql`DELETE FROM term_postings WHERE term = ${term} AND first = ${firsts[b]!}`
        }
        yield* writeBlocks(sql, term, c.in.length === 0 ? kept : [...kept, ...c.in].sort((x, y) => x - y))
      }
    }
  })

/**
 * One write's changes to the postings, gathered over its chunks and applied once (a block rewritten once per
 * write, not once per chunk): each row's terms before the write and after it.
 */
export class TermChanges {
  private readonly before = new Map<number, string>()
  private readonly after = new Map<number, string | null>()
  /** False once a row's stored terms could not be told (the postings are then rebuilt). */
  exact = true

  /** Row `rid` had `terms` indexed and loses them. */
  remove(rid: number, terms: string): void {
    if (!this.before.has(rid) && !this.after.has(rid)) this.before.set(rid, terms)
    this.after.set(rid, null)
  }

  /** Row `rid` is indexed with `terms`. */
  add(rid: number, terms: string): void {
    this.after.set(rid, terms)
  }

  apply(sql: SqlClient.SqlClient) {
    if (!this.exact) return rebuildTermPostings(sql)
    const removed = [...this.before].map(([rid, terms]) => ({ rid, terms }))
    const added = [...this.after].flatMap(([rid, terms]) => (terms === null ? [] : [{ rid, terms }]))
    return removed.length === 0 && added.length === 0 ? Effect.void : updateTermPostings(sql, removed, added)
  }
}
