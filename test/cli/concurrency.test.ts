import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { makeTempDir, runAwhm } from "../support/cli.js"

let tmp: ReturnType<typeof makeTempDir>
beforeEach(() => {
  tmp = makeTempDir("awhm-conc-")
})
afterEach(() => tmp.cleanup())

const WORKERS = 8
const CALLS = 25

describe("concurrent awhm log processes", () => {
  it(
    `${WORKERS} writers x ${CALLS} calls into one session: 200 entries, indexes 0..199, every buffer entry kept`,
    async () => {
      const worker = async (w: number) => {
        for (let i = 0; i < CALLS; i++) {
          const r = await runAwhm(["log", "--session", "shared", "--role", "user", "--json", `I prefer tool-w${w}-m${i}`], {
            dataDir: tmp.dir,
            timeoutMs: 120_000
          })
          if (r.code !== 0) throw new Error(`worker ${w} call ${i} exited ${r.code}: ${r.stderr}`)
        }
      }
      await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)))

      const lines = fs.readFileSync(path.join(tmp.dir, "logs", "shared.jsonl"), "utf8").split("\n")
      expect(lines.pop()).toBe("") // ends with a newline, no torn or glued line
      const entries = lines.map((l) => JSON.parse(l) as { index: number; content: string })
      expect(entries).toHaveLength(WORKERS * CALLS)
      expect(entries.map((e) => e.index)).toEqual(Array.from({ length: WORKERS * CALLS }, (_, i) => i))
      const expected = Array.from({ length: WORKERS }, (_, w) => Array.from({ length: CALLS }, (_, i) => `I prefer tool-w${w}-m${i}`)).flat()
      expect(entries.map((e) => e.content).sort()).toEqual([...expected].sort())

      const wal = JSON.parse(fs.readFileSync(path.join(tmp.dir, "wal", "shared.wal"), "utf8")) as Array<{ source_msg: number; content: string }>
      expect(wal.map((e) => e.source_msg)).toEqual(Array.from({ length: WORKERS * CALLS }, (_, i) => i))
      expect(wal.map((e) => e.content)).toEqual(entries.map((e) => e.content))

      const status = await runAwhm(["status", "--json"], { dataDir: tmp.dir })
      expect(JSON.parse(status.stdout)).toMatchObject({ sessions: 1, logMessages: 200, bufferEntries: 200 })
    },
    600_000 // 200 process starts: about 0.5 s of CPU each
  )
})
