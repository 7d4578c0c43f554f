import * as fs from "node:fs"
import { afterEach, describe, expect, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { parseHookArgv } from "../../src/hooks/argv.js"
import { runHook } from "../../src/hooks/run.js"
import type { HookServices } from "../../src/hooks/services.js"
import { makeWarmRecall } from "../../src/hooks/warmRecall.js"
import { loadConfig } from "../../src/layers/ConfigLive.js"
import { recallConfig } from "../../src/hooks/wiring.js"
import { Retriever } from "../../src/services/Retriever.js"
import { configLayer } from "../../src/layers/Main.js"
import { RawLogMemory } from "../../src/layers/RawLogMemory.js"
import { SessionBufferMemory } from "../../src/layers/SessionBufferMemory.js"
import { makeTempDir } from "../support/cli.js"

// The hook server's warm recall (src/hooks/warmRecall.ts): one retriever for every hook while its stores stay
// open, each hook's own session buffer and warnings lent to it, so a served prompt answers what it would
// answer in its own process.

const cleanups: Array<() => void | Promise<unknown>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})
const tempDir = () => {
  const t = makeTempDir("awhm-warmrecall-")
  cleanups.push(t.cleanup)
  return t.dir
}

const env = (dir: string): NodeJS.ProcessEnv => ({ AWHM_DATA_DIR: dir, AWHM_EMBEDDER: "mock" })

/** One prompt hook on `dir` (in its own process's way without services, else lent the warm recall's). */
const prompt = async (dir: string, sessionId: string, text: string, services?: HookServices) => {
  const out: Array<string> = []
  const err: Array<string> = []
  const io = {
    readStdin: () => Promise.resolve(JSON.stringify({ session_id: sessionId, cwd: "/p", hook_event_name: "UserPromptSubmit", prompt: text })),
    stdout: (t: string) => out.push(t),
    stderr: (t: string) => err.push(t),
    env: env(dir)
  }
  await Effect.runPromise(runHook({ ...parseHookArgv(["prompt"]).args!, dataDir: dir }, io, services))
  return { stdout: out.join(""), stderr: err.join("") }
}

const context = (stdout: string): string | null =>
  stdout === "" ? null : (JSON.parse(stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext

const HEADER = "Relevant memories from previous sessions (from awhm):"

// Two sessions, each telling something and asking about it and about the other's: what a session said is in its
// own buffer (this hook's) and in the raw log (everyone's).
const PROMPTS: ReadonlyArray<readonly [string, string]> = [
  ["s-a", "Our staging database is PostgreSQL 16 on db-stage-2."],
  ["s-b", "My favourite editor is Helix, I switched from Vim last spring."],
  ["s-a", "Which database does staging use?"],
  ["s-b", "Which editor do I use now?"],
  ["s-b", "Which database does staging use?"],
  ["s-a", "Which editor do I use now?"]
]

describe("the hook server's warm recall", () => {
  it("answers a run of prompts in two sessions exactly as each would be answered in its own process", async () => {
    const served = tempDir()
    const alone = tempDir()
    const recall = makeWarmRecall()
    cleanups.push(() => Effect.runPromise(recall.release))
    const answers: Array<{ stdout: string; stderr: string }> = []
    const expected: Array<{ stdout: string; stderr: string }> = []
    for (const [session, text] of PROMPTS) {
      answers.push(await prompt(served, session, text, recall.services))
      expected.push(await prompt(alone, session, text))
    }
    expect(answers).toEqual(expected)
    expect(answers.map((a) => context(a.stdout))).toEqual([
      null,
      null,
      `${HEADER}\n- Our staging database is PostgreSQL 16 on db-stage-2.`,
      `${HEADER}\n- My favourite editor is Helix, I switched from Vim last spring.`,
      `${HEADER}\n- Our staging database is PostgreSQL 16 on db-stage-2.`,
      `${HEADER}\n- My favourite editor is Helix, I switched from Vim last spring.`
    ])
    // Each hook flushed its own session's buffer when it ended.
    expect(fs.readdirSync(`${served}/wal`).sort()).toEqual(fs.readdirSync(`${alone}/wal`).sort())
  })

  it("builds one retriever per open stores, lends it each hook's session buffer, and builds a new one for another configuration", async () => {
    const dir = tempDir()
    const recall = makeWarmRecall()
    cleanups.push(() => Effect.runPromise(recall.release))
    const config = await Effect.runPromise(loadConfig({ data_dir: dir }, env(dir)))
    const forRecall = recallConfig(config, false)
    /** The retriever a hook gets, built in that hook's own scope with its own session buffer. */
    const lent = (cfg: typeof forRecall) =>
      Effect.runPromise(
        Effect.gen(function* () {
          const scope = yield* Scope.make()
          const layer = yield* recall.services.retriever(cfg, () => {})
          const built = yield* Layer.buildWithScope(layer.pipe(Layer.provide(Layer.mergeAll(SessionBufferMemory, RawLogMemory, configLayer(config)))), scope)
          yield* Scope.close(scope, Exit.void)
          return Context.get(built, Retriever)
        })
      )
    const first = await lent(forRecall)
    const second = await lent(forRecall)
    expect(second).toBe(first)
    const other = await lent({ ...forRecall, k: forRecall.k + 1 })
    expect(other).not.toBe(first)
  })
})
