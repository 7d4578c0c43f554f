import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { loadNativeCorpus } from "../../src/eval/corpus.js"
import { loadLongMemEval, parseLongMemEvalDate } from "../../src/eval/longmemeval.js"
import { makeTempDir } from "../support/cli.js"

const FIXTURE = path.resolve(__dirname, "../fixtures/longmemeval-mini.json")

// One folder for the test files of this module, removed when it is done.
const temp = makeTempDir("awhm-eval-test-")
afterAll(temp.cleanup)

const tempFile = (name: string, content: string) => {
  const dir = fs.mkdtempSync(path.join(temp.dir, "case-"))
  const file = path.join(dir, name)
  fs.writeFileSync(file, content)
  return file
}

describe("LongMemEval loader", () => {
  it("parses the benchmark's dates as UTC", () => {
    expect(parseLongMemEvalDate("2023/05/20 (Sat) 02:21")).toBe("2023-05-20T02:21:00.000Z")
    expect(parseLongMemEvalDate("2023/05/20")).toBe("2023-05-20T00:00:00.000Z")
    expect(parseLongMemEvalDate("2023-05-20T02:21:00Z")).toBe("2023-05-20T02:21:00.000Z")
    expect(parseLongMemEvalDate("2023/02/30 (Thu) 10:00")).toBe(null)
    expect(parseLongMemEvalDate("last Tuesday")).toBe(null)
  })

  it.effect("isolates instances, replays haystack dates as timestamps and asks at the question date", () =>
    Effect.gen(function* () {
      const corpus = yield* loadLongMemEval(FIXTURE)
      expect(corpus.name).toBe("longmemeval-mini")
      // Sessions are namespaced by question id; lme_update_2's haystack is replayed in date order.
      expect(corpus.sessions.map((s) => s.id)).toEqual([
        "lme_user_1/sess_a",
        "lme_update_2/sess_early",
        "lme_update_2/sess_late",
        "lme_temporal_3/sess_dog"
      ])
      const first = corpus.sessions[0]!
      expect(first.messages).toEqual([
        { role: "user", content: "My favourite colour is teal", timestamp: "2023-05-20T02:21:00.000Z" },
        { role: "assistant", content: "Teal is a calm choice.", timestamp: "2023-05-20T02:21:00.001Z" }
      ])
      expect(corpus.sessions[1]!.messages[0]!.timestamp).toBe("2023-04-01T09:00:00.000Z")
      expect(corpus.questions).toEqual([
        {
          id: "lme_user_1",
          question: "What is my favourite colour?",
          expected: ["teal"],
          forbidden: [],
          // The question is dated to the minute: it is asked at the end of that minute.
          asOf: "2023-05-30T10:00:59.999Z",
          category: "single-session-user"
        },
        {
          id: "lme_update_2",
          question: "Which gym do I go to?",
          expected: ["Peak Fitness"],
          forbidden: [],
          asOf: "2023-06-01T08:15:59.999Z",
          category: "knowledge-update"
        },
        {
          id: "lme_temporal_3",
          question: "How many weeks ago did I adopt my dog Biscuit?",
          expected: ["3"],
          forbidden: [],
          asOf: "2023-03-22T12:00:59.999Z",
          category: "temporal-reasoning"
        }
      ])
    })
  )

  it.effect("--limit keeps the first instances; {data: [...]} is accepted", () =>
    Effect.gen(function* () {
      const limited = yield* loadLongMemEval(FIXTURE, 2)
      expect(limited.questions.map((q) => q.id)).toEqual(["lme_user_1", "lme_update_2"])
      expect(limited.sessions).toHaveLength(3)
      const wrapped = tempFile("wrapped.json", JSON.stringify({ data: JSON.parse(fs.readFileSync(FIXTURE, "utf8")) }))
      expect((yield* loadLongMemEval(wrapped)).questions).toHaveLength(3)
    })
  )

  it.effect("a bad record is one error naming the file and the record", () =>
    Effect.gen(function* () {
      const instances = JSON.parse(fs.readFileSync(FIXTURE, "utf8")) as Array<Record<string, unknown>>
      instances[1]!.haystack_dates = ["2023/05/10 (Wed) 18:30", "someday"]
      const badDate = tempFile("bad-date.json", JSON.stringify(instances))
      const e1 = yield* Effect.flip(loadLongMemEval(badDate))
      expect(e1._tag).toBe("CorpusError")
      expect(e1.message).toBe(`malformed corpus ${badDate}: [1].haystack_dates[1]: not a date: "someday"`)

      const badTurn = tempFile("bad-turn.json", JSON.stringify({ instances: [{ question: "q", haystack_sessions: [[{ role: "user" }]] }] }))
      const e2 = yield* Effect.flip(loadLongMemEval(badTurn))
      expect(e2.message).toBe(`malformed corpus ${badTurn}: instances[0].haystack_sessions[0][0].content: is missing`)
    })
  )
})

describe("native corpus loader", () => {
  it.effect("defaults ids to the index and maps unknown roles as the reference", () =>
    Effect.gen(function* () {
      const file = tempFile(
        "native.json",
        JSON.stringify({
          sessions: [
            { messages: [{ role: "Assistant", content: "Hi" }, { role: "human", content: "Hello" }, { content: "x" }] },
            { id: 7, messages: [{ role: "tool_result", content: "ok", timestamp: "2024-01-02" }] }
          ],
          questions: [{ question: "Q?", expected: ["a", 1], as_of: "2024-01-03T00:00:00Z", category: 2 }]
        })
      )
      const corpus = yield* loadNativeCorpus(file)
      expect(corpus.name).toBe("native")
      expect(corpus.sessions).toEqual([
        {
          id: "0",
          messages: [
            { role: "assistant", content: "Hi", timestamp: null },
            { role: "user", content: "Hello", timestamp: null },
            { role: "user", content: "x", timestamp: null }
          ]
        },
        { id: "7", messages: [{ role: "tool_result", content: "ok", timestamp: "2024-01-02T00:00:00.000Z" }] }
      ])
      expect(corpus.questions).toEqual([
        { id: "0", question: "Q?", expected: ["a", "1"], forbidden: [], asOf: "2024-01-03T00:00:00.000Z", category: "2" }
      ])
    })
  )

  it.effect("unreadable, unparsable and malformed files each give one clear error", () =>
    Effect.gen(function* () {
      const missing = path.join(temp.dir, "awhm-no-such-corpus.json")
      expect((yield* Effect.flip(loadNativeCorpus(missing))).message).toBe(`cannot read corpus ${missing}: ENOENT`)

      const notJson = tempFile("broken.json", "{\"sessions\": [")
      const e = yield* Effect.flip(loadNativeCorpus(notJson))
      expect(e.message.startsWith(`corpus ${notJson} is not valid JSON (`)).toBe(true)

      const badQuestion = tempFile("bad-question.json", JSON.stringify({ questions: [{ question: "ok" }, { expected: ["x"] }] }))
      expect((yield* Effect.flip(loadNativeCorpus(badQuestion))).message).toBe(
        `malformed corpus ${badQuestion}: questions[1].question: is missing`
      )

      const badAsOf = tempFile("bad-asof.json", JSON.stringify({ questions: [{ question: "ok", as_of: "tomorrow" }] }))
      expect((yield* Effect.flip(loadNativeCorpus(badAsOf))).message).toBe(
        `malformed corpus ${badAsOf}: questions[0].as_of: not a date: "tomorrow"`
      )
    })
  )
})
