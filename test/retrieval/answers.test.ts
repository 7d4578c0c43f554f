import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { Role } from "../../src/domain/Message.js"
import { RawLog } from "../../src/services/RawLog.js"
import { Retriever } from "../../src/services/Retriever.js"
import { world } from "./support.js"

// A reply answers what came before it: the line after a question another person asked borrows more of the
// question's score (answerWeight) than a neighbour does, so "Three times a week" comes back for "How often…".

const QUERY = "How often does he work out with the family?"
const QUESTION = "How often do you work out with your family?"
const ANSWER = "Three times a week, it keeps the family on track."
const OTHER = "My whole family is into sport and we often work out on weekends."

const ask = Effect.flatMap(Retriever, (r) => r.retrieve(QUERY, { k: 10, lexicalOnly: true }))

/** Logs [role, speaker or null, text] lines to a session. */
const say = (sessionId: string, lines: ReadonlyArray<readonly [Role, string | null, string]>) =>
  Effect.flatMap(RawLog, (log) =>
    Effect.forEach(lines, ([role, speaker, content]) =>
      log.append({ sessionId, role, content, ...(speaker === null ? {} : { metadata: { speaker } }) })
    )
  )

const chat = (asker: readonly [Role, string | null], answerer: readonly [Role, string | null]) =>
  Effect.gen(function* () {
    yield* say("s1", [[...asker, QUESTION], [...answerer, ANSWER]])
    yield* say("s2", [["user", "Ann", OTHER], ["user", "Bo", "Good for you."]])
    yield* say("s3", [["user", "Ann", "We often go out for a walk."], ["user", "Bo", "Nice."]])
  })

/** The top three after a chat of `asker`'s question and `answerer`'s reply (see chat), with the default tuning or `rawTuning`. */
const topThree = (asker: readonly [Role, string | null], answerer: readonly [Role, string | null], rawTuning?: { readonly answerWeight: number }) =>
  Effect.gen(function* () {
    yield* chat(asker, answerer)
    return (yield* ask).slice(0, 3).map((r) => r.content)
  }).pipe(Effect.provide(world(rawTuning === undefined ? undefined : { rawTuning })))

describe("the answer to a question that matches the query", () => {
  it.effect("comes back right after the question another person asked, above a line that matches the query better", () =>
    Effect.map(topThree(["user", "Maria"], ["user", "John"]), (top) => expect(top).toEqual([QUESTION, ANSWER, OTHER]))
  )

  it.effect("ranks below that line when it borrows only what a neighbour does", () =>
    Effect.map(topThree(["user", "Maria"], ["user", "John"], { answerWeight: 0 }), (top) => expect(top).toEqual([QUESTION, OTHER, ANSWER]))
  )

  it.effect("a line after its own author's question, or after an assistant's, is no answer to it", () =>
    Effect.map(topThree(["user", "John"], ["user", "John"]), (top) => expect(top).toEqual([QUESTION, OTHER, ANSWER]))
  )

  it.effect("nor is a user's reply to an assistant's question", () =>
    Effect.map(topThree(["assistant", null], ["user", null]), (top) => expect(top).toEqual([QUESTION, OTHER, ANSWER]))
  )
})
