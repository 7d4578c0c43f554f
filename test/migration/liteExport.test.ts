import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { listFiles, makeTempDir, runAwhm } from "../support/cli.js"
import { readAsLite } from "../support/liteFixtures.js"

const ODD = "claude-1.2 x/y"

describe("the way back to AWHM Lite", () => {
  let tmp: ReturnType<typeof makeTempDir>
  beforeEach(() => (tmp = makeTempDir("awhm-lite-back-")))
  afterEach(() => tmp.cleanup())

  const awhm = async (args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
    const r = await runAwhm(args, { dataDir: path.join(tmp.dir, "data"), env })
    expect([r.code, r.stderr]).toEqual([0, ""])
    return r.stdout
  }
  const idOf = async (content: string, env: Record<string, string> = {}) =>
    (JSON.parse(await awhm(["nodes", "--json"], env)) as { nodes: Array<{ id: string; content: string }> }).nodes.find((n) => n.content === content)!.id

  /** Two sessions, one under an odd id; consolidated, one more message pending, one message deleted (a gap in awhm's indices). */
  const seed = async (env: Record<string, string> = {}) => {
    for (const text of ["My preferred editor is Vim", "My token is alpha-123-secret", "The staging host is alpha.internal"]) {
      await awhm(["log", "--session", ODD, "--role", "user", text], env)
    }
    await awhm(["log", "--session", "s2", "--role", "user", "My city is Lisbon"], env)
    await awhm(["consolidate"], env)
    await awhm(["log", "--session", "s2", "--role", "user", "I work at Initech"], env)
    await awhm(["delete", await idOf("My token is alpha-123-secret", env)], env)
  }

  it("awhm export --format awhm-lite DIR writes a data dir the reference's loaders read, indices by line position", async () => {
    await seed({ AWHM_STORAGE_BACKEND: "sqlite" })
    const out = path.join(tmp.dir, "lite")
    const exported = JSON.parse(await awhm(["export", "--format", "awhm-lite", out, "--json"])) as Record<string, unknown>
    expect(exported).toEqual({
      dir: out,
      format: "awhm-lite",
      files: ["graph/memory_graph.json", "logs/claude-1.2%20x%2Fy.jsonl", "logs/s2.jsonl", "meta/consolidated_sessions.json", "wal/claude-1.2_x_y.wal", "wal/s2.wal"]
    })
    expect(listFiles(out)).toEqual([...(exported.files as Array<string>), "meta/deletion_ledger.jsonl", "meta/deletion_tombstones.jsonl"].sort())

    const lite = await readAsLite(out)
    expect(lite.logs).toEqual({
      [ODD]: [
        ["user", "My preferred editor is Vim"],
        ["user", "The staging host is alpha.internal"]
      ],
      s2: [
        ["user", "My city is Lisbon"],
        ["user", "I work at Initech"]
      ]
    })
    // Every node's source ref names the line it came from; awhm's index 2 is the reference's line 1.
    const bySource = Object.values(lite.nodes).map((n) => [n.content, n.refs, n.refs.map(([s, i]) => lite.logs[s]![i]![1])])
    expect(bySource.sort()).toEqual([
      ["GPE: Lisbon", [["s2", 0]], ["My city is Lisbon"]],
      ["My city is Lisbon", [["s2", 0]], ["My city is Lisbon"]],
      ["My preferred editor is Vim", [[ODD, 0]], ["My preferred editor is Vim"]],
      ["The staging host is alpha.internal", [[ODD, 1]], ["The staging host is alpha.internal"]]
    ])
    // Consolidated up to the last line of the odd session and the first of s2: "I work at Initech" is pending.
    expect(lite.progress).toEqual({ [ODD]: 1, s2: 0 })
    for (const [sessionId, entries] of Object.entries(lite.wal)) {
      for (const [, content, at] of entries) expect(lite.logs[sessionId]![at]![1]).toBe(content)
    }
    expect(lite.wal.s2!.map((e) => e[1])).toEqual(["My city is Lisbon", "I work at Initech"])
    expect(JSON.stringify(lite)).not.toContain("alpha-123-secret")
  })

  it("AWHM_STORAGE_BACKEND=json keeps the data dir itself in the reference's format", async () => {
    const env = { AWHM_STORAGE_BACKEND: "json" }
    await seed(env)
    const file = path.join(tmp.dir, "data", "graph", "memory_graph.json")
    expect(Object.keys(JSON.parse(fs.readFileSync(file, "utf8")) as object)).toEqual(["version", "nodes", "edges"])
    const lite = await readAsLite(path.join(tmp.dir, "data"))
    expect(Object.values(lite.nodes).map((n) => [n.content, n.status]).sort()).toEqual([
      ["GPE: Lisbon", "active"],
      ["My city is Lisbon", "active"],
      ["My preferred editor is Vim", "active"],
      ["The staging host is alpha.internal", "active"]
    ])
    expect(lite.logs.s2).toEqual([
      ["user", "My city is Lisbon"],
      ["user", "I work at Initech"]
    ])
  })

  it("a bad format, a folder already in use and one that cannot be made: one line each, distinct exit codes, nothing written", async () => {
    await awhm(["log", "--session", "s2", "--role", "user", "My city is Lisbon"])
    const run = (args: ReadonlyArray<string>) => runAwhm(args, { dataDir: path.join(tmp.dir, "data") })
    const fresh = path.join(tmp.dir, "fresh")
    const badFormat = await run(["export", "--format", "json", fresh])
    expect([badFormat.code, badFormat.stderr]).toEqual([2, 'awhm: unknown export format "json" (known: awhm-lite)\n'])
    expect(fs.existsSync(fresh)).toBe(false)

    const used = path.join(tmp.dir, "used")
    fs.mkdirSync(used)
    fs.writeFileSync(path.join(used, "notes.txt"), "mine")
    const notEmpty = await run(["export", "--format", "awhm-lite", used])
    expect([notEmpty.code, notEmpty.stderr]).toEqual([1, `awhm: ${used} already exists and is not an empty folder: export into a new or empty one\n`])
    expect(listFiles(used)).toEqual(["notes.txt"])

    const blocked = path.join(tmp.dir, "a-file", "lite")
    fs.writeFileSync(path.join(tmp.dir, "a-file"), "")
    const unwritable = await run(["export", "--format", "awhm-lite", blocked])
    expect([unwritable.code, unwritable.stderr]).toEqual([3, `awhm: cannot write ${blocked} (ENOTDIR): choose a folder you can write\n`])

    // An empty folder is fine, and nothing of the failed attempts was left beside the targets.
    const empty = path.join(tmp.dir, "empty")
    fs.mkdirSync(empty)
    expect((await run(["export", "--format", "awhm-lite", empty])).code).toBe(0)
    expect(fs.readdirSync(tmp.dir).sort()).toEqual(["a-file", "data", "empty", "used"])
  })
})
