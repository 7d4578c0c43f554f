import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { liteLogStem } from "../../src/store/liteNames.js"
import { dataPaths } from "../../src/store/paths.js"
import { makeTempDir, runAwhm } from "../support/cli.js"
import { liteBufferEntry, liteLogLine, liteNode, writeLiteJsonGraph, writeLiteSnapshot } from "../support/liteFixtures.js"

const ODD = "claude-1.2 x/y"
const t = (minute: number) => `2026-03-01T10:0${minute}:00.123456+00:00`

/** A session's entries as recovered from its WAL: what `awhm` will retrieve from the buffer. */
const walOf = (dataDir: string, sessionId: string) =>
  (JSON.parse(fs.readFileSync(dataPaths(dataDir).walFile(sessionId), "utf8")) as Array<{ content: string; source_msg: number; session_id: string }>).map(
    (e) => [e.session_id, e.source_msg, e.content]
  )

describe("restoring a snapshot AWHM Lite wrote", () => {
  let tmp: ReturnType<typeof makeTempDir>
  beforeEach(() => (tmp = makeTempDir("awhm-lite-snap-")))
  afterEach(() => tmp.cleanup())

  const seed = (walState: ReadonlyArray<unknown>) => {
    writeLiteJsonGraph(tmp.dir, [liteNode("n1", "My preferred editor is Vim")])
    fs.mkdirSync(path.join(tmp.dir, "logs"), { recursive: true })
    // Two sessions the reference logged, one under its own odd file name; the buffer entries carry no session.
    fs.writeFileSync(
      path.join(tmp.dir, "logs", `${liteLogStem(ODD)}.jsonl`),
      [liteLogLine(ODD, "My preferred editor is Vim", t(0)), liteLogLine(ODD, "ok", t(1), "assistant"), liteLogLine(ODD, "The staging host is alpha.internal", t(2)), liteLogLine(ODD, "I work at Initech", t(3))]
        .map((l) => l + "\n")
        .join("")
    )
    fs.writeFileSync(
      path.join(tmp.dir, "logs", "s2.jsonl"),
      [liteLogLine("s2", "My city is Lisbon", t(4)), liteLogLine("s2", "Please always add type hints", t(5))].map((l) => l + "\n").join("")
    )
    return writeLiteSnapshot(tmp.dir, "20260302_100000", [liteNode("n1", "My preferred editor is Vim")], walState)
  }

  it("puts each of its buffer entries back into the session whose message it was taken from", async () => {
    const snap = seed([
      liteBufferEntry("My preferred editor is Vim", 0, t(0), "preference"),
      liteBufferEntry("The staging host is alpha.internal", 2, t(2)),
      liteBufferEntry("I work at Initech", 3, t(3)),
      liteBufferEntry("My city is Lisbon", 0, t(4)),
      liteBufferEntry("add type hints", 1, t(5), "preference")
    ])
    const r = await runAwhm(["snapshot", "restore", "--path", snap, "--json"], { dataDir: tmp.dir })
    expect([r.code, r.stderr]).toEqual([0, ""])
    expect(JSON.parse(r.stdout)).toMatchObject({ restored: snap })
    expect(walOf(tmp.dir, ODD)).toEqual([
      [ODD, 0, "My preferred editor is Vim"],
      [ODD, 2, "The staging host is alpha.internal"],
      [ODD, 3, "I work at Initech"]
    ])
    expect(walOf(tmp.dir, "s2")).toEqual([
      ["s2", 0, "My city is Lisbon"],
      ["s2", 1, "add type hints"]
    ])
    const status = JSON.parse((await runAwhm(["status", "--json"], { dataDir: tmp.dir })).stdout) as Record<string, unknown>
    expect(status).toMatchObject({ sessions: 2, bufferEntries: 5 })
    const q = JSON.parse((await runAwhm(["query", "staging host", "-k", "1", "--session", ODD, "--json"], { dataDir: tmp.dir })).stdout) as {
      results: Array<{ content: string; source: string }>
    }
    expect(q.results[0]).toMatchObject({ content: "The staging host is alpha.internal", source: "buffer" })
  })

  it("an entry whose message no log has any more is counted in one line, the others restored", async () => {
    const snap = seed([liteBufferEntry("My city is Lisbon", 0, t(4)), liteBufferEntry("My token is gone", 7, t(9))])
    const r = await runAwhm(["snapshot", "restore", "--path", snap], { dataDir: tmp.dir })
    expect(r.code).toBe(0)
    expect(r.stderr).toBe("awhm: 1 buffer entries of the snapshot name no session and match no logged message: not restored\n")
    expect(walOf(tmp.dir, "s2")).toEqual([["s2", 0, "My city is Lisbon"]])
  })
})
