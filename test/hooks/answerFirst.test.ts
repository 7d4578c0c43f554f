import * as fs from "node:fs"
import { afterEach, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { parseHookArgv } from "../../src/hooks/argv.js"
import type { HookIO } from "../../src/hooks/io.js"
import type { HookServices } from "../../src/hooks/services.js"
import { runHook } from "../../src/hooks/run.js"
import { makeWarmRecall } from "../../src/hooks/warmRecall.js"
import { dataPaths } from "../../src/store/paths.js"
import { makeTempDir } from "../support/cli.js"

// The prompt hook hands over its answer (HookIO.answered, where the hook server replies) once its output is
// complete and the prompt is in the raw log, before its stores close: the session buffer's WAL (written with
// fsyncs when they close) is bookkeeping the answer does not wait for.

const cleanups: Array<() => void | Promise<unknown>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

const FACT = "Our staging database is PostgreSQL 16 on db-stage-2."
const HEADER = "Relevant memories from previous sessions (from awhm):"

interface Seen {
  readonly stdout: string
  readonly rawLog: ReadonlyArray<string>
  readonly wal: boolean
}

/** Runs one prompt hook and records, when it says it has answered, its output so far and what is on disk. */
const prompt = async (dir: string, sessionId: string, text: string, services?: HookServices) => {
  const paths = dataPaths(dir)
  const out: Array<string> = []
  const seen: Array<Seen> = []
  const io: HookIO = {
    readStdin: () => Promise.resolve(JSON.stringify({ session_id: sessionId, cwd: "/p", prompt: text })),
    stdout: (t) => out.push(t),
    stderr: (t) => out.push(`stderr: ${t}`),
    env: { AWHM_DATA_DIR: dir, AWHM_EMBEDDER: "mock" },
    answered: () => {
      const log = paths.logFile(`claude-${sessionId}`)
      seen.push({
        stdout: out.join(""),
        rawLog: fs.existsSync(log) ? fs.readFileSync(log, "utf8").trim().split("\n").map((l) => (JSON.parse(l) as { content: string }).content) : [],
        wal: fs.existsSync(paths.walFile(`claude-${sessionId}`))
      })
    }
  }
  await Effect.runPromise(runHook({ ...parseHookArgv(["prompt"]).args!, dataDir: dir }, io, services))
  return { seen, stdout: out.join(""), wal: fs.existsSync(paths.walFile(`claude-${sessionId}`)) }
}

describe("the prompt hook's answer", () => {
  for (const served of [true, false]) {
    it(`is handed over once, complete, with the prompt logged and before the session buffer's WAL is written (${served ? "hook server" : "in the process"})`, async () => {
      const t = makeTempDir("awhm-answerfirst-")
      cleanups.push(t.cleanup)
      const recall = makeWarmRecall()
      cleanups.push(() => Effect.runPromise(recall.release))
      const services = served ? recall.services : undefined
      const told = await prompt(t.dir, "s-a", FACT, services)
      expect(told.seen).toEqual([{ stdout: "", rawLog: [FACT], wal: false }])
      expect(told.wal).toBe(true)

      const asked = await prompt(t.dir, "s-b", "Which database does staging use?", services)
      const answer = JSON.stringify({ hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: `${HEADER}\n- ${FACT}` } }) + "\n"
      expect(asked.seen).toEqual([{ stdout: answer, rawLog: ["Which database does staging use?"], wal: false }])
      // Nothing more was written after the answer (a question is not buffered: it leaves no WAL).
      expect(asked.stdout).toBe(answer)
    })
  }
})
