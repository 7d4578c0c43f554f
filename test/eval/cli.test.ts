import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { BIN, makeTempDir, ROOT, runAwhm } from "../support/cli.js"

const FIXTURE = path.join(ROOT, "test", "fixtures", "longmemeval-mini.json")
const tmp = makeTempDir("awhm-eval-cli-")
afterAll(tmp.cleanup)

const writeJson = (name: string, data: unknown) => {
  const file = path.join(tmp.dir, name)
  fs.writeFileSync(file, typeof data === "string" ? data : JSON.stringify(data))
  return file
}

// The reference's own replay example (tests/test_eval/test_replay.py): a correction across two sessions
// and a question nothing answers. One question of two is a hit, so Recall@5 is 0.5; the superseded Python
// never comes back (contradiction 0.0) and the "update" category is fully recalled.
const REFERENCE_EXAMPLE = {
  sessions: [
    {
      id: "s1",
      messages: [
        { role: "user", content: "My preferred language is Python" },
        { role: "assistant", content: "Noted." }
      ]
    },
    { id: "s2", messages: [{ role: "user", content: "Actually, my preferred language is Rust" }] }
  ],
  questions: [
    {
      id: "q1",
      question: "What is my preferred language?",
      expected: ["rust"],
      forbidden: ["python"],
      category: "update"
    },
    { id: "q2", question: "What colour is the sky?", expected: ["blue"] }
  ]
}

// Instance isolation (the reference's LongMemEval scoping test in native form): two instances state
// conflicting values of one slot. Isolated, each question sees only its own instance (recall 1.0); in one
// shared store the later instance supersedes the earlier one (recall 0.5).
const ISOLATION_EXAMPLE = {
  sessions: [
    { id: "a/h1", messages: [{ role: "user", content: "My preferred language is Rust" }, { role: "assistant", content: "Great choice." }] },
    { id: "b/h1", messages: [{ role: "user", content: "My preferred language is Go" }] }
  ],
  questions: [
    { id: "a", question: "What is my preferred language?", expected: ["Rust"], category: "single-session-user" },
    { id: "b", question: "What is my preferred language?", expected: ["Go"], category: "single-session-user" }
  ]
}

describe("awhm eval (built-in benchmark)", () => {
  it("defaults to mock embeddings and gives recall 1.0, no contradiction and a passed deletion audit", () => {
    // No AWHM_* variable at all: the built-in benchmark must not need the real model.
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("AWHM_")))
    const r = spawnSync(process.execPath, [BIN, "eval", "--json"], { env: { ...env, AWHM_DATA_DIR: tmp.dir }, encoding: "utf8", timeout: 60_000 })
    expect(r.stderr).toBe("")
    expect(r.status).toBe(0)
    const report = JSON.parse(r.stdout)
    expect(report.version).toBe("builtin-v1")
    expect(report.embedder).toBe("mock-hash-384")
    expect(report.query_count).toBe(3)
    expect(report.k).toBe(5)
    expect(report.recall_at_k).toBe(1)
    expect(report.contradiction_error_rate).toBe(0)
    expect(report.cases.map((c: { name: string; hit_rank: number }) => [c.name, c.hit_rank])).toEqual([
      ["preferred_language", 1],
      ["api_endpoint", 1],
      ["city", 1]
    ])
    expect(report.ndcg_at_k).toBe(1)
    expect(report.latency_ms.p95).toBeGreaterThanOrEqual(report.latency_ms.p50)
    expect(report.deletion_audit).toMatchObject({
      passed: true,
      logs_clean: true,
      snapshots_clean: true,
      query_clean: true,
      files_clean: true,
      files_with_secret: [],
      deletion_result: { node_deleted: true, snapshots_touched: 1 }
    })
    // The eval ran in a temporary directory: the user's data directory is untouched.
    expect(fs.readdirSync(tmp.dir)).toEqual([])
  })

  it("prints a readable summary by default", async () => {
    const r = await runAwhm(["eval", "-k", "3"], { dataDir: tmp.dir })
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("Recall@3: 1.000")
    expect(r.stdout).toContain("Contradiction error rate: 0.000")
    expect(r.stdout).toContain("Deletion audit: passed")
  })
})

describe("awhm eval --corpus (native replay)", () => {
  it("reproduces the reference's two-question example", async () => {
    const file = writeJson("reference-example.json", REFERENCE_EXAMPLE)
    const r = await runAwhm(["eval", "--corpus", file, "--json"], { dataDir: tmp.dir })
    expect(r.code).toBe(0)
    const report = JSON.parse(r.stdout)
    expect(report).toMatchObject({
      corpus: "reference-example",
      format: "native",
      sessions: 2,
      messages: 3,
      questions: 2,
      k: 5,
      recall_at_k: 0.5,
      ndcg_at_k: 0.5,
      contradiction_error_rate: 0,
      by_category: { all: { questions: 1, recall_at_k: 0 }, update: { questions: 1, recall_at_k: 1 } }
    })
    expect(report.cases.map((c: { id: string; hit_rank: number | null; forbidden_hit: boolean }) => [c.id, c.hit_rank, c.forbidden_hit])).toEqual([
      ["q1", 1, false],
      ["q2", null, false]
    ])
    expect(report.cases[0].top_results[0]).toBe("Actually, my preferred language is Rust")

    // The reference ran it with session_scope=False; unprefixed ids share one store either way.
    const shared = JSON.parse((await runAwhm(["eval", "--corpus", file, "--no-session-scope", "--json"], { dataDir: tmp.dir })).stdout)
    expect([shared.recall_at_k, shared.contradiction_error_rate, shared.cases[0].hit_rank]).toEqual([0.5, 0, 1])

    const human = await runAwhm(["eval", "--corpus", file], { dataDir: tmp.dir })
    expect(human.stdout).toContain("Recall@5: 0.500")
    expect(human.stdout).toContain("update  recall 1.000 over 1")
  })

  it("isolates instances by session-id prefix; --no-session-scope shares one store", async () => {
    const file = writeJson("isolation.json", ISOLATION_EXAMPLE)
    const scoped = JSON.parse((await runAwhm(["eval", "--corpus", file, "--json"], { dataDir: tmp.dir })).stdout)
    expect(scoped.recall_at_k).toBe(1)
    expect(scoped.by_category).toEqual({ "single-session-user": { questions: 2, recall_at_k: 1 } })
    const shared = JSON.parse((await runAwhm(["eval", "--corpus", file, "--no-session-scope", "--json"], { dataDir: tmp.dir })).stdout)
    expect(shared.recall_at_k).toBe(0.5)
    expect(shared.cases.map((c: { hit_rank: number | null }) => c.hit_rank)).toEqual([null, 1])
  })

  it("replays message timestamps and asks each question as of its moment", async () => {
    const file = writeJson("time-travel.json", {
      sessions: [
        { id: "s1", messages: [{ role: "user", content: "My preferred language is Python", timestamp: "2024-01-01T09:00:00Z" }] },
        { id: "s2", messages: [{ role: "user", content: "Actually, my preferred language is Rust", timestamp: "2024-02-01T09:00:00Z" }] }
      ],
      questions: [
        { id: "before", question: "What is my preferred language?", expected: ["python"], forbidden: ["rust"], as_of: "2024-01-15" },
        { id: "after", question: "What is my preferred language?", expected: ["rust"], forbidden: ["python"], as_of: "2024-03-01" }
      ]
    })
    const report = JSON.parse((await runAwhm(["eval", "--corpus", file, "--json"], { dataDir: tmp.dir })).stdout)
    expect(report.cases.map((c: { id: string; hit_rank: number | null; forbidden_hit: boolean }) => [c.id, c.hit_rank, c.forbidden_hit])).toEqual([
      ["before", 1, false],
      ["after", 1, false]
    ])
  })

  it("--raw-log also searches the raw log, so what no rule captured is still found", async () => {
    const file = writeJson("raw-log.json", {
      sessions: [
        {
          id: "s1",
          messages: [
            { role: "user", content: "Can you remind me of my locker code later?" },
            { role: "assistant", content: "Sure. Your locker code is 4417." }
          ]
        }
      ],
      questions: [{ id: "q1", question: "What is my locker code?", expected: ["4417"] }]
    })
    const graphOnly = JSON.parse((await runAwhm(["eval", "--corpus", file, "--json"], { dataDir: tmp.dir })).stdout)
    expect([graphOnly.raw_log, graphOnly.recall_at_k]).toEqual([false, 0])
    const withRawLog = JSON.parse((await runAwhm(["eval", "--corpus", file, "--raw-log", "--json"], { dataDir: tmp.dir })).stdout)
    expect([withRawLog.raw_log, withRawLog.recall_at_k]).toEqual([true, 1])
  })

  it("a malformed corpus is one line naming the file and the first bad record, exit 1", async () => {
    const file = writeJson("malformed.json", { sessions: [{ id: "s1", messages: [{ role: "user", content: "ok" }, { role: "user" }] }] })
    const r = await runAwhm(["eval", "--corpus", file, "--json"], { dataDir: tmp.dir })
    expect(r.code).toBe(1)
    expect(r.stdout).toBe("")
    expect(r.stderr).toBe(`awhm: malformed corpus ${file}: sessions[0].messages[1].content: is missing\n`)

    const broken = writeJson("broken.json", "{\"sessions\": [")
    const b = await runAwhm(["eval", "--corpus", broken], { dataDir: tmp.dir })
    expect(b.code).toBe(1)
    expect(b.stderr.startsWith(`awhm: corpus ${broken} is not valid JSON (`)).toBe(true)
    expect(b.stderr.trimEnd().split("\n")).toHaveLength(1)

    const missing = path.join(tmp.dir, "nope.json")
    const m = await runAwhm(["eval", "--corpus", missing], { dataDir: tmp.dir })
    expect([m.code, m.stderr]).toEqual([1, `awhm: cannot read corpus ${missing}: ENOENT\n`])
  })

  it("--format without --corpus is a usage error", async () => {
    const r = await runAwhm(["eval", "--format", "longmemeval"], { dataDir: tmp.dir })
    expect(r.code).toBe(2)
    expect(r.stderr).toBe("awhm: --format needs --corpus FILE\n")
    const beam = await runAwhm(["eval", "--format", "beam"], { dataDir: tmp.dir })
    expect([beam.code, beam.stderr]).toEqual([2, "awhm: --format beam needs --corpus DIR (a folder of BEAM chats)\n"])
  })
})

describe("awhm eval --format longmemeval", () => {
  it("replays each instance in its own store at its haystack dates and asks at the question date", async () => {
    const r = await runAwhm(["eval", "--corpus", FIXTURE, "--format", "longmemeval", "--json"], { dataDir: tmp.dir })
    expect(r.code).toBe(0)
    const report = JSON.parse(r.stdout)
    expect(report).toMatchObject({ corpus: "longmemeval-mini", format: "longmemeval", sessions: 4, messages: 7, questions: 3 })
    expect(Object.keys(report.by_category)).toEqual(["knowledge-update", "single-session-user", "temporal-reasoning"])
    const byId = Object.fromEntries(report.cases.map((c: { id: string }) => [c.id, c]))
    expect(byId.lme_user_1.hit_rank).toBe(1)
    // The update is current at the question date: Peak Fitness comes first.
    expect(byId.lme_update_2.hit_rank).toBe(1)
    // --longmemeval (the reference's flag) and --limit counting instances.
    const limited = JSON.parse((await runAwhm(["eval", "--corpus", FIXTURE, "--longmemeval", "--limit", "1", "--json"], { dataDir: tmp.dir })).stdout)
    expect([limited.questions, limited.sessions]).toEqual([1, 1])
  })
})

describe("awhm eval --format locomo", () => {
  const LOCOMO = path.join(ROOT, "test", "fixtures", "locomo-mini.json")

  it("reports evidence recall by provenance and answer-substring recall, categories 1-4 only", async () => {
    const r = await runAwhm(["eval", "--corpus", LOCOMO, "--format", "locomo", "--json"], { dataDir: tmp.dir })
    expect(r.code).toBe(0)
    const report = JSON.parse(r.stdout)
    expect(report).toMatchObject({
      corpus: "locomo-mini",
      format: "locomo",
      conversations: 1,
      sessions: 2,
      messages: 5,
      // The adversarial (category 5) question is not asked.
      questions: 3,
      k: 5,
      recall_any_at_10: 1,
      recall_at_k: 1,
      answer_recall_at_k: 1,
      audited: null
    })
    expect(Object.keys(report.by_category).sort()).toEqual(["single-hop", "temporal"])
    expect(report.cases.map((c: { id: string; answer: Array<string> }) => [c.id, c.answer])).toEqual([
      ["locomo_0_qa0", ["Pepper"]],
      ["locomo_0_qa1", ["along the canal"]],
      ["locomo_0_qa2", ["pottery"]]
    ])
    const human = await runAwhm(["eval", "--corpus", LOCOMO, "--format", "locomo"], { dataDir: tmp.dir })
    expect(human.stdout).toContain("Answer substring Recall@5: 1.000")
  })

  it("uses locomo_audit_errors.json beside the corpus for the audited figures", async () => {
    const dir = path.join(tmp.dir, "locomo-audited")
    fs.mkdirSync(dir)
    const file = path.join(dir, "locomo-mini.json")
    fs.copyFileSync(LOCOMO, file)
    fs.writeFileSync(
      path.join(dir, "locomo_audit_errors.json"),
      JSON.stringify([{ question_id: "locomo_0_qa2", error_type: "WRONG_CITATION", correct_evidence: ["D9:9"] }])
    )
    const report = JSON.parse((await runAwhm(["eval", "--corpus", file, "--format", "locomo", "--json"], { dataDir: tmp.dir })).stdout)
    // The corrected citation D9:9 does not exist, so that question can no longer be a hit: 2 of 3.
    expect(report.audited.recall_any_at_10).toBeCloseTo(2 / 3, 12)
    expect(report.recall_any_at_10).toBe(1)
  })

  it("a file that is not LoCoMo is one clear error, exit 1", async () => {
    const file = writeJson("not-locomo.json", [{ conversation: { session_1: [{ speaker: "A" }] }, qa: [] }])
    const r = await runAwhm(["eval", "--corpus", file, "--format", "locomo"], { dataDir: tmp.dir })
    expect(r.code).toBe(1)
    expect(r.stderr).toBe(`awhm: malformed LoCoMo corpus ${file}: conversation 0 session 1 has malformed turns\n`)
  })
})
