import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeGraphStorePostgres } from "../../src/layers/GraphStorePostgres.js"
import { compactNode, fullNode } from "../support/graphFixtures.js"
import { freshNamespace, openTestDatabase } from "../support/postgres.js"
import { graphStoreContract } from "./contract.js"

// Each temp dir is one namespace of the shared test database: opening the same dir again opens the same graph.
graphStoreContract(
  "postgres",
  (dir) => Effect.flatMap(openTestDatabase("awhm_owner", `test:${path.basename(dir).replace(/[^A-Za-z0-9._-]/g, "")}`), (db) => makeGraphStorePostgres(db)),
  { persistent: true, compactVectors: true }
)

describe("GraphStorePostgres vectors", () => {
  it.scopedLive("rows keep vectors compact (int8 with a scale); a float32 row an older version wrote reads as it was", () =>
    Effect.gen(function* () {
      const ns = freshNamespace()
      const db = yield* openTestDatabase("awhm_owner", ns)
      yield* (yield* makeGraphStorePostgres(db)).commit({ upsertNodes: [fullNode("a"), fullNode("b")] })
      const lengths = yield* db.sql<{ id: string; n: number }>`SELECT id, octet_length(embedding) AS n FROM awhm.nodes
        WHERE namespace = ${ns} ORDER BY seq`
      expect(lengths).toEqual([{ id: "a", n: 8 }, { id: "b", n: 8 }])
      const v = fullNode("b").embedding!
      yield* db.sql`UPDATE awhm.nodes SET embedding = ${Buffer.from(v.buffer, v.byteOffset, v.byteLength)} WHERE namespace = ${ns} AND id = 'b'`
      const graph = yield* (yield* makeGraphStorePostgres(yield* openTestDatabase("awhm_owner", ns))).load()
      expect(Array.from(graph.nodes.get("b")?.embedding ?? [])).toEqual([0.25, -0.5, 0.125, Math.fround(1 / 3)])
      expect(graph.nodes.get("a")).toEqual(compactNode(fullNode("a")))
    })
  )
})
