import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { makeNode } from "../../src/domain/Node.js"
import { makeTempDir, runAwhm } from "../support/cli.js"
import { graphOf, seedGraph } from "../support/graphSeed.js"

const at = "2026-03-01T10:00:00.000Z"
const nodes = [
  makeNode({
    id: "n1",
    type: "semantic",
    content: "My city is Paris",
    createdAt: at,
    canonicalKey: "fact:my city",
    status: "superseded",
    validTo: "2026-03-02T10:00:00.000Z",
    sourceSessions: ["s1"],
    sourceRefs: [{ sessionId: "s1", messageIndex: 0 }],
    embedding: Float32Array.from([1, 0])
  }),
  makeNode({
    id: "n2",
    type: "semantic",
    content: "Actually, my city is\nNew York",
    createdAt: "2026-03-02T10:00:00.000Z",
    canonicalKey: "fact:my city",
    supersedes: ["n1"],
    confidence: 0.9,
    accessCount: 3,
    sourceSessions: ["s2"],
    sourceRefs: [{ sessionId: "s2", messageIndex: 4 }]
  }),
  makeNode({ id: "n3", type: "semantic", content: "PERSON: Alice", createdAt: at, entityType: "PERSON", aliases: ["Alice Smith"] })
]

describe("awhm nodes", () => {
  const temp = makeTempDir()
  beforeAll(() => seedGraph(temp.dir, graphOf(nodes)))
  afterAll(temp.cleanup)

  it("--json prints every node in the contract's shape, oldest first", async () => {
    const r = await runAwhm(["nodes", "--json"], { dataDir: temp.dir })
    expect([r.code, r.stderr]).toEqual([0, ""])
    expect(JSON.parse(r.stdout)).toEqual({
      nodes: [
        {
          id: "n1",
          type: "semantic",
          content: "My city is Paris",
          status: "superseded",
          canonicalKey: "fact:my city",
          supersedes: [],
          validFrom: at,
          validTo: "2026-03-02T10:00:00.000Z",
          confidence: 0.6,
          accessCount: 1,
          sourceSessions: ["s1"],
          sourceRefs: [{ sessionId: "s1", messageIndex: 0 }],
          entityType: null,
          aliases: [],
          createdAt: at
        },
        expect.objectContaining({ id: "n2", status: "active", supersedes: ["n1"], confidence: 0.9, accessCount: 3 }),
        expect.objectContaining({ id: "n3", entityType: "PERSON", aliases: ["Alice Smith"], canonicalKey: null })
      ]
    })
  })

  it("filters by status and canonical key, and --limit counts the matches", async () => {
    const ids = async (args: Array<string>) =>
      (JSON.parse((await runAwhm(["nodes", "--json", ...args], { dataDir: temp.dir })).stdout) as { nodes: Array<{ id: string }> }).nodes.map((n) => n.id)
    expect(await ids(["--status", "active"])).toEqual(["n2", "n3"])
    expect(await ids(["--key", "fact:my city"])).toEqual(["n1", "n2"])
    expect(await ids(["--key", "fact:my city", "--status", "active"])).toEqual(["n2"])
    expect(await ids(["--status", "active", "--limit", "1"])).toEqual(["n2"])
  })

  it("prints one line per node for people, and rejects a bad status with exit 2", async () => {
    const r = await runAwhm(["nodes", "--key", "fact:my city"], { dataDir: temp.dir })
    expect(r.stdout).toBe(
      [
        "n1  superseded semantic   fact:my city  My city is Paris",
        "n2  active     semantic   fact:my city  Actually, my city is New York",
        "2 nodes",
        ""
      ].join("\n")
    )
    const bad = await runAwhm(["nodes", "--status", "gone"], { dataDir: temp.dir })
    expect(bad.code).toBe(2)
    expect(bad.stdout).toBe("")
  })

  it("a damaged graph file is one line on stderr naming it and the fix, exit 1", async () => {
    const broken = makeTempDir()
    try {
      fs.mkdirSync(path.join(broken.dir, "graph"))
      fs.writeFileSync(path.join(broken.dir, "graph", "memory_graph.sqlite"), "garbage, not a database".repeat(50))
      const r = await runAwhm(["nodes", "--json"], { dataDir: broken.dir })
      expect(r.code).toBe(1)
      expect(r.stdout).toBe("")
      expect(r.stderr).toBe(
        `awhm: the memory graph ${path.join(broken.dir, "graph", "memory_graph.sqlite")} is damaged (not a SQLite database); restore a snapshot with \`awhm snapshot restore --path FILE\`, or move the file away to start an empty graph\n`
      )
    } finally {
      broken.cleanup()
    }
  })
})
