import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { GraphTuning } from "../../src/layers/retriever/engine.js"
import { RawLog } from "../../src/services/RawLog.js"
import { Retriever } from "../../src/services/Retriever.js"
import { graphOf, node, world } from "./support.js"

// A memory that shares no word with the question but the name of a person who said the candidates (metadata.speaker)
// is no lexical match: "Melanie: Yeah, here is one I did last week." says nothing about where Melanie camped, though
// a short memory matches the name about as well as a whole answer matches the question.

const GRAPH = graphOf([
  node("short", "Melanie: Yeah, here is one I did last week."),
  node("camp", "Melanie: We camped in the mountains with the kids last summer."),
  node("c1", "Caroline: We camped by a lake, and camped again at the beach."),
  node("c2", "Caroline: Jo camped too."),
  node("c3", "Caroline: They camped at the beach.")
])

const ask = (query: string, graphTuning?: Partial<GraphTuning>) =>
  Effect.gen(function* () {
    const log = yield* RawLog
    yield* log.append({ sessionId: "s1", role: "user", content: "Melanie: We camped in the mountains with the kids last summer.", metadata: { speaker: "Melanie" } })
    yield* log.append({ sessionId: "s1", role: "user", content: "Caroline: That sounds lovely!", metadata: { speaker: "Caroline" } })
    const results = yield* Effect.flatMap(Retriever, (r) => r.retrieve(query, { k: 10, lexicalOnly: true }))
    return results.map((r) => `${r.source} ${r.content}`)
  }).pipe(Effect.provide(world({ graph: GRAPH, ...(graphTuning === undefined ? {} : { graphTuning }) })))

describe("a memory that matches a question only by a speaker's name", () => {
  it.effect("is not a result", () =>
    Effect.map(ask("Where has Melanie camped?"), (lines) =>
      expect(lines).toEqual(["graph Melanie: We camped in the mountains with the kids last summer."])
    ))

  it.effect("without the rule, is one", () =>
    Effect.map(ask("Where has Melanie camped?", { nameOnlyNoMatch: false }), (lines) =>
      expect(lines).toEqual(["graph Melanie: We camped in the mountains with the kids last summer.", "graph Melanie: Yeah, here is one I did last week."])
    ))
})
