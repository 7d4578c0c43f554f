import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { onlyAsks, type RawTuning } from "../../src/layers/retriever/engine.js"
import { RawLog } from "../../src/services/RawLog.js"
import { Retriever } from "../../src/services/Retriever.js"
import { world } from "./support.js"

// Three rules of the raw log's ranking for conversations between people (metadata.speaker):
// - a question that names one of the people who said the candidates is answered by that person's lines: another
//   person's lines count for otherAuthorShare of their score ("Where has Melanie camped?");
// - a line that only asks says nothing: it counts for questionShare of its score, while the answer after it still
//   borrows from it;
// - a line of the named person that says nothing of their own (no "I", "my", "we"…) reacts to the other's things: it
//   counts for reactionShare of its score.

/** Logs [speaker, text] lines of people to a session. */
const say = (sessionId: string, lines: ReadonlyArray<readonly [string, string]>) =>
  Effect.flatMap(RawLog, (log) =>
    Effect.forEach(lines, ([speaker, content]) => log.append({ sessionId, role: "user", content, metadata: { speaker } }))
  )

const top = (query: string, chat: Effect.Effect<unknown, unknown, RawLog>, rawTuning?: Partial<RawTuning>) =>
  Effect.gen(function* () {
    yield* chat
    const results = yield* Effect.flatMap(Retriever, (r) => r.retrieve(query, { k: 10, lexicalOnly: true }))
    return results.map((r) => r.content)
  }).pipe(Effect.provide(world(rawTuning === undefined ? undefined : { rawTuning })))

const CAMPING = Effect.gen(function* () {
  yield* say("s1", [["Caroline", "I camped at the beach, we camped all week!"], ["Melanie", "Nice."]])
  yield* say("s2", [["Melanie", "We camped in the mountains last month."], ["Caroline", "Fun."]])
})

describe("a question that names one person", () => {
  it.effect("ranks that person's line above another person's that matches more of its words", () =>
    Effect.map(top("Where has Melanie camped?", CAMPING), (lines) =>
      expect(lines.slice(0, 2)).toEqual(["We camped in the mountains last month.", "I camped at the beach, we camped all week!"])
    )
  )

  it.effect("without the rule, the other person's line comes first", () =>
    Effect.map(top("Where has Melanie camped?", CAMPING, { otherAuthorShare: 1 }), (lines) =>
      expect(lines.slice(0, 2)).toEqual(["I camped at the beach, we camped all week!", "We camped in the mountains last month."])
    )
  )

  it.effect("a question that names both people favours neither", () =>
    Effect.map(top("Where have Melanie and Caroline camped?", CAMPING), (lines) =>
      expect(lines.slice(0, 2)).toEqual(["I camped at the beach, we camped all week!", "We camped in the mountains last month."])
    )
  )
})

const POTTERY = Effect.gen(function* () {
  yield* say("s1", [["Ann", "Wow! What pottery did you make at the pottery workshop?"], ["Bo", "Bowls and a cup, the kids loved the clay."]])
  yield* say("s2", [["Bo", "We make pottery at the workshop every Friday."], ["Ann", "Nice."]])
})

describe("a line that only asks", () => {
  it.effect("ranks below a statement that matches fewer of the query's words", () =>
    Effect.map(top("What pottery did they make at the workshop?", POTTERY), (lines) =>
      expect(lines.slice(0, 2)).toEqual(["We make pottery at the workshop every Friday.", "Wow! What pottery did you make at the pottery workshop?"])
    ))

  it.effect("without the rule, comes first", () =>
    Effect.map(top("What pottery did they make at the workshop?", POTTERY, { questionShare: 1 }), (lines) =>
      expect(lines.slice(0, 2)).toEqual(["Wow! What pottery did you make at the pottery workshop?", "We make pottery at the workshop every Friday."])
    ))

  it.effect("counts in full when nobody is named as its author (what a user asks an assistant)", () =>
    Effect.map(
      top(
        "What pottery did they make at the workshop?",
        Effect.flatMap(RawLog, (log) =>
          Effect.forEach(
            ["Wow! What pottery did you make at the pottery workshop?", "We make pottery at the workshop every Friday."],
            (content) => log.append({ sessionId: "s1", role: "user", content })
          )
        )
      ),
      (lines) => expect(lines.slice(0, 2)).toEqual(["Wow! What pottery did you make at the pottery workshop?", "We make pottery at the workshop every Friday."])
    ))

  it("is told from a line that also says something", () => {
    expect(onlyAsks("Wow! What made you try pottery?")).toBe(true)
    expect(onlyAsks("What's your best camping memory? [shares a photo of a tent]")).toBe(true)
    expect(onlyAsks("I made a bowl last week. Have you tried it?")).toBe(false)
    expect(onlyAsks("I made a bowl last week.")).toBe(false)
  })
})

const PAINTING = Effect.gen(function* () {
  yield* say("s1", [["Caroline", "Look at my sunset!"], ["Melanie", "Wow, Caroline, that painting is awesome!"]])
  yield* say("s2", [["Caroline", "How was your weekend?"], ["Melanie", "Here is a photo of my horse painting from last week."]])
})

describe("a named person's line that says nothing of their own", () => {
  it.effect("ranks below that person's line about their own things", () =>
    Effect.map(top("What painting has Melanie done?", PAINTING), (lines) =>
      expect(lines.slice(0, 2)).toEqual(["Here is a photo of my horse painting from last week.", "Wow, Caroline, that painting is awesome!"])
    ))

  it.effect("without the rule, comes first", () =>
    Effect.map(top("What painting has Melanie done?", PAINTING, { reactionShare: 1 }), (lines) =>
      expect(lines.slice(0, 2)).toEqual(["Wow, Caroline, that painting is awesome!", "Here is a photo of my horse painting from last week."])
    ))

  it.effect("counts in full when the question is in the first person", () =>
    Effect.map(top("What painting did I see from Melanie?", PAINTING), (lines) =>
      expect(lines.slice(0, 2)).toEqual(["Wow, Caroline, that painting is awesome!", "Here is a photo of my horse painting from last week."])
    ))
})
