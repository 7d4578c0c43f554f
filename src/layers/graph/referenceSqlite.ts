import * as fs from "node:fs"
import * as path from "node:path"
import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import { Effect, Either } from "effect"
import { CorruptFile, diskFull, errorCode, StorageError } from "../../domain/errors.js"
import type { Graph } from "../../domain/Node.js"
import { noSpaceLeft } from "../../store/diskSpace.js"
import { decodeGraph } from "../../store/graphSerialization.js"
import { corruptGraph } from "./corrupt.js"

// AWHM Lite's SQLite graph: nodes(id, data JSON without the embedding, embedding float32 BLOB, embed_dim),
// edges(source, target, type, weight, created_at), meta(key, value); no migration table of ours.

/** Where a converted AWHM Lite file is kept, unchanged, after its graph moved into awhm's schema. */
export const referenceBackupPath = (file: string) => `${file}.awhm-lite`

/**
 * The graph of `file` when it is AWHM Lite's SQLite graph, read read-only (no journal-mode switch, no write
 * of any kind). Anything else (no file, an empty file, awhm's own schema): null.
 */
export const readReferenceSqlite = (file: string, snapshotsDir: string): Effect.Effect<Graph | null, StorageError | CorruptFile> => {
  if (!fs.existsSync(file) || fs.statSync(file).size === 0) return Effect.succeed(null)
  return Effect.gen(function* () {
    const sql = yield* SqliteClient.make({ filename: file, readonly: true, disableWAL: true }).pipe(Effect.provide(Reactivity.layer))
    // Not a readable SQLite file at all: not for this reader to judge (the store reports the damage).
    const names = yield* Effect.option(sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table'`)
    if (names._tag === "None") return null
    const tables = new Set(names.value.map((r) => r.name))
    if (tables.has("effect_sql_migrations") || !tables.has("nodes")) return null
    const columns = new Set((yield* sql<{ name: string }>`SELECT name FROM pragma_table_info('nodes')`).map((r) => r.name))
    if (!columns.has("data") || !columns.has("embed_dim")) return null
    const nodes: Record<string, unknown> = {}
    for (const row of yield* sql<{ id: string; data: string; embedding: Uint8Array | null; embed_dim: number }>`SELECT id, data, embedding, embed_dim FROM nodes`) {
      let data: Record<string, unknown>
      try {
        data = JSON.parse(row.data) as Record<string, unknown>
      } catch {
        return yield* Effect.fail(corruptGraph(file, `node ${row.id.slice(0, 64)} of the AWHM Lite graph is not valid JSON`, snapshotsDir))
      }
      const blob = row.embedding
      const embedding =
        blob !== null && row.embed_dim > 0 ? Array.from(new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + row.embed_dim * 4))) : []
      nodes[row.id] = { ...data, id: row.id, embedding }
    }
    const edges = tables.has("edges") ? yield* sql`SELECT source, target, type, weight, created_at FROM edges` : []
    const decoded = decodeGraph({ nodes, edges })
    if (Either.isLeft(decoded)) return yield* Effect.fail(corruptGraph(file, decoded.left, snapshotsDir))
    return decoded.right
  }).pipe(
    Effect.catchAllDefect(() => Effect.succeed(null)),
    Effect.scoped,
    Effect.mapError((e) =>
      e instanceof CorruptFile || e instanceof StorageError
        ? e
        : /^SQLITE_(FULL|IOERR|CANTOPEN)/.test(errorCode(e) ?? "") && noSpaceLeft(path.dirname(file))
          ? diskFull("open", file)
          : new StorageError({ operation: "import", path: file, message: `cannot read the AWHM Lite graph ${file}: ${e.message.split("\n")[0]}` })
    )
  )
}

/**
 * When `file` is AWHM Lite's SQLite graph: reads it whole first (so a file that cannot be read is left
 * exactly as it was), then moves it aside to `<file>.awhm-lite` and returns its graph, which the store
 * writes into a new awhm file at `file`. Otherwise null, and nothing is touched.
 */
export const takeReferenceSqlite = (file: string, snapshotsDir: string): Effect.Effect<Graph | null, StorageError | CorruptFile> =>
  Effect.tap(readReferenceSqlite(file, snapshotsDir), (graph) =>
    graph === null
      ? Effect.void
      : Effect.try({
          // Moved, never rewritten: the reference's own file stays as it was, beside the new one.
          try: () => fs.renameSync(file, referenceBackupPath(file)),
          catch: (e) => new StorageError({ operation: "import", path: file, message: `cannot move ${file} aside: ${(e as NodeJS.ErrnoException).code ?? String(e)}` })
        })
  )
