import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { makeTempDir, runAwhm } from "../support/cli.js"

let tmp: ReturnType<typeof makeTempDir>
beforeEach(() => {
  tmp = makeTempDir("awhm-cli-")
})
afterEach(() => tmp.cleanup())

describe("awhm log / status", () => {
  it("log --json prints exactly one JSON value; status --json in another process sees exact counts", async () => {
    const dir = tmp.dir
    const a = await runAwhm(["log", "--session", "s1", "--role", "user", "--json", "I prefer Python over JavaScript"], { dataDir: dir })
    expect(a).toEqual({ code: 0, stdout: '{"sessionId":"s1","messageIndex":0,"bufferEntries":1}\n', stderr: "" })
    const b = await runAwhm(["log", "--session", "s1", "--role", "assistant", "--json", "Noted, I prefer that too"], { dataDir: dir })
    expect(JSON.parse(b.stdout)).toEqual({ sessionId: "s1", messageIndex: 1, bufferEntries: 1 })
    const c = await runAwhm(["log", "--session", "s2", "--role", "user", "--json", "Actually, the port is 8080"], { dataDir: dir })
    expect(JSON.parse(c.stdout)).toEqual({ sessionId: "s2", messageIndex: 0, bufferEntries: 2 })
    const status = await runAwhm(["status", "--json"], { dataDir: dir })
    expect(status.code).toBe(0)
    expect(status.stderr).toBe("")
    expect(JSON.parse(status.stdout)).toEqual({
      nodes: 0,
      edges: 0,
      sessions: 2,
      logMessages: 3,
      bufferEntries: 3,
      dataDir: dir,
      storageBackend: "sqlite",
      embedder: "mock"
    })
  })

  it("accepts options after the text and --data-dir over AWHM_DATA_DIR; human output is one line", async () => {
    const other = path.join(tmp.dir, "elsewhere")
    const r = await runAwhm(["log", "hello there", "--session", "s", "--role", "USER", "--data-dir", other], { dataDir: tmp.dir })
    expect(r).toEqual({ code: 0, stdout: "logged message 0 in session s\n", stderr: "" })
    expect(fs.existsSync(path.join(other, "logs", "s.jsonl"))).toBe(true)
    expect(fs.existsSync(path.join(tmp.dir, "logs"))).toBe(false)
    const t = await runAwhm(["log", "--session", "s", "--role", "user", "--timestamp", "2026-03-01T10:00:00Z", "--data-dir", other, "I work at Acme"])
    expect(t.stdout).toBe("logged message 1 in session s (buffered: fact)\n")
    const line = fs.readFileSync(path.join(other, "logs", "s.jsonl"), "utf8").trim().split("\n")[1]!
    expect(JSON.parse(line)).toMatchObject({ timestamp: "2026-03-01T10:00:00.000Z", role: "user", content: "I work at Acme", index: 1 })
  })

  it("a bad role or timestamp exits 2 with one stderr line and writes nothing", async () => {
    const role = await runAwhm(["log", "--session", "s", "--role", "robot", "hi"], { dataDir: tmp.dir })
    expect(role).toEqual({
      code: 2,
      stdout: "",
      stderr: "awhm: invalid role 'robot': expected one of user, assistant, tool_call, tool_result\n"
    })
    const ts = await runAwhm(["log", "--session", "s", "--role", "user", "--timestamp", "last tuesday", "hi"], { dataDir: tmp.dir })
    expect(ts).toEqual({
      code: 2,
      stdout: "",
      stderr: "awhm: invalid timestamp 'last tuesday': expected an ISO date such as 2026-03-01T10:00:00Z\n"
    })
    const empty = await runAwhm(["log", "--session", "", "--role", "user", "hi"], { dataDir: tmp.dir })
    expect(empty.code).toBe(2)
    expect(empty.stderr).toBe("awhm: the session id must not be empty\n")
    expect(fs.existsSync(path.join(tmp.dir, "logs"))).toBe(false)
  })

  it("status on an empty data directory reports zeros", async () => {
    const r = await runAwhm(["status", "--json"], { dataDir: tmp.dir, env: { AWHM_STORAGE_BACKEND: "json" } })
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({ nodes: 0, edges: 0, sessions: 0, logMessages: 0, bufferEntries: 0, storageBackend: "json" })
  })

  it("after a crash (torn log line, damaged WAL) log --json still prints pure JSON; the warning goes to stderr once", async () => {
    const dir = tmp.dir
    await runAwhm(["log", "--session", "s", "--role", "user", "hello"], { dataDir: dir })
    fs.appendFileSync(path.join(dir, "logs", "s.jsonl"), '{"timestamp":"2026')
    fs.mkdirSync(path.join(dir, "wal"), { recursive: true })
    fs.writeFileSync(path.join(dir, "wal", "s.wal"), '[{"type":"fa')
    const r = await runAwhm(["log", "--session", "s", "--role", "user", "--json", "I prefer tea"], { dataDir: dir })
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('{"sessionId":"s","messageIndex":1,"bufferEntries":1}\n')
    expect(r.stderr).toBe(`awhm warn: ignored a damaged session buffer WAL ${path.join(dir, "wal", "s.wal")}; it will be rewritten\n`)
    const lines = fs.readFileSync(path.join(dir, "logs", "s.jsonl"), "utf8").split("\n")
    expect(lines.map((l) => (l === "" ? "" : l === '{"timestamp":"2026' ? "torn" : (JSON.parse(l) as { index: number }).index))).toEqual([
      0,
      "torn",
      1,
      ""
    ])
    const status = await runAwhm(["status", "--json"], { dataDir: dir })
    expect(JSON.parse(status.stdout)).toMatchObject({ sessions: 1, logMessages: 2, bufferEntries: 1 })
  })
})
