import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { MOCK_DIMENSION, MOCK_MODEL_ID, mockEmbedding } from "../../src/layers/EmbedderMock.js"
import { Embedder } from "../../src/services/Embedder.js"
import { RawLog } from "../../src/services/RawLog.js"
import { Retriever } from "../../src/services/Retriever.js"
import { summarySubject } from "../../src/text/summaryRequest.js"
import { logAll, world } from "./support.js"

// A request for a summary is mostly frame (the request, the conversation, the parts a summary has, the course of
// time); it is ranked on its subject, by words and by meaning.

describe("the subject of a summary request", () => {
  it("is its words without the frame, in order", () => {
    expect(summarySubject("Can you give me a summary of how I’ve been managing my diabetes recently?")).toBe("managing diabetes")
    expect(summarySubject("Can you summarize what I learned about finding maxima and minima using derivatives?")).toBe(
      "finding maxima minima using derivatives"
    )
    expect(
      summarySubject(
        "Can you provide a detailed summary of how my laptop selection and video editing workflow evolved over time, including the key decisions, challenges, and improvements?"
      )
    ).toBe("laptop selection video editing workflow")
    expect(summarySubject("Can you give me a summary of my efforts to rebuild trust with Rachael?")).toBe("efforts rebuild trust Rachael")
  })

  it("is null when the query asks for no summary, or names no subject", () => {
    expect(summarySubject("How am I managing my diabetes?")).toBeNull()
    expect(summarySubject("Can you provide a detailed and comprehensive summary of the entire process, including all key developments?")).toBeNull()
  })
})

const REQUEST =
  "Can you give me a detailed summary of how my diabetes management evolved over time, including the key challenges and solutions we discussed?"
const FRAME_REPLY = (i: number) => `Project note ${i}: here is a detailed summary of the key challenges and solutions we discussed, and how they evolved over time.`
const SUBJECT_LINE = "My diabetes management plan: check glucose before breakfast."

describe("a request for a summary", () => {
  it.effect("finds its subject's line by its words though twelve lines share more of the request's frame", () =>
    Effect.gen(function* () {
      for (let i = 0; i < 12; i++) yield* logAll(`f${i}`, [["user", FRAME_REPLY(i)]])
      for (let i = 0; i < 180; i++) yield* logAll(`o${i}`, [["user", `Weather talk number ${i} about rain and wind.`]])
      yield* logAll("d", [["user", SUBJECT_LINE]])
      const retriever = yield* Retriever
      const found = yield* retriever.retrieve(REQUEST, { k: 10 })
      expect(found.findIndex((r) => r.content === SUBJECT_LINE)).toBe(0)
      // Without meaning the whole request is ranked: its frame's words reach those lines first.
      const lexical = yield* retriever.retrieve(REQUEST, { k: 10, lexicalOnly: true })
      expect(lexical.findIndex((r) => r.content === SUBJECT_LINE)).toBe(-1)
      expect(lexical.filter((r) => r.content.startsWith("Project note")).length).toBe(10)
    }).pipe(Effect.provide(world()))
  )

  // The request's meaning is near a reflective line that names nothing of the subject; the subject's meaning is the
  // subject line's. The embedder is asked for the subject, not the request.
  const REFLECTIVE = "I'm trying to keep track of how things changed over time."
  const SUBJECT_BY_MEANING = "Checked glucose twice a day this week."
  const asked: Array<string> = []
  const embedder = Layer.succeed(
    Embedder,
    Embedder.of({
      modelId: MOCK_MODEL_ID,
      enabled: true,
      dimension: MOCK_DIMENSION,
      embed: (texts) =>
        Effect.sync(() => {
          asked.push(...texts)
          const unit = (i: number) => {
            const v = new Float32Array(MOCK_DIMENSION)
            v[i] = 1
            return v
          }
          return texts.map((t) =>
            t === REQUEST || t === REFLECTIVE ? unit(0) : t === "diabetes management" || t === SUBJECT_BY_MEANING ? unit(1) : mockEmbedding(t)
          )
        })
    })
  )

  it.effect("finds its subject's line by meaning, not the lines whose meaning is near the request's frame", () =>
    Effect.gen(function* () {
      const log = yield* RawLog
      yield* log.append({ sessionId: "a", role: "user", content: REFLECTIVE })
      yield* log.append({ sessionId: "b", role: "user", content: SUBJECT_BY_MEANING })
      const results = yield* Effect.flatMap(Retriever, (r) => r.retrieve(REQUEST, { k: 10 }))
      expect(results.map((r) => r.content)).toEqual([SUBJECT_BY_MEANING])
      expect(asked).toContain("diabetes management")
      expect(asked).not.toContain(REQUEST)
    }).pipe(Effect.provide(world({ embedder })))
  )
})
