import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { strengthOf } from "../../src/domain/strength.js"
import { GraphStore } from "../../src/services/GraphStore.js"
import { RawLog } from "../../src/services/RawLog.js"
import { Retriever } from "../../src/services/Retriever.js"
import { Embedder } from "../../src/services/Embedder.js"
import { countingEmbedder, edge, graphOf, logAll, node, world } from "./support.js"

const retrieve = (query: string, options: Parameters<Retriever["Type"]["retrieve"]>[1] = {}) =>
  Effect.flatMap(Retriever, (r) => r.retrieve(query, options))

describe("buffer", () => {
  it.effect("a relevant buffer hit ranks first, above a graph memory on the same subject; weak hits stay out", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [
        ["user", "I prefer dark mode in every editor"],
        ["user", "The mode switch is broken"]
      ])
      const results = yield* retrieve("dark mode", { sessionId: "s1", lexicalOnly: true })
      expect(results[0]).toMatchObject({ source: "buffer", content: "I prefer dark mode in every editor" })
      // On the graph blend's scale: a full lexical match, fresh and trusted, is 1.
      expect(results[0]!.score).toBeCloseTo(1, 10)
      expect(results[1]).toMatchObject({ source: "graph", content: "The user likes dark themes in dark mode editors" })
      // "The mode switch is broken" matches one common term: a weak buffer hit, not ranked above the graph.
      expect(results.filter((r) => r.source === "buffer").map((r) => r.content)).toEqual(["I prefer dark mode in every editor"])
    }).pipe(Effect.provide(world({ graph: graphOf([node("g1", "The user likes dark themes in dark mode editors")]) })))
  )

  it.effect("correction wins: the superseded buffer value is hidden (also from the raw log) unless history is asked", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [
        ["user", "I prefer Python for scripts"],
        ["assistant", "Noted."],
        ["user", "Actually, I prefer Rust for scripts"]
      ])
      const current = yield* retrieve("prefer scripts", { sessionId: "s1", lexicalOnly: true })
      // The correction's line and its buffer statement are one result (same message); Python is gone everywhere.
      expect(current.map((r) => [r.source, r.content])).toEqual([["buffer", "I prefer Rust for scripts"]])
      const history = yield* retrieve("prefer scripts", { sessionId: "s1", lexicalOnly: true, includeHistory: true })
      expect(history.some((r) => r.content === "I prefer Python for scripts")).toBe(true)
      expect(history[0]!.content).toContain("Rust")
    }).pipe(Effect.provide(world()))
  )
})

describe("raw log", () => {
  it.effect("raw-log scores stay within [0, raw_log_score_scale]", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [
        ["user", "the deploy script lives in tools/deploy.sh"],
        ["assistant", "the deploy uses blue green rollout"],
        ["user", "deploy deploy deploy on fridays"]
      ])
      const results = yield* retrieve("deploy script")
      expect(results.length).toBe(3)
      for (const r of results) {
        expect(r.source).toBe("raw_log")
        expect(r.score).toBeGreaterThan(0)
        expect(r.score).toBeLessThanOrEqual(0.3)
      }
      expect(results[0]!.content).toBe("the deploy script lives in tools/deploy.sh")
    }).pipe(Effect.provide(world({ config: { raw_log_score_scale: "0.3" } })))
  )

  it.effect("cold_start_session_count: 0 turns the raw log off, n keeps it on only while sessions < n", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [["user", "the wiki password hint is blue"]])
      expect(yield* retrieve("wiki hint")).toEqual([])
    }).pipe(Effect.provide(world({ config: { cold_start_session_count: "0" } })))
  )

  it.effect("cold_start_session_count n: on with fewer sessions, off once there are n", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [["user", "the wiki password hint is blue"]])
      expect((yield* retrieve("wiki hint")).map((r) => r.source)).toEqual(["raw_log"])
      yield* logAll("s2", [["user", "something else"]])
      expect(yield* retrieve("wiki hint")).toEqual([])
    }).pipe(Effect.provide(world({ config: { cold_start_session_count: "2" } })))
  )

  it.effect("a graph memory beats the raw-log line with the same text, even when the line scores higher", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [["assistant", "Your city is Paris"]])
      const results = yield* retrieve("city paris", { lexicalOnly: true, trace: true })
      expect(results.length).toBe(1)
      expect(results[0]).toMatchObject({
        source: "graph",
        nodeId: "n1",
        content: "Your city is Paris",
        sourceRefs: [{ sessionId: "s1", messageIndex: 0 }]
      })
    }).pipe(
      Effect.provide(
        world({
          graph: graphOf([node("n1", "Your city is Paris", { confidence: 0, sourceRefs: [{ sessionId: "s1", messageIndex: 0 }] })])
        })
      )
    )
  )

  it.effect("a graph statement stands in for the raw line it came from (one result, not two)", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [["user", "Hello! I prefer green tea in the morning. Thanks"]])
      const results = yield* retrieve("green tea morning", { lexicalOnly: true })
      expect(results.map((r) => [r.source, r.content])).toEqual([["graph", "I prefer green tea in the morning. Thanks"]])
    }).pipe(
      Effect.provide(
        world({
          graph: graphOf([
            node("n1", "I prefer green tea in the morning. Thanks", { sourceRefs: [{ sessionId: "s1", messageIndex: 0 }] })
          ])
        })
      )
    )
  )

  it.effect("the line of a superseded statement stays out unless history is asked", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [["user", "My city is San Francisco"]])
      yield* logAll("s2", [["user", "My city is New York"]])
      const current = yield* retrieve("my city", { lexicalOnly: true })
      expect(current.map((r) => r.content)).toEqual(["My city is New York"])
      const history = yield* retrieve("my city", { lexicalOnly: true, includeHistory: true })
      expect(history.map((r) => r.content)).toEqual(["My city is New York", "My city is San Francisco"])
      expect(history.map((r) => r.source)).toEqual(["graph", "graph"])
    }).pipe(
      Effect.provide(
        world({
          graph: graphOf([
            node("old", "My city is San Francisco", {
              canonicalKey: "fact:my city",
              status: "superseded",
              validTo: "2026-01-02T00:00:00.000Z",
              sourceRefs: [{ sessionId: "s1", messageIndex: 0 }]
            }),
            node("new", "My city is New York", {
              canonicalKey: "fact:my city",
              validFrom: "2026-01-02T00:00:00.000Z",
              supersedes: ["old"],
              sourceRefs: [{ sessionId: "s2", messageIndex: 0 }]
            })
          ])
        })
      )
    )
  )

  it.effect("excluded messages (the prompt being answered) never come back", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [
        ["user", "the staging database is on db-7"],
        ["user", "which host runs the staging database?"]
      ])
      const results = yield* retrieve("which host runs the staging database?", {
        sessionId: "s1",
        lexicalOnly: true,
        exclude: [{ sessionId: "s1", messageIndex: 1 }]
      })
      expect(results.map((r) => r.content)).toEqual(["the staging database is on db-7"])
    }).pipe(Effect.provide(world()))
  )
})

describe("history", () => {
  it.effect("with include_history the current value comes first, even when the old value's log line matches best", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [["user", "My preferred language is Python"]])
      yield* logAll("s2", [["user", "Actually, after a long evaluation of several options, my preferred language is Rust"]])
      const results = yield* retrieve("preferred language", { lexicalOnly: true, includeHistory: true })
      expect(results.map((r) => [r.source, r.status, r.content])).toEqual([
        ["graph", "active", "Actually, after a long evaluation of several options, my preferred language is Rust"],
        ["graph", "superseded", "My preferred language is Python"]
      ])
    }).pipe(
      Effect.provide(
        world({
          graph: graphOf([
            node("old", "My preferred language is Python", {
              canonicalKey: "fact:my preferred language",
              status: "superseded",
              validTo: "2026-01-02T00:00:00.000Z",
              sourceRefs: [{ sessionId: "s1", messageIndex: 0 }]
            }),
            node("new", "Actually, after a long evaluation of several options, my preferred language is Rust", {
              canonicalKey: "fact:my preferred language",
              validFrom: "2026-01-02T00:00:00.000Z",
              sourceRefs: [{ sessionId: "s2", messageIndex: 0 }]
            })
          ])
        })
      )
    )
  )
})

describe("graph", () => {
  const chain = graphOf(
    [node("a", "Project Orion streams events through Kafka"), node("b", "The cluster sits in Frankfurt")],
    [edge("a", "b", 1)]
  )

  it.effect("neighbour expansion brings in one-hop neighbours with association weight·decay", () =>
    Effect.gen(function* () {
      const results = yield* retrieve("project orion", { lexicalOnly: true, trace: true })
      expect(results.map((r) => r.nodeId)).toEqual(["a", "b"])
      expect(results[1]!.trace!.association).toBeCloseTo(0.6, 10)
      expect(results[1]!.trace!.lexicalScore).toBe(0)
    }).pipe(Effect.provide(world({ graph: chain })))
  )

  it.effect("neighbour expansion off: only anchors", () =>
    Effect.gen(function* () {
      const results = yield* retrieve("project orion", { lexicalOnly: true })
      expect(results.map((r) => r.nodeId)).toEqual(["a"])
    }).pipe(Effect.provide(world({ graph: chain, config: { neighbor_expansion: "false" } })))
  )

  it.effect("trace carries the six features, and the score is their blend", () =>
    Effect.gen(function* () {
      const store = yield* GraphStore
      const [before] = yield* store.getNodes(["a"])
      const results = yield* retrieve("project orion kafka", { trace: true })
      const a = results.find((r) => r.nodeId === "a")!
      expect(Object.keys(a.trace!).sort()).toEqual(
        ["association", "confidence", "lexicalScore", "semanticSim", "statusBonus", "strength"]
      )
      expect(a.trace!.lexicalScore).toBe(1)
      expect(a.trace!.confidence).toBe(0.6)
      expect(a.trace!.statusBonus).toBe(1)
      expect(a.trace!.association).toBe(0)
      expect(a.trace!.semanticSim).toBeGreaterThan(0.3)
      const strength = strengthOf(before!, new Date().toISOString(), 1).composite
      expect(a.trace!.strength).toBeCloseTo(strength, 3)
      const t = a.trace!
      expect(a.score).toBeCloseTo(0.55 * t.semanticSim + 0.2 * t.lexicalScore + 0.15 * t.strength + 0.1 * t.confidence, 10)
    }).pipe(Effect.provide(world({ graph: chain })))
  )

  const windows = graphOf([
    node("jan", "The office wifi password is alpine", {
      canonicalKey: "fact:the office wifi password",
      status: "superseded",
      validFrom: "2026-01-01T00:00:00.000Z",
      validTo: "2026-02-01T00:00:00.000Z"
    }),
    node("feb", "The office wifi password is birch", {
      canonicalKey: "fact:the office wifi password",
      validFrom: "2026-02-01T00:00:00.000Z",
      supersedes: ["jan"]
    })
  ])

  it.effect("as_of answers with what was valid then; windows are half-open [from, to)", () =>
    Effect.gen(function* () {
      const at = (asOf: string) =>
        retrieve("office wifi password", { lexicalOnly: true, asOf }).pipe(Effect.map((rs) => rs.map((r) => r.nodeId)))
      expect(yield* at("2026-01-15T00:00:00.000Z")).toEqual(["jan"])
      expect(yield* at("2026-01-31T23:59:59.999Z")).toEqual(["jan"])
      expect(yield* at("2026-02-01T00:00:00.000Z")).toEqual(["feb"])
      expect(yield* at("2025-12-31T00:00:00.000Z")).toEqual([])
      expect(yield* retrieve("office wifi password", { lexicalOnly: true }).pipe(Effect.map((rs) => rs.map((r) => r.nodeId)))).toEqual(["feb"])
    }).pipe(Effect.provide(world({ graph: windows })))
  )

  it.effect("include_history shows the superseded value too, the current one first, with the penalty", () =>
    Effect.gen(function* () {
      const results = yield* retrieve("office wifi password", { lexicalOnly: true, includeHistory: true, trace: true })
      expect(results.map((r) => [r.nodeId, r.status])).toEqual([["feb", "active"], ["jan", "superseded"]])
      expect(results[1]!.trace!.statusBonus).toBe(0)
      expect(results[0]!.score - results[1]!.score).toBeGreaterThan(0.3)
    }).pipe(Effect.provide(world({ graph: windows })))
  )

  it.effect("an active node whose window has ended is not current", () =>
    Effect.gen(function* () {
      expect(yield* retrieve("parking level", { lexicalOnly: true })).toEqual([])
      const history = yield* retrieve("parking level", { lexicalOnly: true, includeHistory: true })
      expect(history.map((r) => r.nodeId)).toEqual(["p"])
    }).pipe(
      Effect.provide(
        world({ graph: graphOf([node("p", "Parking is on level 3", { validTo: "2026-01-10T00:00:00.000Z" })]) })
      )
    )
  )

  it.effect("scope: a scoped query sees its own and global memories, not another project's", () =>
    Effect.gen(function* () {
      const ids = (scope: string | null) =>
        retrieve("build command", { lexicalOnly: true, scope }).pipe(Effect.map((rs) => rs.map((r) => r.nodeId).sort()))
      expect(yield* ids("/p/one")).toEqual(["global", "one"])
      expect(yield* ids(null)).toEqual(["global", "one", "two"])
    }).pipe(
      Effect.provide(
        world({
          graph: graphOf([
            node("one", "The build command is make all", { scope: "/p/one" }),
            node("two", "The build command is cargo build", { scope: "/p/two" }),
            node("global", "Always run the build command twice")
          ])
        })
      )
    )
  )
})

describe("embedder use", () => {
  it.effect("lexical-only retrieval never calls the embedder", () => {
    const embedder = countingEmbedder()
    return Effect.gen(function* () {
      yield* logAll("s1", [["user", "the release train leaves on tuesday"]])
      const results = yield* retrieve("release train", { lexicalOnly: true, sessionId: "s1" })
      expect(results.length).toBeGreaterThan(0)
      expect(embedder.calls.length).toBe(0)
      yield* retrieve("release train")
      expect(embedder.calls.length).toBeGreaterThan(0)
    }).pipe(Effect.provide(world({ embedder: embedder.layer, graph: graphOf([node("r", "The release train is weekly")]) })))
  })

  it.effect("an embedder failure warns once and retrieval continues lexical-only", () => {
    const embedder = countingEmbedder({ fail: true })
    const warnings: Array<string> = []
    return Effect.gen(function* () {
      const first = yield* retrieve("release train")
      const second = yield* retrieve("release train")
      expect(first.map((r) => r.nodeId)).toEqual(["r"])
      expect(second.map((r) => r.nodeId)).toEqual(["r"])
      expect(warnings).toEqual(["awhm: embedding model test-model could not be loaded; continuing lexical-only"])
    }).pipe(
      Effect.provide(
        world({ embedder: embedder.layer, warn: (l) => warnings.push(l), graph: graphOf([node("r", "The release train is weekly")]) })
      )
    )
  })
})

describe("provenance and reinforcement", () => {
  it.effect("every result carries its source refs, whatever its source", () =>
    Effect.gen(function* () {
      yield* logAll("s9", [
        ["assistant", "kubernetes namespaces map to teams"],
        ["user", "I use kubernetes for the staging cluster"]
      ])
      const results = yield* retrieve("kubernetes", { sessionId: "s9", trace: true })
      expect(new Set(results.map((r) => r.source))).toEqual(new Set(["buffer", "graph", "raw_log"]))
      const refs = Object.fromEntries(results.map((r) => [r.content, r.sourceRefs]))
      expect(refs).toEqual({
        "I use kubernetes for the staging cluster": [{ sessionId: "s9", messageIndex: 1 }],
        "kubernetes namespaces map to teams": [{ sessionId: "s9", messageIndex: 0 }],
        "Kubernetes upgrades happen quarterly": [{ sessionId: "old", messageIndex: 4 }]
      })
    }).pipe(
      Effect.provide(
        world({ graph: graphOf([node("k", "Kubernetes upgrades happen quarterly", { sourceRefs: [{ sessionId: "old", messageIndex: 4 }] })]) })
      )
    )
  )

  it.effect("only returned results are reinforced (access count +1, last accessed now)", () =>
    Effect.gen(function* () {
      const started = new Date().toISOString()
      const results = yield* retrieve("invoice", { k: 1, lexicalOnly: true })
      expect(results.map((r) => r.nodeId)).toEqual(["i1"])
      const store = yield* GraphStore
      const [i1, i2, i3] = yield* store.getNodes(["i1", "i2", "i3"])
      expect(i1!.accessCount).toBe(2)
      expect(i1!.lastAccessed >= started).toBe(true)
      expect(i1!.embedding).not.toBeNull()
      expect([i2!.accessCount, i2!.lastAccessed]).toEqual([1, "2026-01-01T00:00:00.000Z"])
      expect([i3!.accessCount, i3!.lastAccessed]).toEqual([1, "2026-01-01T00:00:00.000Z"])
      yield* retrieve("invoice", { k: 1, lexicalOnly: true })
      expect((yield* store.getNodes(["i1"]))[0]!.accessCount).toBe(3)
    }).pipe(
      Effect.provide(
        world({
          graph: graphOf([
            node("i1", "Invoice invoice numbers start at 1000"),
            node("i2", "The invoice template is in the drive"),
            node("i3", "Send each invoice by email")
          ])
        })
      )
    )
  )
})

describe("fusion", () => {
  it.effect("priors count in proportion to relevance: a weak match's strength and confidence are scaled down", () =>
    Effect.gen(function* () {
      const results = yield* retrieve("deploy password swordfish", { trace: true })
      expect(results.map((r) => r.nodeId)).toEqual(["exact", "weak"])
      const [exact, weak] = results
      const rel = (t: NonNullable<typeof exact>["trace"]) => 0.55 * t!.semanticSim + 0.2 * t!.lexicalScore
      const prior = (t: NonNullable<typeof exact>["trace"]) => 0.15 * t!.strength + 0.1 * t!.confidence
      expect(exact!.score).toBeCloseTo(rel(exact!.trace) + prior(exact!.trace), 10)
      const gate = rel(weak!.trace) / rel(exact!.trace)
      expect(gate).toBeGreaterThan(0.3)
      expect(gate).toBeLessThan(0.8)
      expect(weak!.score).toBeCloseTo(rel(weak!.trace) + gate * prior(weak!.trace), 10)
    }).pipe(
      Effect.provide(
        world({
          graph: graphOf([
            node("exact", "The deploy password is swordfish", { confidence: 0.5 }),
            node("weak", "Deploy password hints live in the wiki", { confidence: 1, accessCount: 50 }),
            ...["Lunch is at noon", "The office is closed on Monday", "Parking is on level 3", "Coffee runs out by ten"].map(
              (c, i) => node(`other${i}`, c)
            )
          ])
        })
      )
    )
  )

  it.effect("an entity node ranks at half its blend, below a statement about it", () =>
    Effect.gen(function* () {
      const results = yield* retrieve("acme", { lexicalOnly: true, trace: true })
      expect(results.map((r) => r.nodeId)).toEqual(["fact", "acme"])
      const entity = results[1]!
      const t = entity.trace!
      expect(entity.score).toBeCloseTo(0.5 * (0.75 * t.lexicalScore + 0.15 * t.strength + 0.1 * t.confidence), 10)
    }).pipe(
      Effect.provide(
        world({
          graph: graphOf([
            node("acme", "ORG: Acme", { entityType: "ORG", confidence: 0.75 }),
            node("fact", "I work at Acme as a data engineer on the billing team", { confidence: 0.8 })
          ])
        })
      )
    )
  )
})

describe("raw-log context", () => {
  it.effect("a line whose author the question names comes first; a reply borrows from the line it answers", () =>
    Effect.gen(function* () {
      const rawLog = yield* RawLog
      const say = (speaker: string, content: string) =>
        rawLog.append({ sessionId: "chat", role: "user", content, metadata: { speaker } })
      yield* say("Mel", "I started pottery classes on Tuesdays")
      yield* say("Dana", "I started pottery classes too, on Saturdays")
      yield* say("Mel", "Which studio do you use?")
      yield* say("Dana", "The one on Harbour Street.")
      const about = yield* retrieve("When did Dana start pottery classes?", { lexicalOnly: true })
      expect(about[0]!.content).toBe("I started pottery classes too, on Saturdays")
      const reply = yield* retrieve("which pottery studio", { lexicalOnly: true, k: 3 })
      expect(reply.map((r) => r.content)).toContain("Which studio do you use?")
    }).pipe(Effect.provide(world()))
  )
})

/** An embedder with set vectors (2-d, unit length) per text: similarities chosen by the test. */
const fixedEmbedder = (table: Record<string, readonly [number, number]>) =>
  Layer.succeed(
    Embedder,
    Embedder.of({
      modelId: "fixed-2",
      enabled: true,
      dimension: 2,
      embed: (texts) =>
        Effect.succeed(
          texts.map((t) => {
            const [x, y] = table[t] ?? [0, 1]
            const n = Math.hypot(x, y)
            return Float32Array.of(x / n, y / n)
          })
        )
    })
  )

describe("scores: one scale for every source", () => {
  it.effect("every result scores within 0..1, best first, whatever its source", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [
        ["user", "I prefer dark mode in every editor"],
        ["assistant", "dark themes are easier on the eyes in the evening"]
      ])
      const results = yield* retrieve("dark mode editor", { sessionId: "s1", lexicalOnly: true })
      expect(new Set(results.map((r) => r.source))).toEqual(new Set(["buffer", "graph", "raw_log"]))
      for (const r of results) {
        expect(r.score).toBeGreaterThan(0)
        expect(r.score).toBeLessThanOrEqual(1)
      }
      expect(results.map((r) => r.score)).toEqual([...results.map((r) => r.score)].sort((a, b) => b - a))
    }).pipe(Effect.provide(world({ graph: graphOf([node("g1", "The user likes dark themes in dark mode editors")]) })))
  )

  it.effect("the best raw-log line reaches raw_log_score_scale only as a full match: a weak best line scores lower", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [["user", "deploys happen on fridays, the deploy window is short"]])
      // The graph holds the full lexical match; the log's best line matches one query word of three.
      const results = yield* retrieve("deploy script location", { lexicalOnly: true, trace: true })
      const line = results.find((r) => r.source === "raw_log")!
      expect(line.trace!.lexicalScore).toBeLessThan(0.5)
      expect(line.score).toBeCloseTo(0.75 * (line.trace!.lexicalScore + line.trace!.association), 10)
      expect(line.score).toBeLessThan(0.5)
      expect(results[0]).toMatchObject({ source: "graph", content: "The deploy script location is tools/deploy.sh" })
    }).pipe(Effect.provide(world({ graph: graphOf([node("g1", "The deploy script location is tools/deploy.sh")]) })))
  )

  it.effect("the turn next to a line with a query word is evidence (the answer to a matching question); its session alone is not", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [
        ["user", "what is your favorite dish from the show?"],
        ["user", "coconut milk ice cream, smooth and creamy"],
        ["user", "the weather was lovely at the seaside"]
      ])
      const results = yield* retrieve("favorite dish from the show", { trace: true })
      // The answer has no query word and cos 0.2 (under the 0.3 threshold), but it follows the matching
      // question: kept. The last line (cos 0.2, next only to the answer) is in the session and no more: left out.
      expect(results.map((r) => r.content)).toEqual([
        "what is your favorite dish from the show?",
        "coconut milk ice cream, smooth and creamy"
      ])
      // Own scores h: question 0.4·1 + 0.6·0.8 = 0.88, answer 0.6·0.2 = 0.12; session 0.7·(0.88 + 0.12 + 0.12)/3.
      // Answer: (0.12 + 0.4·0.88 + 0.26133) / (0.88 + 0.4·0.12 + 0.26133) of raw_log_score_scale 0.75.
      expect(results[0]!.score).toBeCloseTo(0.75, 6)
      expect(results[1]!.trace!.association).toBeCloseTo(0.613333, 5)
      expect(results[1]!.score).toBeCloseTo(0.462444, 5)
    }).pipe(
      Effect.provide(
        world({
          embedder: fixedEmbedder({
            "favorite dish from the show": [1, 0],
            "what is your favorite dish from the show?": [0.8, 0.6],
            "coconut milk ice cream, smooth and creamy": [0.2, Math.sqrt(1 - 0.04)],
            "the weather was lovely at the seaside": [0.2, -Math.sqrt(1 - 0.04)]
          })
        })
      )
    )
  )

  it.effect("a raw-log line with no query word and a semantic similarity under embed_threshold is left out", () =>
    Effect.gen(function* () {
      yield* logAll("s1", [
        ["user", "the weather was lovely at the seaside"],
        ["user", "we booked the cottage near the coast for august"]
      ])
      const results = yield* retrieve("holiday plans")
      // cos 0.2 (under the 0.3 threshold): no evidence; cos 0.8: semantic evidence, kept.
      expect(results.map((r) => r.content)).toEqual(["we booked the cottage near the coast for august"])
      expect(results[0]!.score).toBeGreaterThan(0)
      expect(results[0]!.score).toBeLessThanOrEqual(0.75)
    }).pipe(
      Effect.provide(
        world({
          embedder: fixedEmbedder({
            "holiday plans": [1, 0],
            "the weather was lovely at the seaside": [0.2, Math.sqrt(1 - 0.04)],
            "we booked the cottage near the coast for august": [0.8, 0.6]
          })
        })
      )
    )
  )
})
