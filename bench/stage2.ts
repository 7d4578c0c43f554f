// Stage 2 benchmark: what awhm's own code costs around the LLM call (prompt building, decoding,
// validation, and the claude -p process boundary), measured with a mock client and a fake `claude`.
// The model's own latency is not measured here (no network, no login in benchmarks).
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { RawLogEntry } from "../src/domain/Message.js"
import { STAGE2_JSON_SCHEMA } from "../src/domain/Stage2Proposal.js"
import { ConfigFromValues } from "../src/layers/ConfigLive.js"
import { makeStage2ClaudeCode } from "../src/layers/Stage2ClaudeCode.js"
import { Stage2Mock } from "../src/layers/Stage2Mock.js"
import { runStage2 } from "../src/programs/stage2.js"
import { Stage2Client } from "../src/services/Stage2Client.js"
import { median } from "./stats.js"

const RUNS = 7

const timeMs = async (f: () => Promise<unknown>) => {
  const t = performance.now()
  await f()
  return performance.now() - t
}

const messages = (n: number) =>
  Array.from(
    { length: n },
    (_, i) =>
      new RawLogEntry({
        timestamp: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
        session_id: "bench",
        role: i % 2 === 0 ? "user" : "assistant",
        content: `Message ${i}: let's go with option ${i % 7} for the deployment of service ${i % 13}, it worked last time.`,
        metadata: {},
        index: i
      })
  )

const proposals = (first: number, count: number) => ({
  memories: Array.from({ length: count }, (_, j) => ({
    content: `The user decided on option ${j} for service ${first + j}`,
    type: "semantic",
    slot: `service ${first + j} option`,
    valid_from: j % 3 === 0 ? "2026-01-01" : null,
    valid_to: null,
    confidence: 0.8,
    sources: [first + (j % 10)],
    supersedes_previous: false
  }))
})

const config = ConfigFromValues(path.join(os.tmpdir(), "awhm-bench-stage2-none"))
const quiet = Logger.minimumLogLevel(LogLevel.None)

export async function run(): Promise<string> {
  // 1. 600 messages, 10 chunks, 200 proposals per answer (the per-chunk maximum): all awhm-side work.
  const input = messages(600)
  const known = new Set(Array.from({ length: 300 }, (_, i) => `known statement ${i}`))
  let kept = 0
  const full: Array<number> = []
  for (let r = 0; r < RUNS; r++) {
    const mock = Stage2Mock((req) => proposals(Number(/\[(\d+)\]/.exec(req.user)?.[1] ?? 0), 200))
    full.push(
      await timeMs(async () => {
        const out = await Effect.runPromise(
          runStage2(input, known).pipe(Effect.provide(Layer.mergeAll(mock, config, quiet)))
        )
        kept = out.length
      })
    )
  }

  // 2. One claude -p round trip through a fake executable that answers at once: the process boundary.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "awhm-bench-claude-"))
  const answer = JSON.stringify({ is_error: false, result: "", structured_output: proposals(0, 20) })
  fs.writeFileSync(path.join(dir, "claude"), `#!${process.execPath}\nprocess.stdout.write(${JSON.stringify(answer)})\n`, {
    mode: 0o755
  })
  const layer = makeStage2ClaudeCode({ env: { PATH: dir } }).pipe(Layer.provide(config))
  const request = { system: "s", user: "Transcript:\n[0] user: hi", schema: STAGE2_JSON_SCHEMA }
  const calls: Array<number> = []
  try {
    for (let r = 0; r < RUNS; r++) {
      calls.push(await timeMs(() => Effect.runPromise(Effect.flatMap(Stage2Client, (c) => c.complete(request)).pipe(Effect.provide(layer)))))
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }

  const fullMs = median(full)
  return [
    "## Stage 2",
    "",
    `Medians of ${RUNS} runs, with a mock client and a fake \`claude\` (no model): awhm's own cost around the LLM,`,
    "small next to a real `claude -p` call (seconds per chunk).",
    "",
    "| What | Median |",
    "|---|---|",
    `| runStage2, 600 messages in 10 chunks, 200 proposals decoded and validated per chunk (${kept} kept) | ${fullMs.toFixed(1)} ms (${((fullMs / 2000) * 1000).toFixed(1)} µs per proposal) |`,
    `| One Stage2ClaudeCode call through a fake \`claude\` (node) that answers at once: spawn, collect, parse | ${median(calls).toFixed(1)} ms |`,
    ""
  ].join("\n")
}
