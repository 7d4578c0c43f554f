import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { makeNode } from "../../src/domain/Node.js"
import { listFiles, makeTempDir, runAwhm } from "../support/cli.js"
import { graphOf, seedGraph } from "../support/graphSeed.js"

const SECRET = "alpha-123-secret"

describe("awhm delete", () => {
  for (const backend of ["sqlite", "json"] as const) {
    it(`${backend}: deletes the node and every trace of its text; the result is the DeletionResult in camelCase`, async () => {
      const { dir, cleanup } = makeTempDir()
      const env = { AWHM_STORAGE_BACKEND: backend }
      try {
        for (const text of ["My name is Alice", `Actually, my token is ${SECRET}`]) {
          const r = await runAwhm(["log", "--session", "s1", "--role", "user", "--timestamp", "2026-03-01T10:00:00Z", text], { dataDir: dir, env })
          expect(r.code).toBe(0)
        }
        const ref = (i: number) => ({ sourceSessions: ["s1"], sourceRefs: [{ sessionId: "s1", messageIndex: i }] })
        await seedGraph(
          dir,
          graphOf([
            makeNode({ id: "T", type: "semantic", content: `Actually, my token is ${SECRET}`, createdAt: "2026-03-01T10:00:00.000Z", ...ref(1) }),
            makeNode({ id: "S", type: "semantic", content: `my token is ${SECRET}`, createdAt: "2026-03-01T10:00:00.000Z", ...ref(1) }),
            makeNode({ id: "O", type: "semantic", content: "My name is Alice", createdAt: "2026-03-01T10:00:00.000Z", ...ref(0) })
          ]),
          backend
        )
        expect((await runAwhm(["snapshot", "create"], { dataDir: dir, env })).code).toBe(0)

        const r = await runAwhm(["delete", "T", "--json"], { dataDir: dir, env })
        expect([r.code, r.stderr]).toEqual([0, ""])
        expect(JSON.parse(r.stdout)).toEqual({
          nodeDeleted: true,
          edgesRemoved: 0,
          logEntriesRemoved: 1,
          bufferEntriesRemoved: 2,
          affectedSessions: ["s1"],
          matchStrategy: "source_refs",
          exactMatchesRemoved: 0,
          snapshotsTouched: 1,
          tombstoneId: expect.any(String),
          ledgerRecordId: expect.any(String),
          siblingsRemoved: ["S"]
        })
        const holding = listFiles(dir).filter((f) => fs.readFileSync(path.join(dir, f)).includes(Buffer.from(SECRET)))
        expect(holding).toEqual([])

        const again = await runAwhm(["delete", "T"], { dataDir: dir, env })
        expect(again).toEqual({ code: 1, stdout: "", stderr: "awhm: node T not found\n" })
      } finally {
        cleanup()
      }
    })
  }

  it("--keep-siblings keeps the sibling and says so in the human output", async () => {
    const { dir, cleanup } = makeTempDir()
    try {
      const ref = { sourceSessions: ["s1"], sourceRefs: [{ sessionId: "s1", messageIndex: 0 }] }
      await seedGraph(
        dir,
        graphOf([
          makeNode({ id: "T", type: "semantic", content: "Actually, the port is 8080", createdAt: "2026-03-01T10:00:00.000Z", ...ref }),
          makeNode({ id: "S", type: "semantic", content: "the port is 8080", createdAt: "2026-03-01T10:00:00.000Z", ...ref })
        ])
      )
      const r = await runAwhm(["delete", "--keep-siblings", "T"], { dataDir: dir })
      expect(r.code).toBe(0)
      expect(r.stdout).toContain("deleted node: yes; edges removed: 0\nsibling nodes removed: none\n")
      const left = JSON.parse((await runAwhm(["nodes", "--json"], { dataDir: dir })).stdout) as { nodes: Array<{ id: string }> }
      expect(left.nodes.map((n) => n.id)).toEqual(["S"])
    } finally {
      cleanup()
    }
  })
})
