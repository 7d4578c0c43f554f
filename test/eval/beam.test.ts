import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { abilityFigures, scoreBeam } from "../../src/eval/beam.js"
import { beamTargets, parseTimeAnchor } from "../../src/eval/beamCorpus.js"
import { makeTempDir, runAwhm } from "../support/cli.js"

// `awhm eval --format beam` on a two-batch chat written here in BEAM's format (not a copy of BEAM).

const tmp = makeTempDir("awhm-eval-beam-")
afterAll(tmp.cleanup)

const user = (id: number, content: string, extra: Record<string, unknown> = {}) => ({ role: "user", id, content, ...extra })
const assistant = (id: number, content: string) => ({ role: "assistant", id, content })

const CHAT = [
  {
    batch_number: 1,
    time_anchor: null,
    turns: [
      [
        user(0, "I'm setting up the team wiki. Our repo has 150 commits merged so far. ->-> 1,1", { time_anchor: "January-05-2024" }),
        assistant(1, "Great progress on the wiki.")
      ],
      [user(2, "I've never written integration tests for the socket events."), assistant(3, "They help catch regressions.")]
    ]
  },
  {
    batch_number: 2,
    time_anchor: null,
    turns: [
      [user(4, "Good news: the repo has now reached 165 commits. ->-> 2,1", { time_anchor: "February-10-2024" }), assistant(5, "Congratulations!")],
      [user(6, "I wrote integration tests for the socket events with Jest yesterday."), assistant(7, "Jest works well for that.")]
    ]
  }
]

const QUESTIONS = {
  abstention: [{ question: "What is my cat's name?", answer: "unknown" }],
  contradiction_resolution: [
    {
      question: "Have I ever written integration tests for the socket events?",
      source_chat_ids: { first_statement: [2], second_statement: [6] }
    }
  ],
  information_extraction: [{ question: "What am I setting up for the team?", source_chat_ids: [0] }],
  knowledge_update: [
    { question: "How many commits does the repo have?", source_chat_ids: { original_info: [0], updated_info: [4] } },
    // The same turn on both sides cannot be scored: skipped.
    { question: "How many commits?", source_chat_ids: { original_info: [4], updated_info: [4] } }
  ]
}

const chatDir = path.join(tmp.dir, "chats", "1")
fs.mkdirSync(chatDir, { recursive: true })
fs.writeFileSync(path.join(chatDir, "chat.json"), JSON.stringify(CHAT))
fs.writeFileSync(path.join(chatDir, "probing_questions.json"), JSON.stringify(QUESTIONS))

describe("BEAM targets and scores", () => {
  it("reads time anchors; skips questions without ids or with the same ids on both sides", () => {
    expect(parseTimeAnchor("January-05-2024")).toBe("2024-01-05T00:00:00.000Z")
    expect(parseTimeAnchor("05/01/2024")).toBe(null)
    expect(beamTargets("abstention", undefined)).toBe(null)
    expect(beamTargets("knowledge_update", { original_info: [3], updated_info: [3] })).toBe(null)
    expect(beamTargets("temporal_reasoning", { first_event: [604], second_event: [604] })).toBe(null)
    expect(beamTargets("event_ordering", [22, 128, 22])).toEqual({ kind: "any", ids: [22, 128] })
  })

  it("target ranks, MRR, the stale-first rate and both contradiction statements", () => {
    const update = beamTargets("knowledge_update", { original_info: [1], updated_info: [2] })!
    const contradiction = beamTargets("contradiction_resolution", { first_statement: [9], second_statement: [3] })!
    const scored = [
      { ability: "knowledge_update", kind: update.kind, outcome: scoreBeam(update, [[1], [2]]) }, // stale first
      { ability: "knowledge_update", kind: update.kind, outcome: scoreBeam(update, [[5], [2], [1]]) },
      { ability: "knowledge_update", kind: update.kind, outcome: scoreBeam(update, [[1]]) }, // stale without the target
      { ability: "knowledge_update", kind: update.kind, outcome: scoreBeam(update, [[7]]) },
      // The later statement (id 9) is the target; both are in the top 10.
      { ability: "contradiction_resolution", kind: contradiction.kind, outcome: scoreBeam(contradiction, [[3], [4], [9]]) }
    ]
    expect(abilityFigures(scored)).toEqual({
      contradiction_resolution: { questions: 1, target_at_5: 1, target_at_10: 1, mrr: 1 / 3, both_at_10: 1 },
      knowledge_update: { questions: 4, target_at_5: 0.5, target_at_10: 0.5, mrr: (1 / 2 + 1 / 2) / 4, stale_first_rate: 0.5 }
    })
  })
})

describe("awhm eval --format beam", () => {
  it("replays the chat, reports per ability beside plain BM25, lists Stage 1's supersessions", async () => {
    const r = await runAwhm(["eval", "--format", "beam", "--corpus", path.join(tmp.dir, "chats"), "--json"], { timeoutMs: 120_000 })
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    const report = JSON.parse(r.stdout)
    expect(report).toMatchObject({ corpus: "chats", format: "beam", embedder: "mock-hash-384", chats: 1, messages: 8, questions: 3, k: 5 })
    expect(Object.keys(report.abilities)).toEqual(["contradiction_resolution", "information_extraction", "knowledge_update"])
    // The update comes first; the stale turn is still returned, below it.
    expect(report.abilities.knowledge_update).toEqual({ questions: 1, target_at_5: 1, target_at_10: 1, mrr: 1, stale_first_rate: 0 })
    expect(report.abilities.contradiction_resolution).toMatchObject({ questions: 1, target_at_10: 1, both_at_10: 1 })
    expect(report.anchor.knowledge_update.questions).toBe(1)
    // Stage 1 put the commit count's two statements in one slot: the one update pair is reached.
    expect(report.supersessions).toEqual({
      count: 1,
      update_pairs: 1,
      update_pairs_superseded: 1,
      sample: [{ chat: "1", superseded: "Our repo has 150 commits merged so far.", by: "Good news: the repo has now reached 165 commits.", at: "2024-02-10T00:00:00.000Z" }]
    })
    // A contradiction case says where each of its two statements ranks: the denial first, the later statement beside it.
    expect(report.cases[0].statement_ranks).toEqual([1, 2])
    expect(report.cases.map((c: { id: string }) => c.id)).toEqual([
      "1/contradiction_resolution/0",
      "1/information_extraction/0",
      "1/knowledge_update/0"
    ])
  }, 150_000)

  it("replays messages longer than max_message_chars whole: the replay measures memory, not input limits", async () => {
    const dataDir = path.join(tmp.dir, "small-limit")
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 })
    fs.writeFileSync(path.join(dataDir, "config.json"), JSON.stringify({ max_message_chars: 20 }))
    const r = await runAwhm(["eval", "--format", "beam", "--corpus", path.join(tmp.dir, "chats"), "--json"], { dataDir, timeoutMs: 120_000 })
    expect([r.code, r.stderr]).toEqual([0, ""])
    const report = JSON.parse(r.stdout)
    expect(report).toMatchObject({ chats: 1, messages: 8, questions: 3 })
    expect(report.abilities.knowledge_update).toEqual({ questions: 1, target_at_5: 1, target_at_10: 1, mrr: 1, stale_first_rate: 0 })
  }, 150_000)

  it("a folder without chats is one line on stderr and exit 1", async () => {
    const r = await runAwhm(["eval", "--format", "beam", "--corpus", tmp.dir, "--json"])
    expect(r.code).toBe(1)
    expect(r.stdout).toBe("")
    expect(r.stderr.trim().split("\n")).toHaveLength(1)
    expect(r.stderr).toContain("holds no BEAM chat")
  })
})
