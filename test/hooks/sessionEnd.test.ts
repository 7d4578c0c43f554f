import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "@effect/vitest"
import { acquireLockSync } from "../../src/store/fileLock.js"
import { dataPaths, encodeSessionId } from "../../src/store/paths.js"
import { makeTempDir, runAwhm } from "../support/cli.js"
import { waitFor } from "../support/hookServer.js"

// `awhm hook session-end` through the real bin: it hands consolidation to a detached process and returns,
// so /clear and /exit never wait for it; the work still gets done, once, however often the hook fires.

const SHOP = "/home/me/shop"
const temps: Array<() => void> = []
afterEach(() => temps.splice(0).forEach((c) => c()))

const nodeCount = async (dir: string) => (JSON.parse((await runAwhm(["nodes", "--json"], { dataDir: dir })).stdout) as { nodes: Array<unknown> }).nodes.length
const logLines = (dir: string, n: number) =>
  waitFor(`${n} session-end outcome line(s)`, () => {
    const file = dataPaths(dir).sessionEndLog
    return fs.existsSync(file) && fs.readFileSync(file, "utf8").split("\n").length === n + 1
  }).then(() => fs.readFileSync(dataPaths(dir).sessionEndLog, "utf8").trim().split("\n").map((l) => l.replace(/^\S+Z /, "")))

describe("awhm hook session-end", () => {
  it("returns before consolidating; the detached process finishes the work, and a second session-end adds nothing", async () => {
    const t = makeTempDir("awhm-end-")
    temps.push(t.cleanup)
    const dir = t.dir
    const payload = (extra: object) => JSON.stringify({ session_id: "e", cwd: SHOP, ...extra })
    for (const prompt of ["Our staging database is PostgreSQL 16.", "I prefer pnpm over npm."]) {
      expect((await runAwhm(["hook", "prompt"], { dataDir: dir, input: payload({ prompt }) })).code).toBe(0)
    }
    // While this test holds the session's lock, no session-end can consolidate: the hooks return all the same.
    const release = acquireLockSync(path.join(dataPaths(dir).locks, `hook-session-end-${encodeSessionId("claude-e")}.lock`))
    const end = payload({ hook_event_name: "SessionEnd", reason: "clear" })
    expect(await runAwhm(["hook", "session-end"], { dataDir: dir, input: end })).toEqual({ code: 0, stdout: "", stderr: "" })
    expect(await runAwhm(["hook", "session-end"], { dataDir: dir, input: end })).toEqual({ code: 0, stdout: "", stderr: "" })
    expect(await nodeCount(dir)).toBe(0)
    expect(fs.existsSync(dataPaths(dir).walFile("claude-e"))).toBe(true)
    release()
    // One of the two did the work; the other found nothing left to do.
    expect((await logLines(dir, 2)).sort()).toEqual(["claude-e consolidated 0 new memories", "claude-e consolidated 2 new memories"])
    expect(await nodeCount(dir)).toBe(2)
    expect(fs.existsSync(dataPaths(dir).walFile("claude-e"))).toBe(false)
  })

  it("--wait consolidates in the hook's own process and says so (here: the fact and the name)", async () => {
    const t = makeTempDir("awhm-end-")
    temps.push(t.cleanup)
    const input = JSON.stringify({ session_id: "w", cwd: SHOP, prompt: "My name is Alice." })
    expect((await runAwhm(["hook", "prompt"], { dataDir: t.dir, input })).code).toBe(0)
    expect(await runAwhm(["hook", "session-end", "--wait"], { dataDir: t.dir, input })).toEqual({
      code: 0,
      stdout: "",
      stderr: "awhm: consolidated 2 new memories\n"
    })
    expect(await logLines(t.dir, 1)).toEqual(["claude-w consolidated 2 new memories"])
    expect([fs.statSync(dataPaths(t.dir).meta).mode & 0o777, fs.statSync(dataPaths(t.dir).sessionEndLog).mode & 0o777]).toEqual([0o700, 0o600])
  })

  it("a symbolic link planted as the outcome log is not followed: the consolidation is done, the link's target untouched", async () => {
    const t = makeTempDir("awhm-end-")
    temps.push(t.cleanup)
    const dir = path.join(t.dir, "data")
    const input = JSON.stringify({ session_id: "l", cwd: SHOP, prompt: "My name is Alice." })
    expect((await runAwhm(["hook", "prompt"], { dataDir: dir, input })).code).toBe(0)
    const target = path.join(t.dir, "elsewhere.txt")
    fs.writeFileSync(target, "")
    fs.mkdirSync(dataPaths(dir).meta, { recursive: true, mode: 0o700 })
    fs.symlinkSync(target, dataPaths(dir).sessionEndLog)
    expect(await runAwhm(["hook", "session-end", "--wait"], { dataDir: dir, input })).toEqual({
      code: 0,
      stdout: "",
      stderr: "awhm: consolidated 2 new memories\n"
    })
    expect(fs.readFileSync(target, "utf8")).toBe("")
    expect(fs.lstatSync(dataPaths(dir).sessionEndLog).isSymbolicLink()).toBe(true)
    expect(await nodeCount(dir)).toBe(2)
  })
})
