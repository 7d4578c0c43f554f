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
const graph = dataPaths(dir).graphSqlite

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

const log = (text: string) => runAwhm(["log", "--session", "s1", "--role", "user", text], { dataDir: dir })

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

  it("query, snapshot create, consolidate and status say the disk is full, in one line, and leave no file behind", async () => {
    expect((await log("I prefer Python over JavaScript")).code).toBe(0)
    expect((await runAwhm(["consolidate"], { dataDir: dir })).code).toBe(0)
    expect((await log("The staging port is 8080")).code).toBe(0)
    const filesBefore = listFiles(dir)
    fill()
    const line = `awhm: the disk is full: could not open ${graph}; free some space and try again\n`
    for (const args of [["query", "Python"], ["snapshot", "create"], ["consolidate"], ["status"]]) {
      expect([args[0], await runAwhm(args, { dataDir: dir })]).toEqual([args[0], { code: 1, stdout: "", stderr: line }])
    }
    // SQLite may leave its empty -shm and -wal files; nothing of awhm's is left half-written.
    expect(listFiles(dir).filter((f) => !/\.sqlite-(shm|wal)$/.test(f))).toEqual(filesBefore)
  })
})
