// Each term's postings as compact blobs beside the FTS5 index (migration 0008): rowids as int32 (little
// endian), one entry per occurrence, ascending, cut into blocks of at most BLOCK_POSTINGS, each keyed by its
// first rowid (a rowid's occurrences never straddle two blocks; a rowid belongs to the last block whose first
// is not above it, or to the first block), so a writer rewrites only the blocks holding the rowids it touches
// (new rows land in the last block). A query reads a term's blocks, about a row per thousand postings, instead
// of a row per posting from fts5vocab parsed out of a string (warm 1M p50 60 -> 41 ms CPU, bench/warmAB.mjs). Writers
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

/** A term's postings: rowids ascending, one entry per occurrence (its blocks in order, copied end to end). */
export const readPostings = (sql: SqlClient.SqlClient, term: string) =>
  Effect.map(sql<{ docs: Uint8Array }>`SELECT docs FROM term_postings WHERE term = ${term} ORDER BY first`, (rows) => {
    const out = new Int32Array(rows.reduce((n, r) => n + (r.docs.length >> 2), 0))
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
    // Terms that only gain rows at or past their last block's first (a new row's rowid is the largest): their last
    // blocks read, deleted and written again a few hundred terms to a statement.
    const appended = [...touched].filter(([, c]) => c.out.length === 0).map(([term]) => term)
    for (let c = 0; c < appended.length; c += 300) {
      const part = appended.slice(c, c + 300)
      const lastOf = new Map(
        (yield* sql<{ term: string; first: number; docs: Uint8Array }>`SELECT p.term, p.first, p.docs FROM term_postings p
          JOIN (SELECT term, max(first) AS first FROM term_postings WHERE term IN ${sql.in(part)} GROUP BY term) m
          ON p.term = m.term AND p.first = m.first`).map((r) => [r.term, r] as const)
      )
      const rewritten: Array<{ term: string; first: number }> = []
      const blocks: Array<{ term: string; first: number; docs: Uint8Array }> = []
      for (const term of part) {
        const change = touched.get(term)!
        const last = lastOf.get(term)
        if (last !== undefined && change.in.some((rid) => rid < last.first)) continue
        touched.delete(term)
        if (last !== undefined) rewritten.push({ term, first: last.first })
        const rids = [...(last === undefined ? [] : decode(last.docs)), ...change.in].sort((x, y) => x - y)
        for (const piece of pieces(rids)) blocks.push({ term, first: piece[0]!, docs: encode(piece) })
      }
      for (let i = 0; i < rewritten.length; i += 300) {
        const some = rewritten.slice(i, i + 300)
        yield* sql.unsafe(
          `DELETE FROM term_postings WHERE (term, first) IN (VALUES ${some.map(() => "(?, ?)").join(", ")})`,
          some.flatMap((r) => [r.term, r.first])
        )
      }
      for (let i = 0; i < blocks.length; i += 300) yield* sql`INSERT INTO term_postings ${sql.insert(blocks.slice(i, i + 300))}`
    }
    for (const [term, change] of touched) {
      const out = new Set(change.out)
      const ins = [...change.in].sort((x, y) => x - y)
      const rids = [...new Set([...change.out, ...change.in])].sort((x, y) => x - y)
      // Block by block, asking SQLite for the one block holding the next rowid (a common term has a thousand).
      for (let i = 0; i < rids.length; ) {
        const rid = rids[i]!
        // The last block whose first is not above the rowid, else the first block (none: the term is new).
        let [row] = yield* sql<{ first: number; docs: Uint8Array }>`SELECT first, docs FROM term_postings
          WHERE term = ${term} AND first <= ${rid} ORDER BY first DESC LIMIT 1`
        if (row === undefined) [row] = yield* sql<{ first: number; docs: Uint8Array }>`SELECT first, docs FROM term_postings WHERE term = ${term} ORDER BY first LIMIT 1`
        // Rowids from the next block's first on belong to later blocks.
        const [next] = row === undefined ? [] : yield* sql<{ first: number }>`SELECT first FROM term_postings
          WHERE term = ${term} AND first > ${row.first} ORDER BY first LIMIT 1`
        const limit = next?.first ?? Infinity
        let j = i
        while (j < rids.length && rids[j]! < limit) j++
        const lo = rid
        const hi = rids[j - 1]!
        const kept = row === undefined ? [] : Array.from(decode(row.docs)).filter((r) => !(r >= lo && r <= hi && out.has(r)))
        const added = ins.filter((r) => r >= lo && r <= hi)
        if (row !== undefined) yield* sql`DELETE FROM term_postings WHERE term = ${term} AND first = ${row.first}`
        yield* writeBlocks(sql, term, added.length === 0 ? kept : [...kept, ...added].sort((x, y) => x - y))
        i = j
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
