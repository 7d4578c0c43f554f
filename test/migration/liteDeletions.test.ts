import { createHmac } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { listFiles, makeTempDir, runAwhm } from "../support/cli.js"
import {
  liteBufferEntry,
  liteLogLine,
  liteNode,
  liteTombstone,
  writeLiteJsonGraph,
  writeLiteSnapshot,
  writeLiteSqlite,
  writeLiteWal
} from "../support/liteFixtures.js"

const SECRET = "My token is alpha-123-secret"
// Longer than the 64 characters the reference kept: its copies are found by the kept prefix.
const LONG = "The recovery phrase for the vault is orbit lantern maple quartz, keep it between us please"
const KEPT = "My preferred editor is Vim"
const AT = "2026-03-01T10:00:00.000000+00:00"

/** Every file under the data dir that still holds `text`. */
const filesHolding = (dir: string, text: string) => listFiles(dir).filter((f) => fs.readFileSync(path.join(dir, f)).includes(text))

describe("AWHM Lite's deletions, on the first open of its data dir", () => {
  let tmp: ReturnType<typeof makeTempDir>
  beforeEach(() => (tmp = makeTempDir("awhm-lite-del-")))
  afterEach(() => tmp.cleanup())

  const seed = (backend: "json" | "sqlite") => {
    const kept = liteNode("n-kept", KEPT)
    if (backend === "json") writeLiteJsonGraph(tmp.dir, [kept])
    else writeLiteSqlite(tmp.dir, [kept])
    fs.mkdirSync(path.join(tmp.dir, "logs"), { recursive: true })
    fs.writeFileSync(path.join(tmp.dir, "logs", "s1.jsonl"), liteLogLine("s1", KEPT, AT) + "\n")
    // A session that never ended: its WAL still holds what a delete took from the buffer in memory.
    writeLiteWal(tmp.dir, "crashed", [liteBufferEntry(SECRET, 0, AT), liteBufferEntry(KEPT, 1, AT, "preference"), liteBufferEntry(LONG, 2, AT)])
    // Written with delete_snapshots_on_hard_delete off: the snapshot keeps the node and the buffer entry.
    writeLiteSnapshot(tmp.dir, "20260302_100000", [liteNode("n-secret", SECRET), kept], [liteBufferEntry(SECRET, 0, AT), liteBufferEntry(KEPT, 1, AT)])
    fs.mkdirSync(path.join(tmp.dir, "meta"), { recursive: true })
    const tombstones = [liteTombstone("n-secret", SECRET), liteTombstone("n-long", LONG, ["s9"])]
    fs.writeFileSync(path.join(tmp.dir, "meta", "deletion_tombstones.jsonl"), tombstones.map((t) => JSON.stringify(t) + "\n").join(""))
    return tombstones
  }

  for (const backend of ["json", "sqlite"] as const) {
    it(`with storage_backend ${backend}: WAL and snapshot copies go, the plaintext hints become salted hashes`, async () => {
      const tombstones = seed(backend)
      expect(filesHolding(tmp.dir, "alpha-123-secret").sort()).toEqual(["meta/deletion_tombstones.jsonl", "snapshots/snapshot_20260302_100000.json", "wal/crashed.wal"])
      const env = { AWHM_STORAGE_BACKEND: backend }
      const status = await runAwhm(["status", "--json"], { dataDir: tmp.dir, env })
      expect(status.stderr).toBe("")
      expect(JSON.parse(status.stdout)).toMatchObject({ nodes: 1, bufferEntries: 1 })

      expect(filesHolding(tmp.dir, "alpha-123-secret")).toEqual([])
      expect(filesHolding(tmp.dir, "orbit lantern")).toEqual([])
      const wal = JSON.parse(fs.readFileSync(path.join(tmp.dir, "wal", "crashed.wal"), "utf8")) as Array<{ content: string }>
      expect(wal.map((e) => e.content)).toEqual([KEPT])
      const snapshot = JSON.parse(fs.readFileSync(path.join(tmp.dir, "snapshots", "snapshot_20260302_100000.json"), "utf8")) as {
        graph: { nodes: Record<string, unknown> }
        wal_state: Array<{ content: string }>
      }
      expect(Object.keys(snapshot.graph.nodes)).toEqual(["n-kept"])
      expect(snapshot.wal_state.map((e) => e.content)).toEqual([KEPT])

      const salt = fs.readFileSync(path.join(tmp.dir, "meta", "tombstone_salt"), "utf8").trim()
      const hash = (hint: string) => "hmac-sha256:" + createHmac("sha256", salt).update(hint, "utf8").digest("hex")
      const lines = fs.readFileSync(path.join(tmp.dir, "meta", "deletion_tombstones.jsonl"), "utf8").trimEnd().split("\n").map((l) => JSON.parse(l) as unknown)
      expect(lines).toEqual(
        tombstones.map(({ content_hash_hint, ...rest }) => ({ ...rest, content_hash: hash(content_hash_hint), imported_from: "awhm-lite" }))
      )
      // The short text was kept whole by the reference: its hash is the one awhm's own delete writes.
      expect((lines[0] as { content_hash: string }).content_hash).toBe(hash("my token is alpha-123-secret"))

      // Done once: a second open changes nothing.
      const after = fs.readFileSync(path.join(tmp.dir, "meta", "deletion_tombstones.jsonl"))
      expect((await runAwhm(["status", "--json"], { dataDir: tmp.dir, env })).code).toBe(0)
      expect(fs.readFileSync(path.join(tmp.dir, "meta", "deletion_tombstones.jsonl")).equals(after)).toBe(true)
    })
  }

  it("a WAL file it cannot parse is left byte for byte as it was; the other files are still scrubbed", async () => {
    seed("json")
    const damaged = path.join(tmp.dir, "wal", "torn.wal")
    fs.writeFileSync(damaged, '[{"type": "fact", "content": "half writ')
    const before = fs.readFileSync(damaged)
    expect((await runAwhm(["status", "--json"], { dataDir: tmp.dir })).code).toBe(0)
    expect(fs.readFileSync(damaged).equals(before)).toBe(true)
    expect(filesHolding(tmp.dir, "alpha-123-secret")).toEqual([])
  })
})
