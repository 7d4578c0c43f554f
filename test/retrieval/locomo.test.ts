import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { loadConfig } from "../../src/layers/ConfigLive.js"
import { MOCK_DIMENSION, MOCK_MODEL_ID, mockEmbedding } from "../../src/layers/EmbedderMock.js"
import { loadLocomo, locomoRecall, parseLocomoDate, replayLocomo, turnContent, type LocomoCase } from "../../src/eval/locomoReplay.js"
import { scopedTempDir } from "../support/cli.js"

// A two-session conversation in LoCoMo's format (made up here; the real file is never copied).
const sample = {
  sample_id: "conv-x",
  conversation: {
    speaker_a: "Ana",
    speaker_b: "Ben",
    session_1_date_time: "1:56 pm on 8 May, 2023",
    session_1: [
      { speaker: "Ana", dia_id: "D1:1", text: "I adopted a greyhound called Pixel last week!" },
      { speaker: "Ben", dia_id: "D1:2", text: "Congrats! Here is my cat.", img_url: ["x"], blip_caption: "a photo of a grey cat on a sofa" }
    ],
    session_2_date_time: "12:05 am on 1 June, 2023",
    session_2: [
      { speaker: "Ben", dia_id: "D2:1", text: "How is Pixel doing?" },
      { speaker: "Ana", dia_id: "D2:2", text: "He loves the beach and runs every morning." }
    ]
  },
  qa: [
    { question: "What is the name of Ana's dog?", answer: "Pixel", evidence: ["D1:1"], category: 4 },
    { question: "What pet does Ben have?", answer: "a cat", evidence: ["D1:2"], category: 1 },
    { question: "What does Pixel love?", answer: "the beach", evidence: ["D2:1; D2:2"], category: 2 },
    { question: "What is Ben's dog called?", adversarial_answer: "Pixel", evidence: ["D1:1"], category: 5 },
    { question: "Unanswerable?", answer: "x", evidence: [], category: 3 }
  ]
}

const mockEmbedder = {
  modelId: MOCK_MODEL_ID,
  enabled: true,
  dimension: MOCK_DIMENSION,
  embed: (texts: ReadonlyArray<string>) => Effect.succeed(texts.map(mockEmbedding))
}

describe("LoCoMo", () => {
  it("parses LoCoMo session dates (12 am is midnight, 12 pm noon)", () => {
    expect(parseLocomoDate("1:56 pm on 8 May, 2023")).toBe("2023-05-08T13:56:00.000Z")
    expect(parseLocomoDate("12:05 am on 1 June, 2023")).toBe("2023-06-01T00:05:00.000Z")
    expect(parseLocomoDate("12:30 pm on 23 January, 2024")).toBe("2024-01-23T12:30:00.000Z")
    expect(parseLocomoDate("yesterday")).toBeNull()
  })

  it.scoped("loads conversations, captions and the questions of categories 1-4 that cite evidence", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir("awhm-locomo-")
      const file = path.join(dir, "locomo.json")
      fs.writeFileSync(file, JSON.stringify([sample]))
      const [conv] = yield* loadLocomo(file)
      expect(conv!.sessions.map((s) => [s.id, s.timestamp, s.turns.length])).toEqual([
        ["conv-x/session_1", "2023-05-08T13:56:00.000Z", 2],
        ["conv-x/session_2", "2023-06-01T00:05:00.000Z", 2]
      ])
      expect(turnContent(conv!.sessions[0]!.turns[1]!)).toBe("Ben: Congrats! Here is my cat. [shares a photo of a grey cat on a sofa]")
      expect(conv!.questions.map((q) => [q.id, q.category, q.evidence])).toEqual([
        ["locomo_0_qa0", 4, ["D1:1"]],
        ["locomo_0_qa1", 1, ["D1:2"]],
        ["locomo_0_qa2", 2, ["D2:1", "D2:2"]]
      ])
      const bad = yield* Effect.flip(loadLocomo(path.join(dir, "missing.json")))
      expect(bad._tag).toBe("InvalidInput")
    })
  )

  it("recall_any@k and recall_all@k, overall and per category; audited evidence replaces the cited one", () => {
    const cases: Array<LocomoCase> = [
      { id: "a", category: 1, evidence: ["D1:1", "D1:2"], retrieved: [["D9:9"], ["D1:2"], [], ["D1:1"]], latencyMs: 1 },
      { id: "b", category: 4, evidence: ["D2:2"], retrieved: [["D2:1"], ["D1:1"], ["D1:2"], ["D1:3"], ["D1:4"], ["D2:2"]], latencyMs: 1 }
    ]
    const r = locomoRecall(cases)
    expect(r.overall).toEqual({ questions: 2, recallAnyAt5: 0.5, recallAnyAt10: 1, recallAllAt10: 1 })
    expect(r.byCategory["1"]).toEqual({ questions: 1, recallAnyAt5: 1, recallAnyAt10: 1, recallAllAt10: 1 })
    expect(r.byCategory["4"]).toEqual({ questions: 1, recallAnyAt5: 0, recallAnyAt10: 1, recallAllAt10: 1 })
    expect(locomoRecall(cases, new Map([["b", ["D9:9"]]])).overall.recallAnyAt10).toBe(0.5)
  })

  it.scoped("replay: logs, consolidates, asks, and maps results to dialogue ids through their provenance", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir("awhm-locomo-")
      const file = path.join(dir, "locomo.json")
      fs.writeFileSync(file, JSON.stringify([sample]))
      const conversations = yield* loadLocomo(file)
      const config = { ...(yield* loadConfig({ data_dir: dir }, {})), embedder: "mock" as const }
      const replay = yield* replayLocomo(conversations, { config, embedder: mockEmbedder })
      expect(replay.messages).toBe(4)
      expect(replay.cases.map((c) => c.id)).toEqual(["locomo_0_qa0", "locomo_0_qa1", "locomo_0_qa2"])
      const first = replay.cases[0]!
      expect(first.retrieved[0]).toEqual(["D1:1"])
      expect(locomoRecall(replay.cases).overall.recallAnyAt10).toBe(1)
    })
  )
})
