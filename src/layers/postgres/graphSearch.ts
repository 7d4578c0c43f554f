// Candidate search in PostgreSQL: BM25 over the postings of each node's analyzed terms, the filter, slots,
// neighbours and source messages as queries, so a query reads the rows of its candidates, never a whole
// namespace. Vectors (bytea, no pgvector in Debian 12) are scored in the process, from a copy that follows
// the database by reading only the rows changed since.
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import type { SourceRef } from "../../domain/Message.js"
import type { Edge, MemoryNode } from "../../domain/Node.js"
import type { NodeFilter } from "../../domain/nodeFilter.js"
import { windowStart } from "../../domain/validity.js"
import { bm25Score } from "../../search/bm25.js"
import { analyze } from "../../search/IndexAnalyzer.js"
import { indexedText } from "../../search/indexedText.js"
import { VectorIndex } from "../../search/VectorIndex.js"
import type { LexicalQuery, ScoredId, VectorQuery } from "../../services/GraphStore.js"
import { edgeKey } from "../graph/applyChanges.js"
import { isCompact } from "../../store/compactVector.js"
import { chunks, rowVector } from "../graph/rows.js"
import { filteredVectorTopK, preselect } from "../graph/sqliteSearch.js"


/** The search columns of a node row: its analyzed terms (as LexicalIndex indexes them) and what a filter reads. */
export const searchColumns = (n: MemoryNode) => {
  const terms = analyze(indexedText(n.content, windowStart(n)))
  return {
    lex_terms: terms,
    lex_len: terms.length,
    window_start: windowStart(n),
    valid_to: n.validTo,
    scope: n.scope,
    access_count: n.accessCount
  }
}

/** One row of awhm.node_terms: a term of a node, its frequency there, and the node's length in terms. */
export interface Posting {
  readonly term: string
  readonly node_id: string
  readonly tf: number
  readonly len: number
}

/** A node's postings: each distinct term of `terms` (its analyzed terms) with its frequency. */
export const postingsOf = (id: string, terms: ReadonlyArray<string>): Array<Posting> => {
  const tf = new Map<string, number>()
  for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1)
  return Array.from(tf, ([term, f]) => ({ term, node_id: id, tf: f, len: terms.length }))
}

export interface EdgeRow {
  readonly source: string
  readonly target: string
  readonly type: Edge["type"]
  readonly weight: number
  readonly created_at: string
}

export const toEdge = (r: EdgeRow): Edge => ({ source: r.source, target: r.target, type: r.type, weight: r.weight, createdAt: r.created_at })

/** The last of each key wins, at the place of its first occurrence. */
export const lastByKey = <A>(items: ReadonlyArray<A>, key: (a: A) => string): Array<A> => {
  const map = new Map<string, A>()
  for (const a of items) map.set(key(a), a)
  return Array.from(map.values())
}

/** The filter as a condition on `awhm.nodes n` (domain/nodeFilter `admits`). */
const filterSql = (sql: SqlClient.SqlClient, f: NodeFilter) => {
  const parts = []
  if (f.scope !== null) parts.push(sql`(n.scope IS NULL OR n.scope = ${f.scope})`)
  if (f.asOf !== null) parts.push(sql`n.window_start <= ${f.asOf} AND (n.valid_to IS NULL OR ${f.asOf} < n.valid_to)`)
  else if (!f.includeHistory) parts.push(sql`n.status = 'active' AND n.window_start <= ${f.now} AND (n.valid_to IS NULL OR ${f.now} < n.valid_to)`)
  return parts.length === 0 ? sql`true` : sql.and(parts)
}

interface VectorRow {
  readonly namespace: string
  readonly id: string
  readonly embedding: unknown
  readonly embed_dim: unknown
  readonly embed_model: string | null
}

interface VectorCopy {
  readonly modelId: string | null
  /** Namespace → the graph version this copy reflects. */
  readonly versions: ReadonlyMap<string, number>
  index: VectorIndex | null
  /** Which namespace each indexed id came from: the write namespace's copy of an id wins. */
  readonly owner: Map<string, string>
}

export type Versions = ReadonlyMap<string, { readonly version: number; readonly resetAt: number }>

export const makePostgresGraphSearch = (options: {
  readonly sql: SqlClient.SqlClient
  readonly readNamespaces: ReadonlyArray<string>
  readonly writeNamespace: string
  readonly readVersions: Effect.Effect<Versions, SqlError>
}) => {
  const { sql, readNamespaces, writeNamespace: ns, readVersions } = options

  const lexicalTopK = (q: LexicalQuery) =>
    Effect.gen(function* () {
      const terms = [...new Set(analyze(q.text))]
      if (terms.length === 0 || q.k <= 0) return []
      const [stats] = yield* sql<{ docs: string | null; total: string | null }>`SELECT sum(docs)::text AS docs, sum(total)::text AS total
        FROM awhm.lexical_stats WHERE namespace = ANY (${readNamespaces})`
      const docs = Number(stats?.docs ?? 0)
      if (docs === 0) return []
      // Document frequencies: the length of each term's postings (one range of the primary key).
      const dfRows = yield* sql<{ term: string; doc: number }>`SELECT term, count(*)::int AS doc FROM awhm.node_terms
        WHERE namespace = ANY (${readNamespaces}) AND term = ANY (${terms}) GROUP BY term`
      const df = new Map(dfRows.map((r) => [r.term, r.doc] as const))
      const live = terms.filter((t) => (df.get(t) ?? 0) > 0)
      if (live.length === 0) return []
      const bm25 = { docs, totalLength: Number(stats?.total ?? 0), df }
      const idf = live.map((t) => Math.log(1 + (docs - df.get(t)! + 0.5) / (df.get(t)! + 0.5)))
      const avg = bm25.totalLength / docs || 1
      const norm0 = q.k1 * (1 - q.b)
      const norm1 = (q.k1 * q.b) / avg
      // The same BM25 summed over the query terms' postings picks the candidates; the process scores them
      // again as LexicalIndex does, to the bit. Most queries are answered from the best `limit` before the filter.
      type Row = { namespace: string; id: string; seq: string; lex_terms: ReadonlyArray<string> }
      const limit = preselect(q.k)
      const scored = sql`SELECT p.namespace, p.node_id,
          sum(w.idf * p.tf * ${q.k1 + 1}::float8 / (p.tf + ${norm0}::float8 + ${norm1}::float8 * p.len)) AS score
        FROM awhm.node_terms p JOIN unnest(${live}::text[], ${idf}::float8[]) AS w(term, idf) ON p.term = w.term
        WHERE p.namespace = ANY (${readNamespaces}) AND p.term = ANY (${live}::text[])
        GROUP BY p.namespace, p.node_id`
      const candidates = (preselected: boolean) =>
        sql<Row>`SELECT n.namespace, n.id, n.seq::text AS seq, n.lex_terms
          FROM (${scored} ${preselected ? sql`ORDER BY score DESC LIMIT ${limit}` : sql``}) s
          JOIN awhm.nodes n ON n.namespace = s.namespace AND n.id = s.node_id
          WHERE ${filterSql(sql, q.filter)} ORDER BY s.score DESC, n.seq LIMIT ${limit}`
      let rows = yield* candidates(true)
      // The filter refused most of them (an old asOf, a narrow scope) and more were scored: rank only admitted nodes.
      const postings = live.reduce((sum, t) => sum + df.get(t)!, 0)
      if (rows.length < q.k && postings > limit) {
        rows = yield* candidates(false)
      }
      const seen = new Map<string, { seq: number; score: number; namespace: string }>()
      for (const r of rows) {
        const had = seen.get(r.id)
        // The same id in the write namespace and another (a migrated copy): the write namespace's row counts.
        if (had !== undefined && had.namespace === ns) continue
        seen.set(r.id, { seq: Number(r.seq), score: bm25Score(live, r.lex_terms, bm25, q.k1, q.b), namespace: r.namespace })
      }
      return [...seen]
        .filter(([, h]) => h.score > 0)
        .sort((a, b) => b[1].score - a[1].score || a[1].seq - b[1].seq)
        .slice(0, q.k)
        .map(([id, h]): ScoredId => ({ id, score: h.score }))
    })

  // ---- vectors ----

  let vectors: VectorCopy | null = null

  const addVector = (copy: VectorCopy, r: VectorRow) => {
    const had = copy.owner.get(r.id)
    if (had !== undefined && had !== r.namespace && had === ns) return
    const drop = () => {
      copy.index?.remove(r.id)
      copy.owner.delete(r.id)
    }
    const usable = r.embed_model === null || copy.modelId === null || r.embed_model === copy.modelId
    const { embedding: bytes, embed_dim: dim } = r
    if (!usable || !(bytes instanceof Uint8Array) || typeof dim !== "number" || !Number.isInteger(dim) || dim <= 0) return drop()
    // The stored int8 bytes go in as they are; an older float32 row is decoded first.
    const compact = isCompact(bytes, dim)
    const v = compact ? null : rowVector(bytes, dim)
    if (!compact && v === null) return drop()
    if (copy.index === null) copy.index = new VectorIndex(dim)
    if (dim !== copy.index.dim) return drop()
    if (v !== null) copy.index.add(r.id, v)
    else if (!copy.index.addCompact(r.id, bytes)) return drop()
    copy.owner.set(r.id, r.namespace)
  }

  /** The vectors of `modelId`: the copy brought up to date with the rows changed since, or read whole. */
  const vectorsFor = (modelId: string | null) =>
    Effect.gen(function* () {
      const current = yield* readVersions
      const versions = new Map([...current].map(([n, v]) => [n, v.version] as const))
      const base = vectors !== null && vectors.modelId === modelId ? vectors : null
      const since: Array<readonly [string, number]> = []
      let whole = base === null
      for (const n of readNamespaces) {
        const now = current.get(n) ?? { version: 0, resetAt: 0 }
        const seen = base?.versions.get(n) ?? 0
        if (now.version === seen) continue
        if (now.version < seen || now.resetAt > seen) whole = true
        since.push([n, seen])
      }
      if (!whole && since.length === 0) return base!.index
      vectors = null // while it is being brought up to date
      if (whole) {
        const copy: VectorCopy = { modelId, versions, index: null, owner: new Map() }
        const rows = yield* sql<VectorRow>`SELECT namespace, id, embedding, embed_dim, embed_model FROM awhm.nodes
          WHERE namespace = ANY (${readNamespaces}) AND embedding IS NOT NULL ORDER BY seq`
        for (const r of rows) addVector(copy, r)
        vectors = copy
        return copy.index
      }
      const names = since.map(([n]) => n)
      const seenAt = since.map(([, v]) => v)
      const deleted = yield* sql<{ namespace: string; node_id: string }>`SELECT d.namespace, d.node_id FROM awhm.graph_deletions d
        JOIN unnest(${names}::text[], ${seenAt}::bigint[]) AS c(ns, v) ON d.namespace = c.ns AND d.version > c.v`
      const rows = yield* sql<VectorRow>`SELECT n.namespace, n.id, n.embedding, n.embed_dim, n.embed_model FROM awhm.nodes n
        JOIN unnest(${names}::text[], ${seenAt}::bigint[]) AS c(ns, v) ON n.namespace = c.ns AND n.changed_at > c.v ORDER BY n.seq`
      const copy: VectorCopy = { ...base!, versions }
      for (const d of deleted) {
        if (copy.owner.get(d.node_id) !== d.namespace) continue // a copy in another namespace stays
        copy.index?.remove(d.node_id)
        copy.owner.delete(d.node_id)
      }
      for (const r of rows) addVector(copy, r)
      vectors = copy
      return copy.index
    })

  const vectorTopK = (q: VectorQuery) =>
    Effect.gen(function* () {
      const index = yield* vectorsFor(q.modelId)
      if (index === null || index.dim !== q.vector.length) return null
      if (q.k <= 0) return []
      return yield* filteredVectorTopK(index, q.vector, q.k, (ids) =>
        Effect.map(
          sql<{ id: string }>`SELECT n.id FROM awhm.nodes n
            WHERE n.namespace = ANY (${readNamespaces}) AND n.id = ANY (${[...ids]}) AND ${filterSql(sql, q.filter)}`,
          (rows) => rows.map((r) => r.id)
        )
      )
    })

  /** Every edge with an end among `ids` whose two ends this client can read, in store order. */
  const neighbours = (ids: ReadonlyArray<string>) =>
    Effect.gen(function* () {
      const found: Array<EdgeRow & { seq: string }> = []
      for (const chunk of chunks([...new Set(ids)], 250)) {
        const list = [...chunk]
        found.push(
          ...(yield* sql<EdgeRow & { seq: string }>`SELECT e.seq::text AS seq, e.source, e.target, e.type, e.weight, e.created_at
            FROM awhm.edges e
            WHERE e.namespace = ANY (${readNamespaces}) AND (e.source = ANY (${list}) OR e.target = ANY (${list}))
              AND EXISTS (SELECT 1 FROM awhm.nodes n WHERE n.namespace = ANY (${readNamespaces}) AND n.id = e.source)
              AND EXISTS (SELECT 1 FROM awhm.nodes n WHERE n.namespace = ANY (${readNamespaces}) AND n.id = e.target)`)
        )
      }
      const unique = lastByKey(found, (r) => `${r.seq}`)
      return lastByKey(unique.sort((a, b) => Number(a.seq) - Number(b.seq)).map(toEdge), edgeKey)
    })

  /** The ids of the nodes in these slots, in store order. */
  const slotIds = (keys: ReadonlyArray<string>) =>
    Effect.map(
      sql<{ id: string }>`SELECT id FROM awhm.nodes WHERE namespace = ANY (${readNamespaces}) AND canonical_key = ANY (${[...new Set(keys)]})
        ORDER BY seq`,
      (rows) => [...new Set(rows.map((r) => r.id))]
    )

  /** The (ref, node id) pairs of these source messages, in the order of the refs asked. */
  const messageSources = (refs: ReadonlyArray<SourceRef>) =>
    Effect.gen(function* () {
      const pairs: Array<{ readonly ref: SourceRef; readonly id: string }> = []
      for (const chunk of chunks(refs, 500)) {
        const rows = yield* sql<{ o: string; node_id: string }>`SELECT v.o::text AS o, s.node_id FROM awhm.node_sources s
          JOIN unnest(${chunk.map((r) => r.sessionId)}::text[], ${chunk.map((r) => r.messageIndex)}::int[]) WITH ORDINALITY AS v(s, m, o)
            ON s.session_id = v.s AND s.message_index = v.m
          WHERE s.namespace = ANY (${readNamespaces}) ORDER BY v.o, s.node_id`
        const seen = new Set<string>()
        for (const r of rows) {
          if (seen.has(`${r.o}:${r.node_id}`)) continue
          seen.add(`${r.o}:${r.node_id}`)
          pairs.push({ ref: chunk[Number(r.o) - 1]!, id: r.node_id })
        }
      }
      return pairs
    })

  /** The 90th-percentile access count (domain/strength `p90`) over every node read, at least 1. */
  const accessP90 = Effect.gen(function* () {
    const [count] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM awhm.nodes WHERE namespace = ANY (${readNamespaces})`
    const n = count?.n ?? 0
    if (n === 0) return 1
    // The ascending list's element floor(0.9 n), read from the top (a tenth of the index, not nine).
    const at = n - 1 - Math.min(Math.floor(0.9 * n), n - 1)
    const [row] = yield* sql<{ c: number }>`SELECT access_count AS c FROM awhm.nodes WHERE namespace = ANY (${readNamespaces})
      ORDER BY access_count DESC LIMIT 1 OFFSET ${at}`
    return Math.max(1, row?.c ?? 1)
  })

  return { lexicalTopK, vectorTopK, neighbours, slotIds, messageSources, accessP90 }
}
