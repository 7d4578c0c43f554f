import * as fs from "node:fs"
import * as path from "node:path"
import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { Effect, Either, ExecutionStrategy, Exit, Layer, Scope } from "effect"
import { CorruptFile, diskFull, innermostMessage, isDiskFull, StorageError } from "../domain/errors.js"
import type { Edge, Graph, MemoryNode } from "../domain/Node.js"
import { isLongLived } from "../runtime/longLived.js"
import { noSpaceLeft } from "../store/diskSpace.js"
import { refuseLink } from "../store/noFollow.js"
import { dataPaths } from "../store/paths.js"
import { ensurePrivateDir } from "../store/privateDir.js"
import { AppConfig } from "../services/AppConfig.js"
import {
  GraphStore, type GraphChanges, type GraphReader, type GraphStoreShape, type LexicalQuery, type NodeKeyQuery, type ScoredId,
  type VectorQuery
} from "../services/GraphStore.js"
import { applyChanges, copyGraph, isEmptyChange } from "./graph/applyChanges.js"
import { readReferenceSqlite, referenceBackupPath, takeReferenceSqlite } from "./graph/referenceSqlite.js"
import { corruptGraph } from "./graph/corrupt.js"
import { readJsonGraphFile } from "./graph/jsonFile.js"
import { graphMigrations, latestGraphMigration } from "./graph/migrations/index.js"
import { decodeRowNode } from "../store/graphSerialization.js"
import { filteredVectorTopK, filterSql, indexColumns } from "./graph/sqliteSearch.js"
import { byBound, collectMatches, documentCount, exactScore, LengthCache, maxScoreTop, parseIntList } from "./graph/exactBm25.js"
import { rebuildTermPostings, readPostings, TermChanges } from "./graph/termPostings.js"
import { asStored, chunks, rowVectors, sourceRows, vectorBytes } from "./graph/rows.js"
import { flushPeriodically, PendingReinforcement, REINFORCE_FLUSH_MS, reinforced } from "./graph/reinforcement.js"
import { analyze } from "../search/IndexAnalyzer.js"
import { FORM, FORM_END, firstForms, lookupKeys } from "../text/lookupKeys.js"
import { withPending } from "./graph/accessCounts.js"
import { makeVectorSource, vectorImageFiles, type VectorImageFiles } from "./graph/sqliteVectors.js"
import { nodeRowData, type NodeColumns, withRowColumns } from "./graph/sqliteRow.js"

export interface SqliteStoreOptions {
  /** The database file (`<data-dir>/graph/memory_graph.sqlite`). */
  readonly file: string
  /** A reference-format JSON graph imported once when this database is first opened empty. */
  readonly importJson?: string | null
  /** Where snapshots live (named in the corruption message). */
  readonly snapshotsDir: string
  /** How long a writer waits for another process's transaction (ms). */
  readonly busyTimeoutMs?: number
  /** Where the vectors are saved as one image between processes (null: read from the rows by each process). */
  readonly vectorImage?: VectorImageFiles | null
  /** How often gathered reinforcement is written (ms; also when the store's scope closes). */
  readonly reinforceFlushMs?: number
}

const SQLITE_HEADER = "SQLite format 3\u0000"
const sqliteCode = (e: unknown): string | undefined => {
  for (let cur: unknown = e, depth = 0; cur !== null && typeof cur === "object" && depth < 5; depth++) {
    const code = (cur as { code?: unknown }).code
    if (typeof code === "string" && code.startsWith("SQLITE_")) return code
    cur = (cur as { cause?: unknown }).cause
  }
  return undefined
}


/**
 * Cheap checks of the 100-byte header: the magic string, and (when no write-ahead log is pending, so the
 * main file must hold every page) that the file is as long as the header says. Null when it looks whole.
 */
const damageSeenInHeader = (file: string): string | null => {
  let size: number
  try {
    size = fs.statSync(file).size
  } catch {
    return null // a new database
  }
  if (size === 0) return null
  const head = Buffer.alloc(100)
  const fd = fs.openSync(file, "r")
  try {
    fs.readSync(fd, head, 0, 100, 0)
  } finally {
    fs.closeSync(fd)
  }
  if (size < 512 || head.toString("latin1", 0, 16) !== SQLITE_HEADER) return "not a SQLite database"
  let walSize = 0
  try {
    walSize = fs.statSync(file + "-wal").size
  } catch {
    walSize = 0
  }
  const rawPageSize = head.readUInt16BE(16)
  const pageSize = rawPageSize === 1 ? 65536 : rawPageSize
  const pages = head.readUInt32BE(28)
  // The page count is only meaningful when "version-valid-for" matches the change counter.
  const countValid = head.readUInt32BE(92) === head.readUInt32BE(24)
  if (walSize === 0 && countValid && pages > 0 && size < pages * pageSize) return "truncated"
  return null
}

/** Removes a -shm file smaller than one 32 KB region (SQLite never got to use it). */
const removeShmStub = (file: string): void => {
  try {
    if (fs.lstatSync(file).size < 32_768) fs.unlinkSync(file)
  } catch {
    // gone already
  }
}

const sameKeys = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) => a.length === b.length && a.every((k, i) => k === b[i])

/** A nodes row as read back: its JSON and the columns that JSON leaves out (graph/sqliteRow). */
interface NodeRow extends NodeColumns {
  readonly data: string
}

/** A node_vectors row's vector columns. */
interface VectorColumns {
  readonly embedding: unknown
  readonly embed_dim: unknown
}

const vectorsById = (rows: ReadonlyArray<VectorColumns & { readonly node_id: string }>): Map<string, Float32Array | null> => {
  const vectors = rowVectors(rows)
  return new Map(rows.map((r, i) => [r.node_id, vectors[i]!] as const))
}

interface CacheState {
  readonly graph: Graph
  readonly withEmbeddings: boolean
  /** PRAGMA data_version when read: it changes when another connection commits. */
  readonly dataVersion: number
}

/** A graph store in one SQLite file: WAL mode, incremental saves, immediate write transactions. */
export const makeGraphStoreSqlite = (options: SqliteStoreOptions) =>
  Effect.gen(function* () {
    const { file, snapshotsDir } = options
    const fail = (operation: string) => (e: unknown): StorageError | CorruptFile => {
      if (e instanceof CorruptFile || e instanceof StorageError) return e
      const code = sqliteCode(e)
      if (code === "SQLITE_CORRUPT" || code === "SQLITE_NOTADB") {
        return corruptGraph(file, "not a readable SQLite database", snapshotsDir)
      }
      if (code !== undefined && code.startsWith("SQLITE_BUSY")) {
        return new StorageError({ operation, path: file, message: `the memory graph ${file} stayed locked by another process; try again` })
      }
      // SQLite reports a -shm or -wal file it could not grow as an I/O error: say what it is.
      if (
        code === "SQLITE_FULL" ||
        code === "SQLITE_IOERR_SHMSIZE" ||
        (code !== undefined && /^SQLITE_(IOERR|CANTOPEN)/.test(code) && noSpaceLeft(path.dirname(file)))
      ) {
        return diskFull(operation, file)
      }
      return new StorageError({ operation, path: file, message: `${operation} failed on ${file}: ${innermostMessage(e)}` })
    }

    // AWHM Lite's own SQLite graph is read read-only and moved aside; its graph goes into a new file below.
    const fromReference = yield* takeReferenceSqlite(file, snapshotsDir)

    // A file that is not SQLite at all, or visibly truncated, is refused before the driver opens (and maybe
    // writes to) it.
    yield* Effect.try({
      try: () => {
        ensurePrivateDir(path.dirname(file))
        refuseLink(file)
        const reason = damageSeenInHeader(file)
        if (reason !== null) throw corruptGraph(file, reason, snapshotsDir)
        // Memory is private: create the file owner-only (SQLite gives its -wal and -shm the same mode).
        try {
          fs.writeFileSync(file, "", { flag: "wx", mode: 0o600 })
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e
        }
      },
      catch: fail("open")
    })

    // On a full disk SQLite cannot grow the shared-memory file a WAL database needs, so a one-command process
    // opens the store again in exclusive locking mode, which keeps that index in its own memory: reads still
    // answer (a query, status), and a write fails there with the disk-full line. A server never does: it would
    // hold every other process off the graph until it ends.
    const storeScope = yield* Effect.scope
    const connect = (exclusive: boolean) =>
      Effect.gen(function* () {
        const scope = yield* Scope.fork(storeScope, ExecutionStrategy.sequential)
        return yield* SqliteClient.make({ filename: file, disableWAL: exclusive }).pipe(
          Effect.tap((client) =>
            exclusive ? Effect.all([client`PRAGMA locking_mode = EXCLUSIVE`, client`PRAGMA journal_mode = WAL`]) : Effect.void
          ),
          Effect.provide(Reactivity.layer),
          Scope.extend(scope),
          Effect.catchAllDefect((e) => Effect.fail(e)),
          Effect.mapError(fail("open")),
          Effect.tapError(() => Scope.close(scope, Exit.void))
        )
      })
    const sql = yield* connect(false).pipe(
      Effect.catchIf((e) => isDiskFull(e) && !isLongLived(), (full) =>
        connect(true).pipe(
          Effect.orElseFail(() => full),
          // This connection now holds the file alone: the stub -shm the first attempt left is nobody's.
          Effect.tap(() => Effect.sync(() => removeShmStub(file + "-shm")))
        )
      )
    )

    const withImmediate = SqlClient.makeWithTransaction({
      transactionTag: SqlClient.TransactionConnection,
      spanAttributes: [],
      acquireConnection: Effect.flatMap(Scope.make(), (scope) =>
        Effect.map(Scope.extend(sql.reserve, scope), (conn) => [scope, conn] as const)
      ),
      begin: (conn) => Effect.asVoid(conn.executeUnprepared("BEGIN IMMEDIATE", [], undefined)),
      savepoint: (conn, id) => Effect.asVoid(conn.executeUnprepared(`SAVEPOINT effect_sql_${id}`, [], undefined)),
      commit: (conn) => Effect.asVoid(conn.executeUnprepared("COMMIT", [], undefined)),
      // When BEGIN itself failed (busy) there is nothing to roll back; that must stay a typed failure, not a defect.
      rollback: (conn) => Effect.ignore(conn.executeUnprepared("ROLLBACK", [], undefined)),
      rollbackSavepoint: (conn, id) =>
        Effect.asVoid(conn.executeUnprepared(`ROLLBACK TO SAVEPOINT effect_sql_${id}`, [], undefined))
    })

    // One connection per process: these hold for its lifetime. secure_delete zeroes deleted content.
    yield* Effect.all([
      sql.unsafe(`PRAGMA busy_timeout = ${options.busyTimeoutMs ?? 15_000}`),
      sql`PRAGMA secure_delete = ON`,
      sql`PRAGMA synchronous = NORMAL`
    ]).pipe(Effect.mapError(fail("open")))

    // What a node read selects: its JSON and the columns the JSON leaves out (graph/sqliteRow).
    const rowColumns = sql.literal("id, data, access_count, canonical_key, window_start")
    const nRowColumns = sql.literal("n.id, n.data, n.access_count, n.canonical_key, n.window_start")
    // The embedding model rows leave out (migration 0006): read once the migrations ran, before any row.
    let rowModel: string | null = null
    const readRowModel = Effect.map(sql<{ value: string }>`SELECT value FROM meta WHERE key = 'row_embed_model'`, ([row]) => {
      rowModel = row?.value ?? null
    })

    // ---- writes (always inside an immediate transaction) ----

    /** The nodes' lookup keys (text/lookupKeys), rewritten only for a node whose keys changed. */
    const writeKeys = (nodes: ReadonlyArray<MemoryNode>) =>
      Effect.gen(function* () {
        const old = new Map<string, Array<string>>()
        for (const r of yield* sql<{ node_id: string; key: string }>`SELECT node_id, key FROM node_keys
          WHERE node_id IN ${sql.in(nodes.map((n) => n.id))} ORDER BY node_id, pos`) {
          const list = old.get(r.node_id)
          if (list === undefined) old.set(r.node_id, [r.key])
          else list.push(r.key)
        }
        const changed = nodes.flatMap((n) => {
          const keys = lookupKeys(n)
          return sameKeys(old.get(n.id) ?? [], keys) ? [] : [{ id: n.id, keys }]
        })
        if (changed.length === 0) return
        yield* sql`DELETE FROM node_keys WHERE node_id IN ${sql.in(changed.map((c) => c.id))}`
        const rows = changed.flatMap((c) => c.keys.map((key, pos) => ({ node_id: c.id, pos, key })))
        for (const part of chunks(rows, 300)) yield* sql`INSERT INTO node_keys ${sql.insert(part)}`
      })

    /**
     * Takes stored rows' (by rowid) indexed terms out of the postings, as their content reads to the analyzer now;
     * not exact when a row's terms are not those it was indexed with (its lex_hash differs: the analyzer changed).
     */
    const removeStoredTerms = (rids: ReadonlyArray<number>, changes: TermChanges) =>
      Effect.gen(function* () {
        if (rids.length === 0) return
        const rows = yield* sql<NodeRow & { rid: number; lex_hash: string | null }>`SELECT rowid AS rid, lex_hash, ${rowColumns} FROM nodes
          WHERE rowid IN ${sql.in(rids)}`
        const nodes = yield* decodeRows(rows, null)
        for (const r of rows) {
          const { terms, columns } = indexColumns(nodes.get(r.id)!)
          if (columns.lex_hash !== r.lex_hash) changes.exact = false
          changes.remove(r.rid, terms)
        }
      })

    // Multi-row statements: one statement per chunk keeps a 100k-node import to seconds, not minutes.
    const writeNodes = (nodes: ReadonlyArray<MemoryNode>) => {
      const termChanges = new TermChanges()
      return Effect.forEach(
        chunks(nodes, 100),
        (chunk) =>
          Effect.gen(function* () {
            const indexed = chunk.map(indexColumns)
            const before = new Map(
              (yield* sql<{ id: string; lex_hash: string | null; rid: number; embedding: unknown; embed_dim: unknown; embed_model: unknown }>`
                SELECT n.id, n.lex_hash, n.rowid AS rid, v.embedding, v.embed_dim, v.embed_model FROM nodes n
                LEFT JOIN node_vectors v ON v.node_id = n.id WHERE n.id IN ${sql.in(chunk.map((n) => n.id))}`).map((r) => [r.id, r] as const)
            )
            const rows = chunk.map((n, i) => ({
              id: n.id,
              data: nodeRowData(n, rowModel),
              status: n.status,
              canonical_key: n.canonicalKey,
              ...indexed[i]!.columns
            }))
            // Terms change only with content or window start: reinforcement leaves the full-text index alone.
            const stale = chunk.flatMap((n, i) => (before.get(n.id)?.lex_hash === indexed[i]!.columns.lex_hash ? [] : [i]))
            const old = stale.flatMap((i) => {
              const r = before.get(chunk[i]!.id)
              return r === undefined ? [] : [r.rid]
            })
            // The terms the re-indexed rows had (read before the rows are overwritten), to take out of the postings.
            yield* removeStoredTerms(old, termChanges)
            yield* sql`INSERT INTO nodes ${sql.insert(rows)}
              ON CONFLICT (id) DO UPDATE SET data = excluded.data, status = excluded.status,
                canonical_key = excluded.canonical_key, window_start = excluded.window_start, valid_to = excluded.valid_to,
                scope = excluded.scope, access_count = excluded.access_count, lex_len = excluded.lex_len,
                lex_hash = excluded.lex_hash`
            if (stale.length > 0) {
              if (old.length > 0) yield* sql`DELETE FROM node_terms WHERE rowid IN ${sql.in(old)}`
              const rowids = new Map(
                (yield* sql<{ id: string; rid: number }>`SELECT id, rowid AS rid FROM nodes
                  WHERE id IN ${sql.in(stale.map((i) => chunk[i]!.id))}`).map((r) => [r.id, r.rid] as const)
              )
              const added = stale.map((i) => ({ rid: rowids.get(chunk[i]!.id)!, terms: indexed[i]!.terms }))
              yield* sql`INSERT INTO node_terms ${sql.insert(added.map((a) => ({ rowid: a.rid, terms: a.terms })))}`
              for (const a of added) termChanges.add(a.rid, a.terms)
            }
            // A vector row is written only when the vector changed: reinforcement rewrites a node but not its
            // embedding, and every write of node_vectors makes other processes reload every vector.
            const vectors = chunk.flatMap((n) => {
              if (n.embedding === null) return []
              const bytes = vectorBytes(n.embedding)
              const old = before.get(n.id)
              const same =
                old !== undefined && old.embed_dim === n.embedding.length && old.embed_model === n.embedModel &&
                old.embedding instanceof Uint8Array && bytes.equals(old.embedding)
              return same ? [] : [{ node_id: n.id, embedding: bytes, embed_dim: n.embedding.length, embed_model: n.embedModel }]
            })
            const without = chunk.filter((n) => n.embedding === null).map((n) => n.id)
            if (without.length > 0) yield* sql`DELETE FROM node_vectors WHERE node_id IN ${sql.in(without)}`
            if (vectors.length > 0) {
              yield* sql`INSERT INTO node_vectors ${sql.insert(vectors)}
                ON CONFLICT (node_id) DO UPDATE SET embedding = excluded.embedding, embed_dim = excluded.embed_dim,
                  embed_model = excluded.embed_model`
            }
            yield* writeKeys(chunk)
            yield* sql`DELETE FROM node_sources WHERE node_id IN ${sql.in(chunk.map((n) => n.id))}`
            const sources = chunk.flatMap(sourceRows)
            for (const part of chunks(sources, 300)) {
              yield* sql`INSERT OR IGNORE INTO node_sources ${sql.insert(part)}`
            }
          }),
        { discard: true }
      ).pipe(Effect.zipRight(Effect.suspend(() => termChanges.apply(sql))))
    }

    const deleteNodes = (ids: ReadonlyArray<string>) => {
      const termChanges = new TermChanges()
      return Effect.forEach(
        chunks(ids),
        (chunk) =>
          Effect.gen(function* () {
            yield* sql`DELETE FROM edges WHERE source IN ${sql.in(chunk)} OR target IN ${sql.in(chunk)}`
            yield* sql`DELETE FROM node_sources WHERE node_id IN ${sql.in(chunk)}`
            yield* sql`DELETE FROM node_vectors WHERE node_id IN ${sql.in(chunk)}`
            yield* sql`DELETE FROM node_keys WHERE node_id IN ${sql.in(chunk)}`
            const rids = (yield* sql<{ rid: number }>`SELECT rowid AS rid FROM nodes WHERE id IN ${sql.in(chunk)}`).map((r) => r.rid)
            yield* removeStoredTerms(rids, termChanges)
            yield* sql`DELETE FROM node_terms WHERE rowid IN (SELECT rowid FROM nodes WHERE id IN ${sql.in(chunk)})`
            yield* sql`DELETE FROM nodes WHERE id IN ${sql.in(chunk)}`
          }),
        { discard: true }
      ).pipe(Effect.zipRight(Effect.suspend(() => termChanges.apply(sql))))
    }

    // An edge is only kept when both ends exist (as in every backend).
    const writeEdges = (edges: ReadonlyArray<Edge>) =>
      Effect.forEach(
        chunks(edges, 200),
        (chunk) =>
          sql.unsafe(
            `INSERT INTO edges (source, target, type, weight, created_at)
            SELECT v.column1, v.column2, v.column3, v.column4, v.column5
            FROM (VALUES ${chunk.map(() => "(?, ?, ?, ?, ?)").join(", ")}) AS v
            WHERE EXISTS (SELECT 1 FROM nodes WHERE id = v.column1) AND EXISTS (SELECT 1 FROM nodes WHERE id = v.column2)
            ON CONFLICT (source, target, type) DO UPDATE SET weight = excluded.weight, created_at = excluded.created_at`,
            chunk.flatMap((e) => [e.source, e.target, e.type, e.weight, e.createdAt])
          ),
        { discard: true }
      )

    const writeChanges = (changes: GraphChanges) =>
      Effect.gen(function* () {
        if (changes.deleteNodes && changes.deleteNodes.length > 0) yield* deleteNodes(changes.deleteNodes)
        if (changes.upsertNodes && changes.upsertNodes.length > 0) yield* writeNodes(changes.upsertNodes)
        if (changes.addEdges && changes.addEdges.length > 0) yield* writeEdges(changes.addEdges)
      })

    // ---- reads ----

    /** Rows → nodes; `vectors` maps node id → its vector (null: load without vectors). */
    const decodeRows = (rows: ReadonlyArray<NodeRow>, vectors: ReadonlyMap<string, Float32Array | null> | null) =>
      Effect.try({
        try: () => {
          const nodes = new Map<string, MemoryNode>()
          for (const row of rows) {
            const decoded = decodeRowNode(withRowColumns(JSON.parse(row.data), row, rowModel), vectors?.get(row.id) ?? null)
            if (Either.isLeft(decoded)) throw corruptGraph(file, `row ${row.id}: ${decoded.left}`, snapshotsDir)
            nodes.set(row.id, decoded.right)
          }
          return nodes
        },
        catch: (e) => (e instanceof CorruptFile ? e : corruptGraph(file, "a node row is not valid JSON", snapshotsDir))
      })

    const readEdges = Effect.map(
      sql<{ source: string; target: string; type: Edge["type"]; weight: number; created_at: string }>`
        SELECT source, target, type, weight, created_at FROM edges ORDER BY rowid`,
      (rows) =>
        rows.map((r): Edge => ({ source: r.source, target: r.target, type: r.type, weight: r.weight, createdAt: r.created_at }))
    )

    // Two table scans joined in memory: cheaper than 100k index lookups.
    const readAll = (withEmbeddings: boolean) =>
      Effect.gen(function* () {
        const vectors = withEmbeddings
          ? vectorsById(yield* sql<VectorColumns & { node_id: string }>`SELECT node_id, embedding, embed_dim FROM node_vectors`)
          : null
        const rows = yield* sql<NodeRow>`SELECT ${rowColumns} FROM nodes ORDER BY rowid`
        const nodes = yield* decodeRows(rows, vectors)
        const edges = yield* readEdges
        return { nodes, edges } satisfies Graph
      })

    const dataVersion = Effect.map(sql<{ data_version: number }>`PRAGMA data_version`, (rows) => rows[0]?.data_version ?? 0)

    // The last graph read, reused while no other process has committed (a long-lived server reads it once).
    let cache: CacheState | null = null
    // Commits of this connection (PRAGMA data_version moves only for other connections' commits).
    let localWrites = 0

    /** The current graph; must run inside a transaction so the rows form one consistent state. */
    const currentGraph = (withEmbeddings: boolean) =>
      Effect.gen(function* () {
        const version = yield* dataVersion
        if (cache !== null && cache.dataVersion === version && (cache.withEmbeddings || !withEmbeddings)) {
          return cache
        }
        const graph = yield* readAll(withEmbeddings)
        cache = { graph, withEmbeddings, dataVersion: version }
        return cache
      })

    /** Runs a write in an immediate transaction and keeps the cache in step only if it commits. */
    const writeTransaction = <A, E, R>(body: Effect.Effect<readonly [A, GraphChanges], E, R>, base: () => CacheState | null) =>
      Effect.gen(function* () {
        let next: CacheState | null = null
        const a = yield* withImmediate(
          Effect.gen(function* () {
            const [a, asked] = yield* body
            const changes = asStored(asked)
            const start = base()
            cache = null
            if (!isEmptyChange(changes)) yield* writeChanges(changes)
            if (start !== null) {
              applyChanges(start.graph, changes)
              next = start
            }
            return a
          })
        )
        cache = next
        localWrites++
        return a
      })

    // Rows written before the store answered queries get their search columns and terms once.
    const indexExistingRows = Effect.gen(function* () {
      const [state] = yield* sql<{ value: string }>`SELECT value FROM meta WHERE key = 'search_index'`
      if (state?.value === "ready") return
      const rows = yield* sql<NodeRow & { rid: number }>`SELECT rowid AS rid, ${rowColumns} FROM nodes ORDER BY rowid`
      const nodes = yield* decodeRows(rows, null)
      for (const part of chunks(rows, 200)) {
        const done = part.map((r) => ({ rid: r.rid, ...indexColumns(nodes.get(r.id)!) }))
        yield* sql.unsafe(
          `UPDATE nodes SET window_start = v.column2, valid_to = v.column3, scope = v.column4, access_count = v.column5,
            lex_len = v.column6, lex_hash = v.column7
          FROM (VALUES ${done.map(() => "(?, ?, ?, ?, ?, ?, ?)").join(", ")}) AS v WHERE nodes.rowid = v.column1`,
          done.flatMap((d) => [d.rid, d.columns.window_start, d.columns.valid_to, d.columns.scope, d.columns.access_count, d.columns.lex_len, d.columns.lex_hash])
        )
        yield* sql`INSERT INTO node_terms ${sql.insert(done.map((d) => ({ rowid: d.rid, terms: d.terms })))}`
      }
      // Once at the end: per chunk, the common terms' blocks would be rewritten a thousand times.
      yield* rebuildTermPostings(sql)
      yield* sql`INSERT OR REPLACE INTO meta (key, value) VALUES ('search_index', 'ready')`
    })

    // Rows written before the store kept lookup keys get them once.
    const keyExistingRows = Effect.gen(function* () {
      const [state] = yield* sql<{ value: string }>`SELECT value FROM meta WHERE key = 'lookup_keys'`
      if (state?.value === "ready") return
      for (let after = 0; ; ) {
        const rows = yield* sql<NodeRow & { rid: number }>`SELECT rowid AS rid, ${rowColumns} FROM nodes WHERE rowid > ${after}
          ORDER BY rowid LIMIT 1000`
        if (rows.length === 0) break
        after = rows[rows.length - 1]!.rid
        for (const part of chunks([...(yield* decodeRows(rows, null)).values()], 100)) yield* writeKeys(part)
      }
      yield* sql`INSERT OR REPLACE INTO meta (key, value) VALUES ('lookup_keys', 'ready')`
    })

    // ---- open: migrations and the one-time import of a reference JSON graph ----

    // Checked with a plain read first: opening an up-to-date store must not wait for another process's
    // write transaction (a hook's query while a consolidation runs).
    const upToDate = yield* sql<{ m: number | null; done: string | null; search: string | null; keyed: string | null }>`SELECT
        (SELECT max(migration_id) FROM effect_sql_migrations) AS m,
        (SELECT value FROM meta WHERE key = 'json_import_done') AS done,
        (SELECT value FROM meta WHERE key = 'search_index') AS search,
        (SELECT value FROM meta WHERE key = 'lookup_keys') AS keyed`.pipe(
      Effect.map(
        ([row]) =>
          row !== undefined && row.m !== null && row.m >= latestGraphMigration && row.done !== null && row.search === "ready" &&
          row.keyed === "ready"
      ),
      Effect.orElseSucceed(() => false)
    )
    if (!upToDate) {
      yield* withImmediate(
        Effect.gen(function* () {
          yield* Migrator.make({})({ loader: graphMigrations }).pipe(Effect.provideService(SqlClient.SqlClient, sql))
          yield* readRowModel
          yield* indexExistingRows
          yield* keyExistingRows
          const done = yield* sql<{ value: string }>`SELECT value FROM meta WHERE key = 'json_import_done'`
          if (done.length > 0) return
          // An AWHM Lite SQLite graph moved aside (now, or by a run that stopped before this point).
          const backup = referenceBackupPath(file)
          const lite = fromReference ?? (fs.existsSync(backup) ? yield* readReferenceSqlite(backup, snapshotsDir) : null)
          if (lite !== null) {
            yield* writeNodes(Array.from(lite.nodes.values()))
            yield* writeEdges(lite.edges)
          }
          const importJson = lite === null ? options.importJson : null
          if (importJson != null && fs.existsSync(importJson)) {
            const [{ n }] = (yield* sql<{ n: number }>`SELECT count(*) AS n FROM nodes`) as [{ n: number }]
            if (n === 0) {
              const graph = yield* readJsonGraphFile(importJson, snapshotsDir)
              yield* writeNodes(Array.from(graph.nodes.values()))
              yield* writeEdges(graph.edges)
            }
          }
          yield* sql`INSERT OR REPLACE INTO meta (key, value) VALUES ('json_import_done', ${new Date().toISOString()})`
        })
      ).pipe(Effect.mapError(fail("open")))
    } else yield* readRowModel.pipe(Effect.mapError(fail("open")))

    const readTransaction = <A, E, R>(body: Effect.Effect<A, E, R>) => sql.withTransaction(body)

    // ---- candidate search ----

    const pending = new PendingReinforcement()
    const stampNow = Effect.map(dataVersion, (v) => `${v}:${localWrites}`)

    /** Nodes by id (vectors included unless `withEmbeddings` is false), with this process's pending reinforcement. */
    const nodesById = (ids: ReadonlyArray<string>, withEmbeddings = true) =>
      Effect.gen(function* () {
        const found = new Map<string, MemoryNode>()
        for (const chunk of chunks([...new Set(ids)])) {
          if (!withEmbeddings) {
            const rows = yield* sql<NodeRow>`SELECT ${nRowColumns} FROM nodes n WHERE n.id IN ${sql.in(chunk)}`
            for (const [id, n] of yield* decodeRows(rows, null)) found.set(id, n)
            continue
          }
          const rows = yield* sql<NodeRow & VectorColumns>`SELECT ${nRowColumns}, v.embedding, v.embed_dim FROM nodes n
            LEFT JOIN node_vectors v ON v.node_id = n.id WHERE n.id IN ${sql.in(chunk)}`
          for (const [id, n] of yield* decodeRows(rows, vectorsById(rows.map((r) => ({ ...r, node_id: r.id }))))) found.set(id, n)
        }
        return found
      })
    const inOrder = (ids: ReadonlyArray<string>, found: ReadonlyMap<string, MemoryNode>) =>
      ids.flatMap((id) => {
        const n = found.get(id)
        return n === undefined ? [] : [pending.overlay(n)]
      })

    // Each candidate's BM25 length, kept while lexical_stats' version (moved only by a length change, an insert or
    // a delete, migration 0007) stays: a warm process reads a document's length once.
    const lengths = new LengthCache()
    /** The length cache at this version of the lengths (`docs` of them). */
    const lengthsAt = (version: number, docs: number) =>
      Effect.gen(function* () {
        const held = lengths.version
        if (held !== null && held !== version) {
          const changed = held < version
            ? yield* sql<{ rid: number }>`SELECT rid FROM lexical_changes WHERE version > ${held} AND version <= ${version}`
            : []
          // Each move of the version logged one rowid, unless the log no longer reaches back to ours.
          if (changed.length === version - held) lengths.forget(changed.map((c) => c.rid), version)
          else lengths.reset(version)
        } else if (held === null) lengths.reset(version)
        if (lengths.wholeDue(docs)) {
          const [row] = yield* sql<{ pairs: string | null }>`SELECT group_concat(rowid || ',' || lex_len) AS pairs FROM nodes`
          lengths.fill(parseIntList(row?.pairs ?? null), true)
        }
        return lengths
      })

    const lexicalTopK = (q: LexicalQuery) =>
      Effect.gen(function* () {
        const terms = [...new Set(analyze(q.text))]
        if (terms.length === 0 || q.k <= 0) return []
        // Each term's postings, one rowid per occurrence, which also give its document frequency: read as the
        // term's compact blocks (graph/termPostings.ts), kept by the writers beside the FTS5 index.
        const df = new Map<string, number>()
        const live: Array<string> = []
        const postings: Array<Int32Array> = []
        for (const t of terms) {
          const docs = yield* readPostings(sql, t)
          if (docs.length === 0) continue
          live.push(t)
          df.set(t, documentCount(docs))
          postings.push(docs)
        }
        if (live.length === 0) return []
        const [stats] = yield* sql<{ docs: number; total: number; version: number }>`SELECT docs, total, version FROM lexical_stats WHERE id = 1`
        const n = stats?.docs ?? 0
        if (n === 0) return []
        const lens = yield* lengthsAt(stats!.version, n)
        const { k1, b } = q
        const avg = (stats?.total ?? 0) / n || 1
        const norm0 = k1 * (1 - b)
        const norm1 = (k1 * b) / avg
        const idf = live.map((t) => Math.log(1 + (n - df.get(t)! + 0.5) / (df.get(t)! + 0.5)))
        const { where, params } = filterSql(q.filter)
        const admittedOf = `SELECT n.rowid AS rid, n.id FROM json_each(?) j JOIN nodes n ON n.rowid = j.value WHERE ${where}`
        // A warm process holding every length: MaxScore (exactBm25.maxScoreTop) finds the best 2k without
        // visiting what only common terms match; the filter is asked of them best first. Exact while the
        // documents it admits score at least the floor, else the bound order below answers.
        if (lens.holdsAll) {
          const best = maxScoreTop(postings, idf, k1, norm0, norm1, (rid) => lens.get(rid), 2 * q.k)
          if (best !== null) {
            const top: Array<ScoredId> = []
            let exact = true
            for (let i = 0; i < best.hits.length && top.length < q.k; ) {
              const ask = best.hits.slice(i, i + q.k)
              i += ask.length
              const rows = yield* sql.unsafe<{ rid: number; id: string }>(admittedOf, [JSON.stringify(ask.map((a) => a.rid)), ...params])
              const idOf = new Map(rows.map((r) => [r.rid, r.id] as const))
              for (const a of ask) {
                const id = idOf.get(a.rid)
                if (id === undefined) continue
                if (a.score < best.floor) exact = false
                if (top.length < q.k && exact) top.push({ id, score: a.score })
              }
              if (!exact) break
            }
            if (exact && (top.length >= q.k || best.floor === -Infinity)) return top
          }
        }
        const matches = collectMatches(postings, idf, k1, norm0)
        // Documents in bound order, their lengths read in growing batches (only those this process has not read
        // since the lengths last changed), until the next bound is below the k-th best exact score: no document
        // left can enter. The filter (and the id) is asked only of the documents that would enter the top k.
        // The rowids go in as one JSON array (json_each), so the statement's text, and SQLite's prepared
        // statement, stay the same whatever the batch; (rowid, length) pairs come back as one list.
        const lengthsOf = `SELECT group_concat(n.rowid || ',' || n.lex_len) AS pairs FROM json_each(?) j JOIN nodes n ON n.rowid = j.value`
        const top: Array<{ readonly rid: number; readonly score: number }> = []
        const idOf = new Map<number, string>()
        const count = matches.rids.length
        const order = byBound(matches)
        const enters = (score: number, rid: number) => {
          if (top.length < q.k) return true
          const last = top[q.k - 1]!
          return last.score < score || (last.score === score && last.rid > rid)
        }
        for (let r = 0, batch = 128; r < count; batch = Math.min(2 * batch, 2048)) {
          const kth = top.length >= q.k ? top[q.k - 1]!.score : -Infinity
          if (matches.bound[order[r]!]! < kth) break
          // Only the documents whose bound still reaches the k-th best score so far (bounds descend).
          let end = Math.min(r + batch, count)
          for (let lo = r + 1; lo < end; ) {
            const mid = (lo + end) >> 1
            if (matches.bound[order[mid]!]! >= kth) lo = mid + 1
            else end = mid
          }
          const part = order.subarray(r, end)
          r += part.length
          // In rowid order: neighbouring rows share the table's pages.
          const unread = Array.from(part, (d) => matches.rids[d]!).filter((rid) => lens.get(rid) < 0).sort((x, y) => x - y)
          if (unread.length > 0) {
            const [row] = yield* sql.unsafe<{ pairs: string | null }>(lengthsOf, [JSON.stringify(unread)])
            lens.fill(parseIntList(row?.pairs ?? null), false)
          }
          const scored: Array<{ readonly rid: number; readonly score: number }> = []
          for (const d of part) {
            const rid = matches.rids[d]!
            const len = lens.get(rid)
            if (len < 0) continue
            const score = exactScore(matches, d, len, idf, k1, norm0, norm1)
            if (score > 0) scored.push({ rid, score })
          }
          scored.sort((x, y) => y.score - x.score || x.rid - y.rid)
          // Best first: the filter is asked of those that would enter, at most k at a time, until one would not.
          for (let i = 0; i < scored.length && enters(scored[i]!.score, scored[i]!.rid); ) {
            const ask: Array<{ readonly rid: number; readonly score: number }> = []
            while (i < scored.length && ask.length < q.k && enters(scored[i]!.score, scored[i]!.rid)) ask.push(scored[i++]!)
            const rows = yield* sql.unsafe<{ rid: number; id: string }>(admittedOf, [JSON.stringify(ask.map((a) => a.rid)), ...params])
            for (const row of rows) idOf.set(row.rid, row.id)
            for (const a of ask) {
              if (!idOf.has(a.rid) || !enters(a.score, a.rid)) continue
              let at = top.length
              while (at > 0 && (top[at - 1]!.score < a.score || (top[at - 1]!.score === a.score && top[at - 1]!.rid > a.rid))) at--
              top.splice(at, 0, a)
              if (top.length > q.k) top.pop()
            }
          }
        }
        return top.map(({ rid, score }): ScoredId => ({ id: idOf.get(rid)!, score }))
      })

    // Vectors live in memory between queries and in a saved image; a writer's change costs the rows it changed.
    const vectors = makeVectorSource(sql, options.vectorImage ?? null)
    /**
     * `saveImage` false inside a write (updatePart): the writer's own change would make the image stale at once.
     * The index stays open until the search ends, though releaseFiles (another query following a delete) comes
     * between its steps.
     */
    const vectorTopK = (q: VectorQuery, saveImage = true) =>
      Effect.flatMap(stampNow, (stamp) =>
        vectors.withVectors(q.modelId, stamp, saveImage, (index) => {
          if (index === null || index.dim !== q.vector.length) return Effect.succeed(null)
          if (q.k <= 0) return Effect.succeed([])
          const { where, params } = filterSql(q.filter)
          return filteredVectorTopK(index, q.vector, q.k, (ids) =>
            Effect.map(
              sql.unsafe<{ id: string }>(`SELECT n.id FROM nodes n WHERE n.id IN (${ids.map(() => "?").join(", ")}) AND ${where}`, [...ids, ...params]),
              (rows) => rows.map((r) => r.id)
            )
          )
        })
      )

    let p90Cache: { readonly stamp: string; readonly value: number } | null = null
    const accessP90 = Effect.gen(function* () {
      const stamp = yield* stampNow
      if (p90Cache !== null && p90Cache.stamp === stamp) return p90Cache.value
      const [stats] = yield* sql<{ docs: number }>`SELECT docs FROM lexical_stats WHERE id = 1`
      const n = stats?.docs ?? 0
      let value = 1
      if (n > 0) {
        // The ascending list's element floor(0.9 n), read from the top (a tenth of the index, not nine).
        const at = n - 1 - Math.min(Math.floor(0.9 * n), n - 1)
        const [row] = yield* sql<{ c: number }>`SELECT access_count AS c FROM nodes ORDER BY access_count DESC LIMIT 1 OFFSET ${at}`
        value = Math.max(1, row?.c ?? 1)
      }
      p90Cache = { stamp, value }
      return value
    })

    /** Rows (rowid, id) → their nodes in rowid order (the order load() gives). */
    const nodesInRowOrder = (rows: ReadonlyArray<{ readonly id: string; readonly rid: number }>) =>
      Effect.gen(function* () {
        const rid = new Map(rows.map((r) => [r.id, r.rid] as const))
        const ids = [...rid.keys()].sort((a, b) => rid.get(a)! - rid.get(b)!)
        return inOrder(ids, yield* nodesById(ids))
      })

    const nodesByKeys = (q: NodeKeyQuery) =>
      Effect.gen(function* () {
        type Row = { id: string; rid: number }
        const rows: Array<Row> = []
        for (const chunk of chunks([...new Set(q.ids)])) {
          rows.push(...(yield* sql<Row>`SELECT id, rowid AS rid FROM nodes WHERE id IN ${sql.in(chunk)}`))
        }
        for (const chunk of chunks([...new Set(q.lookupKeys)])) {
          rows.push(...(yield* sql<Row>`SELECT n.id, n.rowid AS rid FROM node_keys k JOIN nodes n ON n.id = k.node_id
            WHERE k.key IN ${sql.in(chunk)}`))
        }
        for (const chunk of chunks([...new Set(q.canonicalKeys)])) {
          rows.push(...(yield* sql<Row>`SELECT id, rowid AS rid FROM nodes WHERE canonical_key IN ${sql.in(chunk)}`))
        }
        // A family's keys are the range [family + ":", family + ";"): ";" follows ":".
        for (const family of new Set(q.keyFamilies)) {
          rows.push(...(yield* sql<Row>`SELECT id, rowid AS rid FROM nodes WHERE status = 'active'
            AND canonical_key >= ${family + ":"} AND canonical_key < ${family + ";"}`))
        }
        return yield* nodesInRowOrder(rows)
      })

    const entityForms = Effect.map(
      sql<{ key: string }>`SELECT k.key FROM node_keys k JOIN nodes n ON n.id = k.node_id
        WHERE k.key >= ${FORM} AND k.key < ${FORM_END} ORDER BY n.rowid, k.pos`,
      (rows) => firstForms(rows.map((r) => r.key))
    )

    const accessCounts = Effect.gen(function* () {
      const rows = yield* sql<{ count: number; nodes: number }>`SELECT access_count AS count, count(*) AS nodes FROM nodes
        GROUP BY access_count ORDER BY access_count`
      if (pending.size === 0) return rows
      return withPending(rows, [...(yield* nodesById([...pending.ids()])).values()], (n) => pending.overlay(n))
    })

    const flushReinforcement = Effect.suspend(() => {
      if (pending.size === 0) return Effect.void
      const taken = pending.take()
      // Reinforcement changes a node's access count, last access and strength only: its row's JSON and count
      // column, never its terms, lookup keys, search columns or vector (a full node write would recompute
      // all of them: ~0.1 s of cold code at the end of every query process).
      return withImmediate(
        Effect.gen(function* () {
          const fresh = yield* nodesById([...taken.keys()], false)
          const nodes = reinforced(taken, (id) => fresh.get(id))
          for (const n of nodes) {
            yield* sql`UPDATE nodes SET data = ${nodeRowData(n, rowModel)}, access_count = ${n.accessCount} WHERE id = ${n.id}`
          }
          return nodes
        })
      ).pipe(
        Effect.tap((nodes) =>
          Effect.sync(() => {
            const graph = cache?.graph
            for (const n of nodes) {
              const held = graph?.nodes.get(n.id)
              if (held !== undefined) graph!.nodes.set(n.id, { ...held, accessCount: n.accessCount, lastAccessed: n.lastAccessed, strength: n.strength })
            }
            localWrites++
          })
        ),
        Effect.tapError(() => Effect.sync(() => pending.restore(taken))),
        Effect.mapError(fail("save"))
      )
    })
    yield* flushPeriodically(flushReinforcement, options.reinforceFlushMs ?? REINFORCE_FLUSH_MS)

    const shape: GraphStoreShape = {
      backend: "sqlite",
      location: file,
      releaseFiles: () => vectors.release(),
      load: (opts) =>
        readTransaction(currentGraph(opts?.withEmbeddings !== false)).pipe(
          Effect.map((state) => pending.overlayGraph(state.graph)),
          Effect.mapError(fail("load"))
        ),
      getNodes: (ids, options) =>
        Effect.map(nodesById(ids, options?.withEmbeddings !== false), (found) => inOrder(ids, found)).pipe(Effect.mapError(fail("read"))),
      counts: Effect.gen(function* () {
        const [nodes] = yield* sql<{ n: number }>`SELECT count(*) AS n FROM nodes`
        const [edges] = yield* sql<{ n: number }>`SELECT count(*) AS n FROM edges`
        return { nodes: nodes?.n ?? 0, edges: edges?.n ?? 0 }
      }).pipe(readTransaction, Effect.mapError(fail("count"))),
      commit: (changes) =>
        isEmptyChange(changes)
          ? Effect.void
          : writeTransaction(Effect.succeed([undefined, changes] as const), () => cache).pipe(
              Effect.mapError(fail("save"))
            ),
      update: <A, E, R>(f: (graph: Graph) => Effect.Effect<readonly [A, GraphChanges], E, R>) => {
        let state: CacheState | null = null
        const body = Effect.gen(function* () {
          state = yield* currentGraph(true).pipe(Effect.mapError(fail("load")))
          return yield* f(copyGraph(state.graph))
        })
        return writeTransaction(body, () => state).pipe(
          Effect.mapError((e) => (e instanceof SqlError ? fail("save")(e) : e))
        )
      },
      // As commit: the cached graph takes the changes (a cache another process made stale is re-read all the same).
      updatePart: <A, E, R>(f: (reader: GraphReader) => Effect.Effect<readonly [A, GraphChanges], E, R>) =>
        writeTransaction(Effect.suspend(() => f(writerReader)), () => cache).pipe(
          Effect.mapError((e) => (e instanceof SqlError ? fail("save")(e) : e)),
          // A cache: failing to save it fails nothing.
          Effect.tap(() => Effect.flatMap(stampNow, vectors.saveAfterWrite).pipe(Effect.ignore))
        ),
      replaceAll: (graph) =>
        writeTransaction(
          Effect.gen(function* () {
            yield* sql`DELETE FROM edges`
            yield* sql`DELETE FROM node_sources`
            yield* sql`DELETE FROM node_vectors`
            yield* sql`DELETE FROM node_keys`
            yield* sql`INSERT INTO node_terms (node_terms) VALUES ('delete-all')`
            yield* sql`DELETE FROM term_postings`
            yield* sql`DELETE FROM nodes`
            return [undefined, { upsertNodes: Array.from(graph.nodes.values()), addEdges: graph.edges }] as const
          }),
          () => null
        ).pipe(Effect.mapError(fail("restore"))),
      lexicalTopK: (q) => lexicalTopK(q).pipe(Effect.mapError(fail("search"))),
      vectorTopK: (q) => vectorTopK(q).pipe(Effect.mapError(fail("search"))),
      neighbours: (ids) =>
        Effect.gen(function* () {
          const wanted = [...new Set(ids)]
          const found = new Map<number, Edge>()
          for (const chunk of chunks(wanted, 250)) {
            const rows = yield* sql<{ rid: number; source: string; target: string; type: Edge["type"]; weight: number; created_at: string }>`
              SELECT rowid AS rid, source, target, type, weight, created_at FROM edges
              WHERE source IN ${sql.in(chunk)} OR target IN ${sql.in(chunk)}`
            for (const r of rows) found.set(r.rid, { source: r.source, target: r.target, type: r.type, weight: r.weight, createdAt: r.created_at })
          }
          return [...found.entries()].sort((a, b) => a[0] - b[0]).map(([, e]) => e)
        }).pipe(Effect.mapError(fail("search"))),
      bySlot: (keys) =>
        Effect.gen(function* () {
          const rows: Array<{ id: string; rid: number }> = []
          for (const chunk of chunks([...new Set(keys)])) {
            rows.push(...(yield* sql<{ id: string; rid: number }>`SELECT id, rowid AS rid FROM nodes WHERE canonical_key IN ${sql.in(chunk)}`))
          }
          const ids = rows.sort((a, b) => a.rid - b.rid).map((r) => r.id)
          return inOrder(ids, yield* nodesById(ids))
        }).pipe(Effect.mapError(fail("search"))),
      fromMessages: (refs, options) =>
        Effect.gen(function* () {
          // Keyed only: the join keeps the other nodes' rows unread.
          const keyed = options?.keyed === true ? "JOIN nodes n ON n.id = s.node_id AND n.canonical_key IS NOT NULL" : ""
          // The refs go in as one JSON array (json_each), so the statement's text stays the same whatever their
          // number and SQLite's prepared statement is reused (a VALUES list of a new length each query is
          // parsed and planned anew).
          const rows = yield* sql.unsafe<{ session_id: string; message_index: number; node_id: string }>(
            `SELECT s.session_id, s.message_index, s.node_id FROM json_each(?) j
            JOIN node_sources s ON s.session_id = j.value ->> 0 AND s.message_index = j.value ->> 1 ${keyed}`,
            [JSON.stringify(refs.map((r) => [r.sessionId, r.messageIndex]))]
          )
          const byKey = new Map(refs.map((r) => [`${r.messageIndex}:${r.sessionId}`, r] as const))
          const pairs = rows.map((r) => ({ ref: byKey.get(`${r.message_index}:${r.session_id}`)!, id: r.node_id }))
          const found = yield* nodesById(pairs.map((p) => p.id), false)
          return pairs.flatMap(({ ref, id }) => {
            const n = found.get(id)
            return n === undefined ? [] : [{ ref, node: pending.overlay(n) }]
          })
        }).pipe(Effect.mapError(fail("search"))),
      nodesByKeys: (q) => nodesByKeys(q).pipe(Effect.mapError(fail("search"))),
      entityForms: entityForms.pipe(Effect.mapError(fail("search"))),
      accessCounts: accessCounts.pipe(Effect.mapError(fail("search"))),
      accessP90: accessP90.pipe(Effect.mapError(fail("search"))),
      changeStamp: stampNow.pipe(Effect.mapError(fail("search"))),
      reinforce: (items) => Effect.sync(() => pending.add(items)),
      flushReinforcement,
      scrub: Effect.gen(function* () {
        // FTS5 keeps a deleted node's terms in its segments until they are merged.
        yield* sql`INSERT INTO node_terms (node_terms) VALUES ('optimize')`
        yield* sql`VACUUM`
        // TRUNCATE leaves the -wal file empty, so no old page image (with deleted text) survives in it.
        for (let attempt = 0; attempt < 50; attempt++) {
          const [row] = yield* sql<{ busy: number }>`PRAGMA wal_checkpoint(TRUNCATE)`
          if (row === undefined || row.busy === 0) return
          yield* Effect.sleep(20)
        }
        return yield* new StorageError({
          operation: "scrub",
          path: file,
          message: `another process kept ${file} open; its write-ahead log could not be emptied (run the command again)`
        })
      }).pipe(Effect.mapError(fail("scrub")))
    }
    // What updatePart's function reads through: the store's own queries, with no image saved from inside the write.
    const writerReader: GraphReader = {
      ...shape,
      vectorTopK: (q) => vectorTopK(q, false).pipe(Effect.mapError(fail("search")))
    }
    return GraphStore.of(shape)
  })

/** The default graph store: `<data-dir>/graph/memory_graph.sqlite`, importing a JSON graph found there once. */
export const GraphStoreSqlite: Layer.Layer<GraphStore, StorageError | CorruptFile, AppConfig> = Layer.scoped(
  GraphStore,
  Effect.gen(function* () {
    const config = yield* AppConfig
    const paths = dataPaths(config.dataDir)
    return yield* makeGraphStoreSqlite({
      file: paths.graphSqlite,
      importJson: paths.graphJson,
      snapshotsDir: paths.snapshots,
      vectorImage: vectorImageFiles(config.dataDir)
    })
  })
)
