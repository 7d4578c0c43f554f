import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Either, Layer, Option, Predicate } from "effect"
import { CorruptFile, StorageError } from "../domain/errors.js"
import type { Edge, Graph, MemoryNode } from "../domain/Node.js"
import { ANALYZER_ID } from "../search/indexedText.js"
import { decodeRowNode, nodeToRow } from "../store/graphSerialization.js"
import { AppConfig } from "../services/AppConfig.js"
import { GraphStore, type GraphChanges, type GraphReader, type GraphSearchShape, type GraphStoreShape, type NodeKeyQuery } from "../services/GraphStore.js"
import { FORM, FORM_END, firstForms, lookupKeys } from "../text/lookupKeys.js"
import { withPending } from "./graph/accessCounts.js"
import { applyChanges, copyGraph, edgeKey, isEmptyChange } from "./graph/applyChanges.js"
import { flushPeriodically, PendingReinforcement, REINFORCE_FLUSH_MS, reinforced } from "./graph/reinforcement.js"
import { PostgresDatabase, type PostgresDatabaseShape } from "./postgres/PostgresDatabase.js"
import { asStored, chunks, rowVector, sourceRows, vectorBytes } from "./graph/rows.js"
import { type EdgeRow, lastByKey, makePostgresGraphSearch, type Posting, postingsOf, searchColumns, toEdge } from "./postgres/graphSearch.js"

/** The tables a hard delete removes rows from: VACUUM turns their dead tuples into free space. */
const TOUCHED_BY_DELETE = ["nodes", "node_sources", "node_terms", "node_keys", "edges", "graph_deletions", "messages", "log_sessions"] as const

interface LexicalDelta {
  docs: number
  total: number
}

interface NodeRow {
  readonly namespace: string
  readonly id: string
  readonly data: string
  readonly embedding?: unknown
  readonly embed_dim?: unknown
}

interface CacheState {
  readonly graph: Graph
  readonly withEmbeddings: boolean
  /** Namespace → the graph version the cached graph reflects. */
  readonly versions: ReadonlyMap<string, number>
}

interface VersionRow {
  readonly namespace: string
  readonly version: string
  readonly reset_at: string
}

/**
 * The graph in PostgreSQL: the nodes of every namespace this client reads, written only into its write
 * namespace. Writers of one namespace are serialised by a transaction-scoped advisory lock, so a
 * read-modify-write (`update`) never loses another process's commit.
 */
export const makeGraphStorePostgres = (
  db: PostgresDatabaseShape,
  options: { readonly vacuumOnScrub?: boolean; readonly reinforceFlushMs?: number } = {}
) =>
  Effect.gen(function* () {
    const { sql, writeNamespace: ns, readNamespaces, where } = db
    const fail = db.fail
    // Which namespace each node id was read from: nodes of other namespaces are read-only here.
    const namespaceOf = new Map<string, string>()
    const foreign = (id: string) => {
      const owner = namespaceOf.get(id)
      return owner !== undefined && owner !== ns
    }

    const lockNamespace = sql`SELECT pg_advisory_xact_lock(hashtext(${"awhm:graph:" + ns}))`
    /** The write namespace's next version (every row written now carries it); `reset`: a whole-graph replace. */
    const bumpVersion = (reset: boolean) =>
      Effect.map(
        sql<{ v: string }>`INSERT INTO awhm.graph_versions (namespace, version, reset_at) VALUES (${ns}, 1, ${reset ? 1 : 0})
          ON CONFLICT (namespace) DO UPDATE SET version = awhm.graph_versions.version + 1,
            reset_at = CASE WHEN ${reset} THEN awhm.graph_versions.version + 1 ELSE awhm.graph_versions.reset_at END
          RETURNING version::text AS v`,
        ([row]) => Number(row?.v ?? 0)
      )
    const readVersions = Effect.map(
      sql<VersionRow>`SELECT namespace, version::text AS version, reset_at::text AS reset_at FROM awhm.graph_versions
        WHERE namespace = ANY (${readNamespaces})`,
      (rows) => new Map(rows.map((r) => [r.namespace, { version: Number(r.version), resetAt: Number(r.reset_at) }] as const))
    )

    // ---- writes (inside a transaction holding the namespace's lock) ----

    const removePostings = (postings: ReadonlyArray<Posting>) =>
      Effect.forEach(
        chunks(postings, 5000),
        (part) =>
          sql`DELETE FROM awhm.node_terms p USING unnest(${part.map((r) => r.term)}::text[], ${part.map((r) => r.node_id)}::text[]) AS d(term, id)
            WHERE p.namespace = ${ns} AND p.term = d.term AND p.node_id = d.id`,
        { discard: true }
      )
    const addPostings = (postings: ReadonlyArray<Posting>) =>
      Effect.forEach(
        chunks(postings, 5000),
        (part) =>
          sql`INSERT INTO awhm.node_terms (namespace, term, node_id, tf, len)
            SELECT ${ns}, v.term, v.id, v.tf, v.len FROM unnest(${part.map((r) => r.term)}::text[], ${part.map((r) => r.node_id)}::text[],
              ${part.map((r) => r.tf)}::int[], ${part.map((r) => r.len)}::int[]) AS v(term, id, tf, len)
            ON CONFLICT (namespace, term, node_id) DO UPDATE SET tf = excluded.tf, len = excluded.len`,
        { discard: true }
      )

    /** The namespace's BM25 statistics (rows with terms, their total length) moved by this much. */
    const addLexicalStats = (d: LexicalDelta) =>
      d.docs === 0 && d.total === 0
        ? Effect.void
        : sql`INSERT INTO awhm.lexical_stats (namespace, analyzer, docs, total) VALUES (${ns}, ${ANALYZER_ID}, ${d.docs}, ${d.total})
            ON CONFLICT (namespace) DO UPDATE SET docs = awhm.lexical_stats.docs + excluded.docs,
              total = awhm.lexical_stats.total + excluded.total`

    /** The nodes' lookup keys (text/lookupKeys), rewritten only for a node whose keys changed. */
    const writeKeys = (nodes: ReadonlyArray<MemoryNode>) =>
      Effect.gen(function* () {
        const ids = nodes.map((n) => n.id)
        const old = new Map<string, Array<string>>()
        for (const r of yield* sql<{ node_id: string; key: string }>`SELECT node_id, key FROM awhm.node_keys
          WHERE namespace = ${ns} AND node_id = ANY (${ids}) ORDER BY node_id, pos`) {
          const list = old.get(r.node_id)
          if (list === undefined) old.set(r.node_id, [r.key])
          else list.push(r.key)
        }
        const changed = nodes.flatMap((n) => {
          const keys = lookupKeys(n)
          const before = old.get(n.id) ?? []
          return before.length === keys.length && before.every((k, i) => k === keys[i]) ? [] : [{ id: n.id, keys }]
        })
        if (changed.length > 0) {
          yield* sql`DELETE FROM awhm.node_keys WHERE namespace = ${ns} AND node_id = ANY (${changed.map((c) => c.id)})`
          const rows = changed.flatMap((c) => c.keys.map((key, pos) => ({ key, id: c.id, pos })))
          for (const part of chunks(rows, 5000)) {
            yield* sql`INSERT INTO awhm.node_keys (namespace, key, node_id, pos)
              SELECT ${ns}, v.k, v.id, v.p FROM unnest(${part.map((r) => r.key)}::text[], ${part.map((r) => r.id)}::text[],
                ${part.map((r) => r.pos)}::int[]) AS v(k, id, p)`
          }
        }
        yield* sql`UPDATE awhm.nodes SET keyed = true WHERE namespace = ${ns} AND id = ANY (${ids}) AND NOT keyed`
      })

    const writeNodes = (all: ReadonlyArray<MemoryNode>, version: number, stats: LexicalDelta) =>
      Effect.forEach(
        chunks(lastByKey(all.filter((n) => !foreign(n.id)), (n) => n.id), 200),
        (chunk) =>
          Effect.gen(function* () {
            const rows = chunk.map((n) => ({
              namespace: ns,
              id: n.id,
              changed_at: version,
              data: JSON.stringify(nodeToRow(n)),
              status: n.status,
              canonical_key: n.canonicalKey,
              embedding: n.embedding === null ? null : vectorBytes(n.embedding),
              embed_dim: n.embedding === null ? null : n.embedding.length,
              embed_model: n.embedModel,
              ...searchColumns(n)
            }))
            const before = yield* sql<{ id: string; lex_terms: ReadonlyArray<string> }>`SELECT id, lex_terms FROM awhm.nodes
              WHERE namespace = ${ns} AND id = ANY (${chunk.map((n) => n.id)}) AND lex_terms IS NOT NULL`
            const old = new Map(before.map((r) => [r.id, r.lex_terms] as const))
            stats.docs += rows.length - before.length
            for (const r of rows) stats.total += r.lex_len
            for (const r of before) stats.total -= r.lex_terms.length
            // Postings change only with the terms (not with a reinforcement or a status change).
            const changed = rows.filter((r) => old.get(r.id)?.join(" ") !== r.lex_terms.join(" "))
            yield* removePostings(changed.flatMap((r) => postingsOf(r.id, old.get(r.id) ?? [])))
            yield* addPostings(changed.flatMap((r) => postingsOf(r.id, r.lex_terms)))
            yield* sql`INSERT INTO awhm.nodes ${sql.insert(rows)}
              ON CONFLICT (namespace, id) DO UPDATE SET changed_at = excluded.changed_at, data = excluded.data, status = excluded.status,
                canonical_key = excluded.canonical_key, embedding = excluded.embedding, embed_dim = excluded.embed_dim,
                embed_model = excluded.embed_model, lex_terms = excluded.lex_terms, lex_len = excluded.lex_len,
                window_start = excluded.window_start, valid_to = excluded.valid_to, scope = excluded.scope,
                access_count = excluded.access_count`
            const ids = chunk.map((n) => n.id)
            yield* writeKeys(chunk)
            yield* sql`DELETE FROM awhm.node_sources WHERE namespace = ${ns} AND node_id = ANY (${ids})`
            const sources = chunk.flatMap(sourceRows)
            for (const part of chunks(sources)) {
              yield* sql`INSERT INTO awhm.node_sources (namespace, session_id, message_index, node_id)
                SELECT ${ns}, s, m, n FROM unnest(${part.map((r) => r.session_id)}::text[], ${part.map((r) => r.message_index)}::int[], ${part.map((r) => r.node_id)}::text[]) AS u(s, m, n)
                ON CONFLICT DO NOTHING`
            }
            for (const n of chunk) namespaceOf.set(n.id, ns)
          }),
        { discard: true }
      )

    const deleteNodes = (ids: ReadonlyArray<string>, version: number, stats: LexicalDelta) =>
      Effect.gen(function* () {
        for (const chunk of chunks(ids)) {
          const list = [...chunk]
          // A node only another namespace holds is read-only here (whether or not this process has read it).
          const [theirs] = yield* sql<{ id: string; namespace: string }>`SELECT o.id, o.namespace FROM awhm.nodes o
            WHERE o.namespace = ANY (${readNamespaces}) AND o.namespace <> ${ns} AND o.id = ANY (${list})
              AND NOT EXISTS (SELECT 1 FROM awhm.nodes m WHERE m.namespace = ${ns} AND m.id = o.id) LIMIT 1`
          if (theirs !== undefined) {
            return yield* new StorageError({
              operation: "save",
              path: where,
              message: `node ${theirs.id} belongs to namespace ${theirs.namespace}; this client writes only ${ns}`
            })
          }
          yield* sql`DELETE FROM awhm.edges WHERE namespace = ${ns} AND (source = ANY (${list}) OR target = ANY (${list}))`
          yield* sql`DELETE FROM awhm.node_sources WHERE namespace = ${ns} AND node_id = ANY (${list})`
          yield* sql`DELETE FROM awhm.node_keys WHERE namespace = ${ns} AND node_id = ANY (${list})`
          const gone = yield* sql<{ id: string; lex_terms: ReadonlyArray<string> | null }>`DELETE FROM awhm.nodes
            WHERE namespace = ${ns} AND id = ANY (${list}) RETURNING id, lex_terms`
          for (const r of gone) {
            if (r.lex_terms === null) continue
            stats.docs -= 1
            stats.total -= r.lex_terms.length
          }
          yield* removePostings(gone.flatMap((r) => postingsOf(r.id, r.lex_terms ?? [])))
          if (gone.length > 0) {
            yield* sql`INSERT INTO awhm.graph_deletions (namespace, version, node_id) SELECT ${ns}, ${version}, unnest(${gone.map((r) => r.id)}::text[])`
          }
          for (const id of chunk) namespaceOf.delete(id)
        }
      })

    // An edge is only kept when both ends exist in a namespace this client reads (as in every backend).
    const writeEdges = (edges: ReadonlyArray<Edge>, version: number) =>
      Effect.forEach(
        chunks(lastByKey(edges, edgeKey), 300),
        (chunk) =>
          sql`INSERT INTO awhm.edges (namespace, source, target, type, weight, created_at, changed_at)
            SELECT ${ns}, v.s, v.t, v.ty, v.w, v.c, ${version}::bigint
            FROM unnest(${chunk.map((e) => e.source)}::text[], ${chunk.map((e) => e.target)}::text[],
              ${chunk.map((e) => e.type)}::text[], ${chunk.map((e) => e.weight)}::float8[],
              ${chunk.map((e) => e.createdAt)}::text[]) WITH ORDINALITY AS v(s, t, ty, w, c, o)
            WHERE EXISTS (SELECT 1 FROM awhm.nodes WHERE id = v.s) AND EXISTS (SELECT 1 FROM awhm.nodes WHERE id = v.t)
            ORDER BY v.o
            ON CONFLICT (namespace, source, target, type) DO UPDATE SET weight = excluded.weight, created_at = excluded.created_at,
              changed_at = excluded.changed_at`,
        { discard: true }
      )

    /** Writes the changes as the write namespace's next version, which it returns. */
    const writeChanges = (changes: GraphChanges, reset = false) =>
      Effect.gen(function* () {
        const version = yield* bumpVersion(reset)
        const stats: LexicalDelta = { docs: 0, total: 0 }
        if (changes.deleteNodes && changes.deleteNodes.length > 0) yield* deleteNodes(changes.deleteNodes, version, stats)
        if (changes.upsertNodes && changes.upsertNodes.length > 0) yield* writeNodes(changes.upsertNodes, version, stats)
        if (changes.addEdges && changes.addEdges.length > 0) yield* writeEdges(changes.addEdges, version)
        yield* addLexicalStats(stats)
        return version
      })

    // ---- reads ----

    const decodeRows = (rows: ReadonlyArray<NodeRow>, withEmbeddings: boolean) =>
      Effect.try({
        try: () => {
          const nodes = new Map<string, MemoryNode>()
          const from = new Map<string, string>()
          for (const row of rows) {
            // The same id in the write namespace and another (a migrated copy): the write namespace's wins.
            if (row.namespace !== ns && from.get(row.id) === ns) continue
            from.set(row.id, row.namespace)
            const decoded = decodeRowNode(JSON.parse(row.data), withEmbeddings ? rowVector(row.embedding, row.embed_dim) : null)
            if (Either.isLeft(decoded)) throw new CorruptFile({ path: where, message: `node ${row.id} in ${where} is damaged: ${decoded.left}` })
            nodes.set(row.id, decoded.right)
            namespaceOf.set(row.id, row.namespace)
          }
          return nodes
        },
        catch: (e) => (e instanceof CorruptFile ? e : new CorruptFile({ path: where, message: `a node row in ${where} is not valid JSON` }))
      })

    const readAll = (withEmbeddings: boolean) =>
      Effect.gen(function* () {
        const rows = withEmbeddings
          ? yield* sql<NodeRow>`SELECT namespace, id, data, embedding, embed_dim FROM awhm.nodes
              WHERE namespace = ANY (${readNamespaces}) ORDER BY seq`
          : yield* sql<NodeRow>`SELECT namespace, id, data FROM awhm.nodes WHERE namespace = ANY (${readNamespaces}) ORDER BY seq`
        const nodes = yield* decodeRows(rows, withEmbeddings)
        const edgeRows = yield* sql<EdgeRow>`
          SELECT source, target, type, weight, created_at FROM awhm.edges WHERE namespace = ANY (${readNamespaces}) ORDER BY seq`
        const edges = lastByKey(edgeRows.filter((r) => nodes.has(r.source) && nodes.has(r.target)).map(toEdge), edgeKey)
        return { nodes, edges } satisfies Graph
      })

    /**
     * Brings a cached graph up to `current` by reading only the rows written since (and the ids deleted
     * since); null when only a full read will do (a snapshot restore, or a cache without the vectors asked for).
     */
    const refresh = (state: CacheState, current: ReadonlyMap<string, { version: number; resetAt: number }>) =>
      Effect.gen(function* () {
        const since: Array<readonly [string, number]> = []
        for (const n of readNamespaces) {
          const now = current.get(n) ?? { version: 0, resetAt: 0 }
          const seen = state.versions.get(n) ?? 0
          if (now.version === seen) continue
          if (now.version < seen || now.resetAt > seen) return null
          since.push([n, seen])
        }
        const versions = new Map([...current].map(([n, v]) => [n, v.version] as const))
        if (since.length === 0) return state
        const names = since.map(([n]) => n)
        const seenAt = since.map(([, v]) => v)
        const deleted = yield* sql<{ namespace: string; node_id: string }>`SELECT d.namespace, d.node_id FROM awhm.graph_deletions d
          JOIN unnest(${names}::text[], ${seenAt}::bigint[]) AS c(ns, v) ON d.namespace = c.ns AND d.version > c.v`
        const rows = state.withEmbeddings
          ? yield* sql<NodeRow>`SELECT n.namespace, n.id, n.data, n.embedding, n.embed_dim FROM awhm.nodes n
              JOIN unnest(${names}::text[], ${seenAt}::bigint[]) AS c(ns, v) ON n.namespace = c.ns AND n.changed_at > c.v ORDER BY n.seq`
          : yield* sql<NodeRow>`SELECT n.namespace, n.id, n.data FROM awhm.nodes n
              JOIN unnest(${names}::text[], ${seenAt}::bigint[]) AS c(ns, v) ON n.namespace = c.ns AND n.changed_at > c.v ORDER BY n.seq`
        const edgeRows = yield* sql<EdgeRow>`SELECT e.source, e.target, e.type, e.weight, e.created_at FROM awhm.edges e
          JOIN unnest(${names}::text[], ${seenAt}::bigint[]) AS c(ns, v) ON e.namespace = c.ns AND e.changed_at > c.v ORDER BY e.seq`
        const { graph } = state
        const gone = new Set<string>()
        for (const d of deleted) {
          const owner = namespaceOf.get(d.node_id)
          if (owner !== undefined && owner !== d.namespace) continue // a copy in another namespace stays
          graph.nodes.delete(d.node_id)
          namespaceOf.delete(d.node_id)
          gone.add(d.node_id)
        }
        for (const row of rows) {
          if (row.namespace !== ns && namespaceOf.get(row.id) === ns && graph.nodes.has(row.id)) continue
          const [[id, node]] = [...(yield* decodeRows([row], state.withEmbeddings))] as [[string, MemoryNode]]
          graph.nodes.set(id, node)
        }
        let edges = gone.size === 0 ? graph.edges : graph.edges.filter((e) => !gone.has(e.source) && !gone.has(e.target))
        const at = new Map(edges.map((e, i) => [edgeKey(e), i] as const))
        if (edges === graph.edges && edgeRows.length > 0) edges = edges.slice()
        for (const e of edgeRows.map(toEdge)) {
          if (!graph.nodes.has(e.source) || !graph.nodes.has(e.target)) continue
          const i = at.get(edgeKey(e))
          if (i !== undefined) edges[i] = e
          else {
            at.set(edgeKey(e), edges.length)
            edges.push(e)
          }
        }
        return { graph: { nodes: graph.nodes, edges }, withEmbeddings: state.withEmbeddings, versions } satisfies CacheState
      })

    /**
     * Rows of the write namespace without search columns (written before they existed, or under another
     * analyzer) get them, under the namespace's lock, once: every later write keeps them.
     */
    const indexUnindexedRows = Effect.gen(function* () {
      const [state] = yield* sql<{ analyzer: string | null; unindexed: boolean }>`SELECT
        (SELECT analyzer FROM awhm.lexical_stats WHERE namespace = ${ns}) AS analyzer,
        EXISTS (SELECT 1 FROM awhm.nodes WHERE namespace = ${ns} AND lex_terms IS NULL) AS unindexed`
      const stale = state?.analyzer != null && state.analyzer !== ANALYZER_ID
      if (!stale && state?.unindexed !== true) return
      yield* sql.withTransaction(
        Effect.gen(function* () {
          yield* lockNamespace
          if (stale) {
            yield* sql`UPDATE awhm.nodes SET lex_terms = NULL, lex_len = NULL WHERE namespace = ${ns}`
            yield* sql`DELETE FROM awhm.lexical_stats WHERE namespace = ${ns}`
            yield* sql`DELETE FROM awhm.node_terms WHERE namespace = ${ns}`
          }
          for (;;) {
            const rows = yield* sql<NodeRow>`SELECT namespace, id, data FROM awhm.nodes WHERE namespace = ${ns} AND lex_terms IS NULL LIMIT 1000`
            if (rows.length === 0) return
            const columns = [...(yield* decodeRows(rows, false)).values()].map((n) => ({ id: n.id, ...searchColumns(n) }))
            yield* sql`UPDATE awhm.nodes n SET lex_terms = CASE WHEN v.t = '' THEN '{}'::text[] ELSE string_to_array(v.t, ' ') END,
                lex_len = v.l, window_start = v.w, valid_to = v.vt, scope = v.sc, access_count = v.a
              FROM unnest(${columns.map((c) => c.id)}::text[], ${columns.map((c) => c.lex_terms.join(" "))}::text[],
                ${columns.map((c) => c.lex_len)}::int[], ${columns.map((c) => c.window_start)}::text[],
                ${columns.map((c) => c.valid_to)}::text[], ${columns.map((c) => c.scope)}::text[],
                ${columns.map((c) => c.access_count)}::int[]) AS v(id, t, l, w, vt, sc, a)
              WHERE n.namespace = ${ns} AND n.id = v.id`
            yield* addPostings(columns.flatMap((c) => postingsOf(c.id, c.lex_terms)))
            yield* addLexicalStats({ docs: columns.length, total: columns.reduce((sum, c) => sum + c.lex_len, 0) })
          }
        })
      )
    })

    /** Rows of the write namespace written before lookup keys existed get them, under the namespace's lock, once. */
    const keyUnkeyedRows = Effect.gen(function* () {
      const [state] = yield* sql<{ unkeyed: boolean }>`SELECT EXISTS (SELECT 1 FROM awhm.nodes WHERE namespace = ${ns} AND NOT keyed) AS unkeyed`
      if (state?.unkeyed !== true) return
      yield* sql.withTransaction(
        Effect.gen(function* () {
          yield* lockNamespace
          for (;;) {
            const rows = yield* sql<NodeRow>`SELECT namespace, id, data FROM awhm.nodes WHERE namespace = ${ns} AND NOT keyed LIMIT 1000`
            if (rows.length === 0) return
            for (const part of chunks([...(yield* decodeRows(rows, false)).values()], 200)) yield* writeKeys(part)
          }
        })
      )
    })

    let cache: CacheState | null = null

    /** The current graph: the cache refreshed with what changed since it was read, or a full read. */
    const currentGraph = (withEmbeddings: boolean) =>
      Effect.gen(function* () {
        const current = yield* readVersions
        const base = cache
        cache = null // while it is being brought up to date
        const refreshed = base !== null && (base.withEmbeddings || !withEmbeddings) ? yield* refresh(base, current) : null
        const next: CacheState = refreshed ?? {
          graph: yield* readAll(withEmbeddings),
          withEmbeddings,
          versions: new Map([...current].map(([n, v]) => [n, v.version] as const))
        }
        cache = next
        return next
      })

    // A repeatable-read transaction: the versions, nodes and edges come from one snapshot. Inside a caller's
    // transaction (a snapshot under the progress lock) the reads join it as they are.
    const readTransaction = <A, E, R>(body: Effect.Effect<A, E, R>) =>
      Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (outer) =>
        Option.isSome(outer) ? body : sql.withTransaction(Effect.zipRight(sql`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ`, body))
      )

    /**
     * Runs a write under the namespace's lock. The cache takes the changes only when it was current for
     * the write namespace and the commit is final here; otherwise the next read refreshes it from the rows.
     */
    const writeTransaction = <A, E, R>(
      body: Effect.Effect<readonly [A, GraphChanges], E, R>,
      base: () => CacheState | null,
      reset = false
    ) =>
      Effect.gen(function* () {
        // Inside a caller's transaction (consolidation progress) the commit is not final yet.
        const nested = Option.isSome(yield* Effect.serviceOption(SqlClient.TransactionConnection))
        let next: CacheState | null = null
        const a = yield* sql.withTransaction(
          Effect.gen(function* () {
            yield* lockNamespace
            const [a, asked] = yield* body
            const changes = asStored(asked)
            const start = base()
            cache = null
            next = start
            if (isEmptyChange(changes) && !reset) return a
            const version = yield* writeChanges(changes, reset)
            if (start !== null && !nested && !reset && start.versions.get(ns) === version - 1) {
              applyChanges(start.graph, changes)
              next = { ...start, versions: new Map(start.versions).set(ns, version) }
            }
            return a
          })
        )
        cache = reset ? null : next
        return a
      })

    const search = makePostgresGraphSearch({ sql, readNamespaces, writeNamespace: ns, readVersions })
    const changeStamp = Effect.map(
      sql<{ stamp: string | null }>`SELECT string_agg(namespace || ':' || version, ',' ORDER BY namespace) AS stamp
        FROM awhm.graph_versions WHERE namespace = ANY (${readNamespaces})`,
      ([row]) => row?.stamp ?? ""
    )
    let p90Cache: { readonly stamp: string; readonly value: number } | null = null
    const accessP90 = Effect.gen(function* () {
      const stamp = yield* changeStamp
      if (p90Cache === null || p90Cache.stamp !== stamp) p90Cache = { stamp, value: yield* search.accessP90 }
      return p90Cache.value
    })
    yield* indexUnindexedRows.pipe(Effect.mapError((e) => (e instanceof CorruptFile ? e : fail("open")(e))))
    yield* keyUnkeyedRows.pipe(Effect.mapError((e) => (e instanceof CorruptFile ? e : fail("open")(e))))

    const pending = new PendingReinforcement()
    const readFailure = (operation: string) => (e: SqlError | CorruptFile | StorageError) =>
      e instanceof CorruptFile || e instanceof StorageError ? e : fail(operation)(e)

    /** Nodes by id (vectors included) as stored. */
    const nodesById = (ids: ReadonlyArray<string>, withEmbeddings = true) =>
      Effect.gen(function* () {
        const found = new Map<string, MemoryNode>()
        const vectorColumns = sql.literal(withEmbeddings ? "embedding, embed_dim" : "NULL AS embedding, NULL AS embed_dim")
        for (const chunk of chunks([...new Set(ids)])) {
          const rows = yield* sql<NodeRow>`SELECT namespace, id, data, ${vectorColumns} FROM awhm.nodes
            WHERE namespace = ANY (${readNamespaces}) AND id = ANY (${[...chunk]}) ORDER BY seq`
          for (const [id, n] of yield* decodeRows(rows, withEmbeddings)) found.set(id, n)
        }
        return found
      })
    /** The nodes found, in the order of `ids`, with this process's pending reinforcement. */
    const inOrder = (ids: ReadonlyArray<string>, found: ReadonlyMap<string, MemoryNode>) =>
      ids.flatMap((id) => {
        const n = found.get(id)
        return n === undefined ? [] : [pending.overlay(n)]
      })

    /** Rows (id, seq) of the namespaces read → the nodes in store order (an id's first row, as load() orders them). */
    const nodesInSeqOrder = (rows: ReadonlyArray<{ readonly id: string; readonly seq: string }>) =>
      Effect.gen(function* () {
        const first = new Map<string, number>()
        for (const r of rows) {
          const seq = Number(r.seq)
          if (!(first.get(r.id)! <= seq)) first.set(r.id, seq)
        }
        const ids = [...first.keys()].sort((a, b) => first.get(a)! - first.get(b)!)
        return inOrder(ids, yield* nodesById(ids))
      })

    const nodesByKeys = (q: NodeKeyQuery) =>
      Effect.gen(function* () {
        type Row = { id: string; seq: string }
        const rows: Array<Row> = []
        const ids = [...new Set(q.ids)]
        const keys = [...new Set(q.lookupKeys)]
        const slots = [...new Set(q.canonicalKeys)]
        if (ids.length > 0) {
          rows.push(...(yield* sql<Row>`SELECT id, min(seq)::text AS seq FROM awhm.nodes WHERE namespace = ANY (${readNamespaces})
            AND id = ANY (${ids}) GROUP BY id`))
        }
        if (keys.length > 0) {
          rows.push(...(yield* sql<Row>`SELECT n.id, min(n.seq)::text AS seq FROM awhm.node_keys k
            JOIN awhm.nodes n ON n.id = k.node_id AND n.namespace = ANY (${readNamespaces})
            WHERE k.namespace = ANY (${readNamespaces}) AND k.key = ANY (${keys}::text[]) GROUP BY n.id`))
        }
        if (slots.length > 0) {
          rows.push(...(yield* sql<Row>`SELECT id, min(seq)::text AS seq FROM awhm.nodes WHERE namespace = ANY (${readNamespaces})
            AND canonical_key = ANY (${slots}) GROUP BY id`))
        }
        for (const family of new Set(q.keyFamilies)) {
          rows.push(...(yield* sql<Row>`SELECT id, min(seq)::text AS seq FROM awhm.nodes WHERE namespace = ANY (${readNamespaces})
            AND status = 'active' AND starts_with(canonical_key, ${family + ":"}) GROUP BY id`))
        }
        return yield* nodesInSeqOrder(rows)
      })

    // An id held by several namespaces (a migrated copy) reads as the write namespace's row, as in load().
    const entityForms = Effect.gen(function* () {
      const rows = yield* sql<{ namespace: string; node_id: string; key: string }>`SELECT k.namespace, k.node_id, k.key
        FROM awhm.node_keys k JOIN awhm.nodes n ON n.namespace = k.namespace AND n.id = k.node_id
        WHERE k.namespace = ANY (${readNamespaces}) AND k.key >= ${FORM} AND k.key < ${FORM_END} ORDER BY n.seq, k.pos`
      const owner = new Map<string, string>()
      for (const r of rows) if (!owner.has(r.node_id) || r.namespace === ns) owner.set(r.node_id, r.namespace)
      const byNode = new Map<string, Array<string>>()
      for (const r of rows) {
        if (owner.get(r.node_id) !== r.namespace) continue
        const list = byNode.get(r.node_id)
        if (list === undefined) byNode.set(r.node_id, [r.key])
        else list.push(r.key)
      }
      return firstForms([...byNode.values()].flat())
    })

    const accessCounts = Effect.gen(function* () {
      const rows = yield* sql<{ count: number; nodes: number }>`SELECT access_count AS count, count(*)::int AS nodes FROM awhm.nodes
        WHERE namespace = ANY (${readNamespaces}) GROUP BY access_count ORDER BY access_count`
      if (pending.size === 0) return rows
      return withPending(rows, [...(yield* nodesById([...pending.ids()])).values()], (n) => pending.overlay(n))
    })

    const shape: Omit<GraphStoreShape, keyof GraphSearchShape> = {
      backend: "postgres",
      location: where,
      load: (opts) =>
        readTransaction(currentGraph(opts?.withEmbeddings !== false)).pipe(
          Effect.map((state) => pending.overlayGraph(state.graph)),
          Effect.mapError((e) => (e instanceof CorruptFile ? e : fail("load")(e)))
        ),
      getNodes: (ids, options) =>
        Effect.map(nodesById(ids, options?.withEmbeddings !== false), (found) => inOrder(ids, found)).pipe(Effect.mapError(readFailure("read"))),
      counts: readTransaction(
        Effect.gen(function* () {
          const [nodes] = yield* sql<{ n: number }>`SELECT count(DISTINCT id)::int AS n FROM awhm.nodes WHERE namespace = ANY (${readNamespaces})`
          const [edges] = yield* sql<{ n: number }>`SELECT count(DISTINCT (e.source, e.target, e.type))::int AS n FROM awhm.edges e
            WHERE e.namespace = ANY (${readNamespaces})
              AND EXISTS (SELECT 1 FROM awhm.nodes WHERE id = e.source) AND EXISTS (SELECT 1 FROM awhm.nodes WHERE id = e.target)`
          return { nodes: nodes?.n ?? 0, edges: edges?.n ?? 0 }
        })
      ).pipe(Effect.mapError((e) => (e instanceof CorruptFile ? e : fail("count")(e)))),
      commit: (changes) =>
        isEmptyChange(changes)
          ? Effect.void
          : writeTransaction(Effect.succeed([undefined, changes] as const), () => cache).pipe(Effect.mapError(fail("save"))),
      update: <A, E, R>(f: (graph: Graph) => Effect.Effect<readonly [A, GraphChanges], E, R>) => {
        let state: CacheState | null = null
        const body = Effect.gen(function* () {
          state = yield* currentGraph(true).pipe(Effect.mapError((e) => (e instanceof CorruptFile ? e : fail("load")(e))))
          return yield* f(copyGraph(state.graph))
        })
        return writeTransaction(body, () => state).pipe(
          Effect.mapError((e) => (Predicate.isTagged(e, "SqlError") ? fail("save")(e) : (e as E | CorruptFile | StorageError)))
        )
      },
      updatePart: <A, E, R>(f: (reader: GraphReader) => Effect.Effect<readonly [A, GraphChanges], E, R>) =>
        // As commit: the cached graph takes the changes when it was current, else the next read refreshes it.
        writeTransaction(Effect.suspend(() => f(store)), () => cache).pipe(
          Effect.mapError((e) => (Predicate.isTagged(e, "SqlError") ? fail("save")(e) : (e as E | CorruptFile | StorageError)))
        ),
      replaceAll: (graph) =>
        writeTransaction(
          Effect.gen(function* () {
            yield* sql`DELETE FROM awhm.edges WHERE namespace = ${ns}`
            yield* sql`DELETE FROM awhm.node_sources WHERE namespace = ${ns}`
            yield* sql`DELETE FROM awhm.node_keys WHERE namespace = ${ns}`
            yield* sql`DELETE FROM awhm.nodes WHERE namespace = ${ns}`
            yield* sql`DELETE FROM awhm.lexical_stats WHERE namespace = ${ns}`
            yield* sql`DELETE FROM awhm.node_terms WHERE namespace = ${ns}`
            for (const [id, owner] of namespaceOf) if (owner === ns) namespaceOf.delete(id)
            return [undefined, { upsertNodes: Array.from(graph.nodes.values()), addEdges: graph.edges }] as const
          }),
          () => null,
          true
        ).pipe(Effect.mapError(fail("restore"))),
      // Deleted rows stay in the table files as dead tuples until VACUUM reclaims them; only the owner may run it.
      scrub:
        options.vacuumOnScrub === false
          ? Effect.void
          : db.isOwner
            ? Effect.forEach(TOUCHED_BY_DELETE, (t) => sql.unsafe(`VACUUM awhm.${t}`), { discard: true }).pipe(
                Effect.mapError(fail("vacuum"))
              )
            : Effect.logWarning(`VACUUM skipped: only the owner of the awhm schema on ${where} may run it; deleted rows stay as dead tuples until the owner or autovacuum does`)
    }
    const flushReinforcement: Effect.Effect<void, StorageError | CorruptFile> = Effect.suspend(() => {
      if (pending.size === 0) return Effect.void
      const taken = pending.take()
      return writeTransaction(
        Effect.map(nodesById([...taken.keys()]), (fresh) => [undefined, { upsertNodes: reinforced(taken, (id) => fresh.get(id)) }] as const),
        () => cache
      ).pipe(
        Effect.tapError(() => Effect.sync(() => pending.restore(taken))),
        Effect.mapError(readFailure("save"))
      )
    })
    yield* flushPeriodically(flushReinforcement, options.reinforceFlushMs ?? REINFORCE_FLUSH_MS)

    const store: GraphStoreShape = GraphStore.of({
      ...shape,
      lexicalTopK: (q) => search.lexicalTopK(q).pipe(Effect.mapError(fail("search"))),
      vectorTopK: (q) => search.vectorTopK(q).pipe(Effect.mapError(fail("search"))),
      neighbours: (ids) => search.neighbours(ids).pipe(Effect.mapError(fail("search"))),
      bySlot: (keys) =>
        Effect.gen(function* () {
          const ids = yield* search.slotIds(keys)
          return inOrder(ids, yield* nodesById(ids))
        }).pipe(Effect.mapError(readFailure("search"))),
      fromMessages: (refs, options) =>
        Effect.gen(function* () {
          const pairs = yield* search.messageSources(refs)
          const found = yield* nodesById(pairs.map((p) => p.id), false)
          return pairs.flatMap(({ ref, id }) => {
            const n = found.get(id)
            return n === undefined || (options?.keyed === true && n.canonicalKey === null) ? [] : [{ ref, node: pending.overlay(n) }]
          })
        }).pipe(Effect.mapError(readFailure("search"))),
      nodesByKeys: (q) => nodesByKeys(q).pipe(Effect.mapError(readFailure("search"))),
      entityForms: entityForms.pipe(Effect.mapError(fail("search"))),
      accessCounts: accessCounts.pipe(Effect.mapError(readFailure("search"))),
      accessP90: accessP90.pipe(Effect.mapError(fail("search"))),
      // The versions of the namespaces read: they move with every commit of any process.
      changeStamp: changeStamp.pipe(Effect.mapError(fail("search"))),
      reinforce: (items) => Effect.sync(() => pending.add(items)),
      flushReinforcement
    })
    return store
  })

/** The graph store of `storage_backend: postgres`. */
export const GraphStorePostgres: Layer.Layer<GraphStore, StorageError | CorruptFile, PostgresDatabase | AppConfig> = Layer.scoped(
  GraphStore,
  Effect.gen(function* () {
    const config = yield* AppConfig
    return yield* makeGraphStorePostgres(yield* PostgresDatabase, { vacuumOnScrub: config.postgresVacuumOnDelete })
  })
)
