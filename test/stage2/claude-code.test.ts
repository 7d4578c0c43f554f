import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { STAGE2_JSON_SCHEMA } from "../../src/domain/Stage2Proposal.js"
import { makeStage2ClaudeCode } from "../../src/layers/Stage2ClaudeCode.js"
import { runStage2, SYSTEM_PROMPT } from "../../src/programs/stage2.js"
import { Stage2Client, type Stage2Request } from "../../src/services/Stage2Client.js"
import { captureLogs, entries, memory, testConfig } from "./support.js"

// A fake `claude` on PATH: a real process that records what it was given and answers per FAKE_CLAUDE_MODE.
const FAKE = `#!${process.execPath}
const fs = require("node:fs")
let stdin = ""
let ended = false
let done = false
const finish = () => {
  if (done) return
  done = true
  clearTimeout(fallback)
  const e = process.env
  fs.appendFileSync(e.FAKE_CLAUDE_RECORD, JSON.stringify({
    argv: process.argv.slice(2), pid: process.pid, stdin, stdinEnded: ended,
    env: { AWHM_HOOK_ACTIVE: e.AWHM_HOOK_ACTIVE ?? null, CLAUDECODE: e.CLAUDECODE ?? null,
           CLAUDE_CODE_ENTRYPOINT: e.CLAUDE_CODE_ENTRYPOINT ?? null, KEEP_ME: e.KEEP_ME ?? null }
  }) + "\\n")
  const answer = JSON.parse(e.FAKE_CLAUDE_ANSWER || "null")
  switch (e.FAKE_CLAUDE_MODE) {
    case "structured":
      process.stdout.write(JSON.stringify({ type: "result", is_error: false, result: "ignored", structured_output: answer }))
      break
    case "result":
      process.stdout.write(JSON.stringify({ type: "result", is_error: false, result: JSON.stringify(answer), structured_output: null }))
      break
    case "is_error":
      process.stdout.write(JSON.stringify({ type: "result", is_error: true, result: "Not logged in · Please run /login" }))
      break
    case "garbage":
      process.stdout.write("Welcome to Claude Code!")
      break
    case "exit1":
      process.stderr.write("boom: something went wrong\\nsecond line\\n")
      process.exit(1)
    case "exit1_envelope":
      process.stdout.write(JSON.stringify({ type: "result", is_error: true, result: "Credit balance is too low" }))
      process.exitCode = 1
      break
    case "sleep":
      setTimeout(() => {}, 60000)
      return
  }
}
process.stdin.on("data", (d) => { stdin += d })
process.stdin.on("end", () => { ended = true; finish() })
process.stdin.on("error", () => finish())
const fallback = setTimeout(finish, 3000)
`

let dir: string
let binDir: string
let emptyDir: string
let record: string

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "awhm-fake-claude-"))
  binDir = path.join(dir, "bin")
  emptyDir = path.join(dir, "empty")
  fs.mkdirSync(binDir)
  fs.mkdirSync(emptyDir)
  fs.writeFileSync(path.join(binDir, "claude"), FAKE, { mode: 0o755 })
  record = path.join(dir, "record.jsonl")
})
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

interface Seen {
  readonly argv: ReadonlyArray<string>
  readonly pid: number
  readonly stdin: string
  readonly stdinEnded: boolean
  readonly env: Record<string, string | null>
}
const readRecord = (): Array<Seen> =>
  fs.existsSync(record) ? fs.readFileSync(record, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Seen) : []

const layer = (mode: string, answer: unknown = null, overrides: Record<string, string> = {}, pathDir = binDir) =>
  makeStage2ClaudeCode({
    env: {
      PATH: `${pathDir}${path.delimiter}/usr/bin${path.delimiter}/bin`,
      HOME: os.homedir(),
      KEEP_ME: "kept",
      CLAUDECODE: "1",
      CLAUDE_CODE_ENTRYPOINT: "cli",
      FAKE_CLAUDE_MODE: mode,
      FAKE_CLAUDE_ANSWER: JSON.stringify(answer),
      FAKE_CLAUDE_RECORD: record
    }
  }).pipe(Layer.provide(testConfig(overrides)))

const request: Stage2Request = { system: "the system prompt", user: "Transcript:\n[0] user: hi", schema: STAGE2_JSON_SCHEMA }

const complete = <E>(l: Layer.Layer<Stage2Client, E>) =>
  Effect.flatMap(Stage2Client, (c) => c.complete(request)).pipe(Effect.provide(l))

const resetRecord = () => fs.rmSync(record, { force: true })

describe("Stage2ClaudeCode against a fake claude executable", () => {
  it.live("passes the reference's arguments, a guarded environment and a closed stdin; returns structured_output", () =>
    Effect.gen(function* () {
      resetRecord()
      const answer = { memories: [memory()] }
      const out = yield* complete(layer("structured", answer, { stage2_model: "sonnet" }))
      expect(out).toEqual(answer)
      const [seen] = readRecord()
      expect(seen!.argv).toEqual([
        "-p", "Transcript:\n[0] user: hi",
        "--system-prompt", "the system prompt",
        "--output-format", "json",
        "--json-schema", JSON.stringify(STAGE2_JSON_SCHEMA),
        "--tools", "",
        "--no-session-persistence",
        "--max-turns", "1",
        "--model", "sonnet"
      ])
      expect(seen!.env).toEqual({ AWHM_HOOK_ACTIVE: "1", CLAUDECODE: null, CLAUDE_CODE_ENTRYPOINT: null, KEEP_ME: "kept" })
      expect(seen!.stdinEnded).toBe(true)
      expect(seen!.stdin).toBe("")
    }))

  it.live("without stage2_model no --model is passed; the result text is returned when there is no structured_output", () =>
    Effect.gen(function* () {
      resetRecord()
      const out = yield* complete(layer("result", { memories: [] }))
      expect(out).toBe('{"memories":[]}')
      expect(readRecord()[0]!.argv).not.toContain("--model")
    }))

  it.live("a non-zero exit is a Stage2Error with the first line of stderr", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(complete(layer("exit1")))
      expect(error._tag).toBe("Stage2Error")
      expect(error.message).toBe("claude -p exited with code 1: boom: something went wrong")
    }))

  it.live("a non-zero exit with an is_error envelope on stdout reports the envelope's reason", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(complete(layer("exit1_envelope")))
      expect(error.message).toBe("claude -p exited with code 1: Credit balance is too low")
    }))

  it.live("is_error is a Stage2Error carrying the CLI's reason", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(complete(layer("is_error")))
      expect(error.message).toBe("claude -p reported an error: Not logged in · Please run /login")
    }))

  it.live("non-JSON output is a Stage2Error", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(complete(layer("garbage")))
      expect(error.message).toBe("claude -p returned non-JSON output")
    }))

  it.live("no claude on PATH is a Stage2Error that says what to do, without the prompt", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(complete(layer("structured", null, {}, emptyDir)))
      expect(error).toMatchObject({
        _tag: "Stage2Error",
        client: "claude-code",
        message: 'Claude Code CLI "claude" not found on PATH: install Claude Code, or use --stage2-client anthropic'
      })
    }))

  it.live("a hung claude is killed after stage2_timeout_seconds", () =>
    Effect.gen(function* () {
      resetRecord()
      const started = Date.now()
      const error = yield* Effect.flip(complete(layer("sleep", null, { stage2_timeout_seconds: "1" })))
      expect(error.message).toBe("claude -p timed out after 1 s")
      expect(Date.now() - started).toBeLessThan(4_000)
      const pid = readRecord()[0]!.pid
      const alive = (() => {
        try {
          process.kill(pid, 0)
          return true
        } catch {
          return false
        }
      })()
      expect(alive).toBe(false)
    }))

  it.live("runStage2 through the fake CLI: validated candidates come back; a failing run only skips its chunk", () =>
    Effect.gen(function* () {
      resetRecord()
      const logs = captureLogs()
      const answer = { memories: [memory({ content: "The user's editor is Helix", sources: [1] })] }
      const ok = yield* runStage2(entries(["hi", "let's go with Helix then"]), new Set()).pipe(
        Effect.provide(Layer.merge(layer("structured", answer), testConfig())),
        Effect.provide(logs.layer)
      )
      expect(ok.map((c) => [c.content, c.keyOverride, c.messageIndex])).toEqual([
        ["The user's editor is Helix", "fact:user preferred editor", 1]
      ])
      expect(readRecord()[0]!.argv[3]).toBe(SYSTEM_PROMPT)
      const failed = yield* runStage2(entries(["hi"]), new Set()).pipe(
        Effect.provide(Layer.merge(layer("is_error"), testConfig())),
        Effect.provide(logs.layer)
      )
      expect(failed).toEqual([])
      expect(logs.lines).toEqual([
        "WARN stage 2: session s1 messages 0-0 skipped: claude -p reported an error: Not logged in · Please run /login"
      ])
    }))
})
