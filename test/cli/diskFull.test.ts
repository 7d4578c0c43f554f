import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { dataPaths } from "../../src/store/paths.js"
import { listFiles, makeTempDir, runAwhm } from "../support/cli.js"

// A full disk, for real: a 4 MB tmpfs mounted for these tests (they run as root), filled to the last block.

const temp = makeTempDir("awhm-full-")
const disk = path.join(temp.dir, "disk")
const dir = path.join(disk, "data")

beforeAll(() => {
  fs.mkdirSync(disk)
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs", disk])
})
afterAll(() => {
  execFileSync("umount", [disk])
  temp.cleanup()
})
beforeEach(() => {
  for (const f of fs.readdirSync(disk)) fs.rmSync(path.join(disk, f), { recursive: true, force: true })
})

/** Fills the disk, leaving `freeKb` kilobytes (in whole 4 KB pages) free. */
const fill = (freeKb = 0) => {
  const reserve = path.join(disk, "reserve")
  if (freeKb > 0) fs.writeFileSync(reserve, Buffer.alloc(freeKb * 1024))
  const fd = fs.openSync(path.join(disk, "filler"), "w")
  const block = Buffer.alloc(4096)
  try {
    for (;;) fs.writeSync(fd, block)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOSPC") throw e
  } finally {
    fs.closeSync(fd)
  }
  fs.rmSync(reserve, { force: true })
}

const log = (text: string, env: Record<string, string> = {}) =>
  runAwhm(["log", "--session", "s1", "--role", "user", text], { dataDir: dir, env })

describe("a full disk", () => {
  it("an append that fails part-way is cut back: the log is byte for byte what it was, and the error says the disk is full", async () => {
    expect((await log("I prefer Python over JavaScript")).code).toBe(0)
    expect((await log("The staging port is 8080")).code).toBe(0)
    const file = dataPaths(dir).logFile("s1")
    const before = fs.readFileSync(file)
    fill(16)
    const r = await log("a".repeat(60_000))
    expect(r).toEqual({ code: 1, stdout: "", stderr: `awhm: the disk is full: could not append to ${file}; free some space and try again\n` })
    expect(fs.readFileSync(file).equals(before)).toBe(true)
  })

  describe.each(["sqlite", "json"])("with the %s backend", (backend) => {
    const env = { AWHM_STORAGE_BACKEND: backend }
    const run = (args: ReadonlyArray<string>) => runAwhm(args, { dataDir: dir, env })
    const unsaved = (what: string) => `awhm: the disk is full: ${what} not saved (the answer is complete); free some space\n`

    it("a query still answers, says in one line what it could not save, and leaves no file behind", async () => {
      expect((await log("I prefer Python over JavaScript", env)).code).toBe(0)
      expect((await run(["consolidate"])).code).toBe(0)
      expect((await log("The staging port is 8080", env)).code).toBe(0)
      const filesBefore = listFiles(dir)
      fill()
      expect(await run(["query", "Python"])).toEqual({
        code: 0,
        stdout: "1. [graph] (score: 0.690) I prefer Python over JavaScript\n",
        stderr: unsaved("the retrieval index and the reinforcement of the memories returned were")
      })
      const json = await run(["query", "--json", "Python"])
      expect([json.code, json.stderr]).toEqual([0, unsaved("the retrieval index and the reinforcement of the memories returned were")])
      const parsed = JSON.parse(json.stdout) as { results: Array<{ source: string; content: string }> }
      expect(parsed.results.map((r) => [r.source, r.content])).toEqual([["graph", "I prefer Python over JavaScript"]])
      // The live buffer answers too; nothing is returned from the graph, so only the index is named.
      expect(await run(["query", "--session", "s1", "port"])).toEqual({
        code: 0,
        stdout: "1. [buffer] (score: 1.000) The staging port is 8080\n",
        stderr: unsaved("the retrieval index was")
      })
      expect(listFiles(dir)).toEqual(filesBefore)
    })

    it("snapshot create and consolidate, which must write, say the disk is full in one line; status still answers", async () => {
      expect((await log("I prefer Python over JavaScript", env)).code).toBe(0)
      expect((await run(["consolidate"])).code).toBe(0)
      expect((await log("The staging port is 8080", env)).code).toBe(0)
      const filesBefore = listFiles(dir)
      fill()
      const line = `awhm: the disk is full: could not lock ${dataPaths(dir).locks}/consolidation.lock; free some space and try again\n`
      for (const args of [["snapshot", "create"], ["consolidate"]]) {
        expect([args[0], await run(args)]).toEqual([args[0], { code: 1, stdout: "", stderr: line }])
      }
      const status = await run(["status"])
      expect([status.code, status.stderr, status.stdout.split("\n").slice(1, 4)]).toEqual([
        0,
        "",
        [`graph:          1 nodes, 0 edges (${backend})`, "raw log:        2 messages in 1 sessions", "session buffer: 2 entries"]
      ])
      expect(listFiles(dir)).toEqual(filesBefore)
    })
  })
})
