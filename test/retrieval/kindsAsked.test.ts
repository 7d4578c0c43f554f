import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { RawTuning } from "../../src/layers/retriever/engine.js"
import { RawLog } from "../../src/services/RawLog.js"
import { Retriever } from "../../src/services/Retriever.js"
import { kindAsked, kindWordsIn } from "../../src/text/kindsAsked.js"
import { world } from "./support.js"

describe("questions that ask for a person's things of one kind, lines that mention one", () => {
  it("asks for a kind: a plural noun of a kind within four words after what / which", () => {
    const kindOf = (q: string) => kindAsked(q)?.text.split(" ")[0] ?? null
    expect(
      [
        "What activities does Melanie partake in?",
        "What outdoor activities does John enjoy?",
        "What are Joanna's hobbies?",
        "Which books has Tim read?",
        "What pets does Nate have?",
        "What are Nate's favorite desserts?",
        "What instruments does Melanie play?",
        "What LGBTQ+ events has Caroline participated in?"
      ].map(kindOf)
    ).toEqual(["swimming", "swimming", "swimming", "book", "pet", "recipe", "violin", "event"])
    expect(
      [
        "What activity did Caroline used to do with her dad?",
        "What book did Tim read?",
        "What does Melanie do to destress?",
        "Where has Melanie camped?",
        "When did Nate get his pets?",
        "What is one of Joanna's favorite movies?"
      ].map(kindOf)
    ).toEqual([null, null, null, null, null, null])
  })

  it("the things a line mentions: the kind's words in it, as the index stems them", () => {
    const activities = kindAsked("What activities does Melanie partake in?")!
    expect(
      [
        "Melanie: I'm off to go swimming with the kids.",
        "Melanie: We went camping last weekend, then swam at the beach.",
        "Melanie: I signed up for a pottery class.",
        "Melanie: I love being a mom."
      ].map((t) => kindWordsIn(t, activities))
    ).toEqual([["swim"], ["camp", "beach"], ["potteri"], []])
  })
})

/** Logs [speaker, text] lines of people to a session. */
const say = (sessionId: string, lines: ReadonlyArray<readonly [string, string]>) =>
  Effect.flatMap(RawLog, (log) =>
    Effect.forEach(lines, ([speaker, content]) => log.append({ sessionId, role: "user", content, metadata: { speaker } }))
  )

const SWIMMING = "Melanie: Taking care of ourselves is vital. I'm off to go swimming with the kids."
const CAMPING = "Melanie: We went camping with the kids, it was great."
const COOL = "Melanie: Cool, the kids will love it."
const CENTER = "Caroline: The activities at the center were fun, Melanie."

const found = (query: string, rawTuning?: Partial<RawTuning>, forget?: { readonly sessionId: string; readonly index: number }) =>
  Effect.gen(function* () {
    yield* say("s1", [["Caroline", CENTER], ["Caroline", "Caroline: See you soon."]])
    yield* say("s2", [["Melanie", SWIMMING], ["Caroline", "Caroline: Enjoy it."]])
    yield* say("s3", [["Melanie", COOL], ["Caroline", "Caroline: I went swimming once."]])
    yield* say("s4", [["Melanie", CAMPING], ["Caroline", "Caroline: Nice."]])
    yield* Effect.flatMap(Retriever, (r) => r.retrieve(query, { k: 10, lexicalOnly: true }))
    if (forget !== undefined) yield* Effect.flatMap(RawLog, (log) => log.removeEntries(forget.sessionId, new Set([forget.index])))
    const results = yield* Effect.flatMap(Retriever, (r) => r.retrieve(query, { k: 10, lexicalOnly: true }))
    return results.map((r) => r.content)
  }).pipe(Effect.provide(world(rawTuning === undefined ? undefined : { rawTuning })))

describe("a question that asks for a person's things of one kind, against the raw log", () => {
  it.effect("the person's lines that mention one come back as one result", () =>
    Effect.map(found("What activities does Melanie partake in?"), (lines) =>
      expect(lines).toEqual([CENTER, `${CAMPING}\n${SWIMMING}`, COOL])
    )
  )

  it.effect("a forgotten line is in no group: asked again, the one line left is on its own", () =>
    Effect.map(found("What activities does Melanie partake in?", undefined, { sessionId: "s2", index: 0 }), (lines) =>
      expect(lines).toEqual([CENTER, CAMPING, COOL])
    )
  )

  it.effect("a question that asks for no kind ranks each line on its own", () =>
    Effect.map(found("What does Melanie partake in?"), (lines) => expect(lines).toEqual([CAMPING, COOL, SWIMMING, CENTER]))
  )

  it.effect("without the rule, each line on its own", () =>
    Effect.map(found("What activities does Melanie partake in?", { kindGroup: 0 }), (lines) => expect(lines).toEqual([CENTER, CAMPING, COOL, SWIMMING]))
  )
})

describe("a kind question's group lists things", () => {
  const AGAIN = "Melanie: Swimming again, we go swimming every week."
  const POTTERY = "Melanie: My pottery class was fun."
  const group = (max: number) =>
    Effect.gen(function* () {
      yield* say("s1", [["Melanie", AGAIN], ["Caroline", "Caroline: Wow."]])
      yield* say("s2", [["Melanie", SWIMMING], ["Caroline", "Caroline: Enjoy it."]])
      yield* say("s3", [["Melanie", POTTERY], ["Caroline", "Caroline: Nice."]])
      const results = yield* Effect.flatMap(Retriever, (r) => r.retrieve("What activities does Melanie enjoy?", { k: 10, lexicalOnly: true }))
      return results.map((r) => r.content)
    }).pipe(Effect.provide(world({ rawTuning: { kindGroup: max } })))

  it.effect("a line that names only things a better line named stays on its own", () =>
    Effect.map(group(5), (lines) => expect(lines).toEqual(["Caroline: Enjoy it.", `${SWIMMING}\n${POTTERY}`, AGAIN]))
  )

  it.effect("a group of one line is that line", () =>
    Effect.map(group(1), (lines) => expect(lines).toEqual(["Caroline: Enjoy it.", SWIMMING, POTTERY, AGAIN]))
  )
})
