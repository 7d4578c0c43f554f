import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import { decodeVector, encodeVector, isCompact } from "../../../store/compactVector.js"

/**
 * Vectors become int8 with a per-vector scale (src/store/compactVector.ts): each float32 row is rewritten in
 * place, in the migration's transaction, a few hundred rows per statement. A row of any other length is left
 * as it was (it read as no vector before and still does).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (let after = 0; ; ) {
    const rows = yield* sql<{ rid: number; embedding: Uint8Array; embed_dim: number }>`SELECT rowid AS rid, embedding, embed_dim
      FROM node_vectors WHERE rowid > ${after} ORDER BY rowid LIMIT 500`
    if (rows.length === 0) return
    after = rows[rows.length - 1]!.rid
    const rewrite = rows.flatMap((r) => {
      if (!(r.embedding instanceof Uint8Array) || isCompact(r.embedding, r.embed_dim)) return []
      const v = decodeVector(r.embedding, r.embed_dim)
      return v === null ? [] : [[r.rid, encodeVector(v)] as const]
    })
    if (rewrite.length === 0) continue
    yield* sql.unsafe(
      `UPDATE node_vectors SET embedding = v.column2 FROM (VALUES ${rewrite.map(() => "(?, ?)").join(", ")}) AS v
      WHERE node_vectors.rowid = v.column1`,
      rewrite.flat()
    )
  }
})
