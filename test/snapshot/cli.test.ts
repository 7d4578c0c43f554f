import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { makeNode } from "../../src/domain/Node.js"
import { listFiles, makeTempDir, runAwhm } from "../support/cli.js"
import { graphOf, seedGraph } from "../support/graphSeed.js"

const at = "2026-03-01T10:00:00.000Z"
const node = (id: string) => makeNode({ id, type: "semantic", content: `memory ${id}`, createdAt: at })
const ids = async (dataDir: string) =>
  (JSON.parse((await runAwhm(["nodes", "--json"], { dataDir })).stdout) as { nodes: Array<{ id: string }> }).nodes.map((n) => n.id)

describe("awhm snapshot", () => {
  it("create, list and restore print the contract's JSON; restore is undoable", async () => {
    const { dir, cleanup } = makeTempDir()
    try {
      await seedGraph(dir, graphOf([node("a"), node("b")]))
      const created = await runAwhm(["snapshot", "create", "--json"], { dataDir: dir })
      expect([created.code, created.stderr]).toEqual([0, ""])
      const { path: snap } = JSON.parse(created.stdout) as { path: string }
      expect(fs.existsSync(snap)).toBe(true)

      const listed = await runAwhm(["snapshot", "list", "--json"], { dataDir: dir })
      expect(JSON.parse(listed.stdout)).toEqual({ snapshots: [{ path: snap, createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) }] })

      await seedGraph(dir, graphOf([node("c")]))
      const restored = await runAwhm(["snapshot", "restore", "--path", snap, "--json"], { dataDir: dir })
      expect([restored.code, restored.stderr]).toEqual([0, ""])
      const out = JSON.parse(restored.stdout) as { restored: string; backup: string }
      expect(out.restored).toBe(snap)
      expect(await ids(dir)).toEqual(["a", "b"])

      const undo = await runAwhm(["snapshot", "restore", "--path", out.backup], { dataDir: dir })
      expect(undo.code).toBe(0)
      expect(undo.stdout).toContain(`restored ${out.backup}\nthe state before is in `)
      expect(await ids(dir)).toEqual(["c"])
    } finally {
      cleanup()
    }
  })

  it("restore without --path exits 2; a missing or damaged snapshot exits 1; one line each", async () => {
    const { dir, cleanup } = makeTempDir()
    try {
      const noPath = await runAwhm(["snapshot", "restore", "--json"], { dataDir: dir })
      expect(noPath).toEqual({ code: 2, stdout: "", stderr: "awhm: snapshot restore needs --path FILE (see `awhm snapshot list`)\n" })
      const missing = path.join(dir, "missing.json")
      const notFound = await runAwhm(["snapshot", "restore", "--path", missing], { dataDir: dir })
      expect(notFound).toEqual({ code: 1, stdout: "", stderr: `awhm: snapshot ${missing} not found\n` })
      const damaged = path.join(dir, "damaged.json")
      fs.writeFileSync(damaged, "{\"version\":\"2.0\",\"gra")
      const corrupt = await runAwhm(["snapshot", "restore", "--path", damaged], { dataDir: dir })
      expect(corrupt).toEqual({ code: 1, stdout: "", stderr: `awhm: snapshot ${damaged} is damaged (not valid JSON, maybe truncated)\n` })
    } finally {
      cleanup()
    }
  })

  it("restoring over a damaged graph moves the damaged file aside (kept) and restores", async () => {
    const { dir, cleanup } = makeTempDir()
    try {
      await seedGraph(dir, graphOf([node("a")]))
      const { path: snap } = JSON.parse((await runAwhm(["snapshot", "create", "--json"], { dataDir: dir })).stdout) as { path: string }
      const graphFile = path.join(dir, "graph", "memory_graph.sqlite")
      fs.writeFileSync(graphFile, "overwritten with garbage ".repeat(100))
      expect((await runAwhm(["nodes"], { dataDir: dir })).code).toBe(1)

      const r = await runAwhm(["snapshot", "restore", "--path", snap, "--json"], { dataDir: dir })
      expect(r.code).toBe(0)
      expect(JSON.parse(r.stdout)).toEqual({ restored: snap, backup: null })
      const aside = listFiles(path.join(dir, "graph")).find((f) => f.startsWith("memory_graph.sqlite.damaged-"))!
      expect(r.stderr).toBe(`awhm: the damaged graph was moved to ${path.join(dir, "graph", aside)}\n`)
      expect(fs.readFileSync(path.join(dir, "graph", aside), "utf8")).toBe("overwritten with garbage ".repeat(100))
      expect(await ids(dir)).toEqual(["a"])
    } finally {
      cleanup()
    }
  })
})
