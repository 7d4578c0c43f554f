import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { ConfigFromValues } from "../../src/layers/ConfigLive.js"
import { RawLogLive } from "../../src/layers/RawLogLive.js"
import { RawLog } from "../../src/services/RawLog.js"
import { adoptLiteSessionFiles, liteLogStem, liteWalStem } from "../../src/store/liteNames.js"
import { dataPaths } from "../../src/store/paths.js"
import { listFiles, makeTempDir, runAwhm } from "../support/cli.js"

const ODD = "claude-1.2 x/y~é"

describe("AWHM Lite's session file names", () => {
  let tmp: ReturnType<typeof makeTempDir>
  beforeEach(() => (tmp = makeTempDir("awhm-lite-names-")))
  afterEach(() => tmp.cleanup())

  it("are Python's quote() for logs and the isalnum rule for WALs", () => {
    expect(liteLogStem(ODD)).toBe("claude-1.2%20x%2Fy~%C3%A9")
    expect(liteWalStem(ODD)).toBe("claude-1.2_x_y_é")
  })

  it("a session the reference wrote under an odd id stays one session: same log, buffer recovered, all consolidated", async () => {
    fs.mkdirSync(path.join(tmp.dir, "logs"), { recursive: true })
    fs.mkdirSync(path.join(tmp.dir, "wal"), { recursive: true })
    const line = (content: string, at: string) => JSON.stringify({ timestamp: at, session_id: ODD, role: "user", content, metadata: {} })
    fs.writeFileSync(
      path.join(tmp.dir, "logs", `${liteLogStem(ODD)}.jsonl`),
      [line("My preferred editor is Vim", "2026-03-01T10:00:00.000000+00:00"), line("The staging host is alpha.internal", "2026-03-01T10:01:00.000000+00:00")].join("\n") + "\n"
    )
    fs.writeFileSync(
      path.join(tmp.dir, "wal", `${liteWalStem(ODD)}.wal`),
      JSON.stringify([{ type: "preference", content: "My preferred editor is Vim", timestamp: "2026-03-01T10:00:00+00:00", source_msg: 0, session_id: ODD }])
    )
    const logged = await runAwhm(["log", "--session", ODD, "--role", "user", "--json", "The deploy day is Tuesday"], { dataDir: tmp.dir })
    expect(JSON.parse(logged.stdout)).toEqual({ sessionId: ODD, messageIndex: 2, bufferEntries: 2 })
    const status = JSON.parse((await runAwhm(["status", "--json"], { dataDir: tmp.dir })).stdout) as Record<string, unknown>
    expect(status).toMatchObject({ sessions: 1, logMessages: 3, bufferEntries: 2 })
    expect(listFiles(path.join(tmp.dir, "logs")).filter((f) => f.endsWith(".jsonl"))).toEqual(["claude-1%2E2%20x%2Fy%7E%C3%A9.jsonl"])
    const consolidated = JSON.parse((await runAwhm(["consolidate", "--json"], { dataDir: tmp.dir })).stdout) as { sessions: Record<string, number> }
    expect(Object.keys(consolidated.sessions)).toEqual([ODD])
    const nodes = (JSON.parse((await runAwhm(["nodes", "--json"], { dataDir: tmp.dir })).stdout) as { nodes: Array<{ content: string }> }).nodes
    expect(nodes.map((n) => n.content).sort()).toEqual(["My preferred editor is Vim", "The deploy day is Tuesday", "The staging host is alpha.internal"])
  })

  it("lists the logs folder only when something other than awhm's own appends changed it: a new session's first message lists nothing", async () => {
    const paths = dataPaths(tmp.dir)
    // Each append in a process of its own, as hooks run (a process looks at a data dir once).
    const append = (sessionId: string, content: string) =>
      Effect.runPromise(
        Effect.flatMap(RawLog, (log) => log.append({ sessionId, role: "user", content })).pipe(
          Effect.provide(RawLogLive.pipe(Layer.provide(ConfigFromValues(tmp.dir))))
        )
      )
    await append("a", "one")
    expect(adoptLiteSessionFiles(paths)).toEqual({ adopted: [], listed: true }) // the journal began after the last look
    expect(adoptLiteSessionFiles(paths)).toEqual({ adopted: [], listed: false })
    // New sessions' logs, created by awhm's appends: the journal vouches for them.
    await append("b", "two")
    await append("c", "three")
    await append("a", "four")
    expect(adoptLiteSessionFiles(paths)).toEqual({ adopted: [], listed: false })
    // A log AWHM Lite wrote under its own name: found by a listing, and renamed.
    fs.writeFileSync(path.join(paths.logs, `${liteLogStem(ODD)}.jsonl`), JSON.stringify({ timestamp: "2026-03-01T10:00:00+00:00", session_id: ODD, role: "user", content: "hi", metadata: {} }) + "\n")
    await append("d", "five")
    expect(adoptLiteSessionFiles(paths)).toEqual({ adopted: [ODD], listed: true })
    // The rename changed the folder after the look: one more listing, which finds nothing left to adopt.
    expect(adoptLiteSessionFiles(paths)).toEqual({ adopted: [], listed: true })
    expect(adoptLiteSessionFiles(paths)).toEqual({ adopted: [], listed: false })
    expect(listFiles(paths.logs).filter((f) => f.endsWith(".jsonl"))).toEqual(["a.jsonl", "b.jsonl", "c.jsonl", "claude-1%2E2%20x%2Fy%7E%C3%A9.jsonl", "d.jsonl"])
  })
})
