import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { makeTempDir, runAwhm } from "../support/cli.js"
import { liteNode, writeLiteSqlite } from "../support/liteFixtures.js"

const sha = (file: string) => createHash("sha256").update(fs.readFileSync(file)).digest("hex")

describe("an AWHM Lite SQLite data dir", () => {
  let tmp: ReturnType<typeof makeTempDir>
  beforeEach(() => (tmp = makeTempDir("awhm-lite-")))
  afterEach(() => tmp.cleanup())

  const seed = () =>
    writeLiteSqlite(
      tmp.dir,
      [
        { ...liteNode("n1", "My preferred language is Python", { canonical_key: "fact:my preferred language", status: "superseded", valid_to: "2026-03-02T09:00:00+00:00" }), embedding: [0.5, -0.25] },
        { ...liteNode("n2", "Actually, my preferred language is Rust", { canonical_key: "fact:my preferred language", supersedes: ["n1"], valid_from: "2026-03-02T09:00:00+00:00", source_sessions: ["s2"], source_refs: [{ session_id: "s2", message_index: 0 }] }), embedding: [0.25, 0.5] },
        liteNode("n3", "Priya Natarajan", { entity_type: "PERSON", aliases: ["Priya"] })
      ],
      [{ source: "n2", target: "n1", type: "temporal", weight: 1.0, created_at: "2026-03-02T09:00:00+00:00" }]
    )

  for (const backend of ["sqlite", "json"] as const) {
    it(`opens with storage_backend ${backend}: nodes, keys, statuses, windows and edges carry over`, async () => {
      const file = seed()
      const before = sha(file)
      const env = { AWHM_STORAGE_BACKEND: backend }
      const status = await runAwhm(["status", "--json"], { dataDir: tmp.dir, env })
      expect(status.stderr).toBe("")
      expect(status.code).toBe(0)
      expect(JSON.parse(status.stdout)).toMatchObject({ nodes: 3, edges: 1, storageBackend: backend })
      const nodes = (JSON.parse((await runAwhm(["nodes", "--json"], { dataDir: tmp.dir, env })).stdout) as { nodes: Array<Record<string, unknown>> }).nodes
      expect(nodes.map((n) => [n.id, n.status, n.canonicalKey, n.validFrom, n.validTo, n.supersedes])).toEqual([
        ["n1", "superseded", "fact:my preferred language", "2026-03-01T10:00:00.000Z", "2026-03-02T09:00:00.000Z", []],
        ["n2", "active", "fact:my preferred language", "2026-03-02T09:00:00.000Z", null, ["n1"]],
        ["n3", "active", null, "2026-03-01T10:00:00.000Z", null, []]
      ])
      // The reference's file was not changed: moved aside byte for byte, never switched to WAL.
      expect(sha(`${file}.awhm-lite`)).toBe(before)
      expect(fs.existsSync(`${file}.awhm-lite-wal`)).toBe(false)
      const q = await runAwhm(["query", "preferred language", "-k", "1", "--json"], { dataDir: tmp.dir, env: { ...env, AWHM_EMBEDDER: "mock" } })
      expect((JSON.parse(q.stdout) as { results: Array<{ content: string }> }).results[0]?.content).toBe("Actually, my preferred language is Rust")
    })
  }

  it("a reference file it cannot read is refused in one line and left exactly as it was", async () => {
    const file = writeLiteSqlite(tmp.dir, [{ ...liteNode("bad", "x"), raw_data: "{not json" }])
    const before = sha(file)
    const r = await runAwhm(["status"], { dataDir: tmp.dir })
    expect(r.code).toBe(1)
    expect(r.stderr.split("\n").filter((l) => l !== "")).toHaveLength(1)
    expect(r.stderr).toContain(`${file}`)
    expect(sha(file)).toBe(before)
    expect(fs.readdirSync(path.dirname(file)).sort()).toEqual(["memory_graph.sqlite"])
  })
})
