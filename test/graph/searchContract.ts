import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeNode, type Edge, type MemoryNode } from "../../src/domain/Node.js"
import type { NodeFilter } from "../../src/domain/nodeFilter.js"
import { admits } from "../../src/domain/nodeFilter.js"
import { windowStart } from "../../src/domain/validity.js"
import { analyze } from "../../src/search/IndexAnalyzer.js"
import { indexedText } from "../../src/search/indexedText.js"
import { LexicalIndex } from "../../src/search/LexicalIndex.js"
import type { GraphStoreShape, Reinforcement } from "../../src/services/GraphStore.js"
import { tempDir } from "../support/graphFixtures.js"
import type { OpenStore } from "./contract.js"

const at = "2026-03-01T10:00:00.000Z"
const now = "2026-04-01T00:00:00.000Z"
const current: NodeFilter = { asOf: null, includeHistory: false, now, scope: null }

const mem = (id: string, content: string, overrides: Partial<MemoryNode> = {}): MemoryNode =>
  makeNode({ id, type: "semantic", content, createdAt: at, ...overrides })

const corpus: ReadonlyArray<MemoryNode> = [
  mem("a", "The staging server runs on port 8080"),
  mem("b", "The staging server moved to port 9090"),
  mem("c", "Lunch is at noon on Fridays"),
  mem("old", "The staging server runs on port 7070", {
    status: "superseded",
    validFrom: "2026-02-01T00:00:00.000Z",
    validTo: "2026-03-05T00:00:00.000Z"
  }),
  mem("p1", "Staging deploys need approval", { scope: "/p1" }),
  mem("p2", "Staging logs rotate daily", { scope: "/p2" }),
  mem("later", "The staging server will move in May", { validFrom: "2026-05-01T00:00:00.000Z" })
]

/** What LexicalIndex says over the same nodes: the scores every backend must give. */
const oracle = (nodes: ReadonlyArray<MemoryNode>, query: string, k: number, filter: NodeFilter) => {
  const index = new LexicalIndex({ k1: 1.5, b: 0.75, analyzer: analyze })
  for (const n of nodes) index.add(n.id, indexedText(n.content, windowStart(n)))
  const byId = new Map(nodes.map((n) => [n.id, n]))
  return index.search(query, k, (id) => admits(byId.get(id)!, filter)).map((h) => ({ id: h.key, score: h.score }))
}

const vec = (...xs: Array<number>) => Float32Array.from(xs)
const edge = (source: string, target: string, type: Edge["type"] = "association"): Edge => ({
  source,
  target,
  type,
  weight: 0.5,
  createdAt: at
})

const seeded = (store: GraphStoreShape, nodes: ReadonlyArray<MemoryNode> = corpus) =>
  Effect.as(store.commit({ upsertNodes: nodes }), store)

/** Candidate search inside the store: the part of the contract a query relies on. */
export const searchContract = (open: OpenStore, options: { readonly persistent: boolean }) =>
  describe("candidate search", () => {
    const fresh = Effect.flatMap(tempDir(), open)
    const lexical = (store: GraphStoreShape, text: string, filter: NodeFilter = current, k = 10) =>
      store.lexicalTopK({ text, k, filter, k1: 1.5, b: 0.75 })

    it.scopedLive("lexical top k: LexicalIndex's exact BM25 over every node, among the nodes the filter admits", () =>
      Effect.gen(function* () {
        const store = yield* Effect.flatMap(fresh, seeded)
        const hits = yield* lexical(store, "staging server port")
        expect(hits.map((h) => h.id)).toEqual(["a", "b", "p1", "p2"])
        expect(hits).toEqual(oracle(corpus, "staging server port", 10, current))
        expect(hits[0]!.score).toBeGreaterThan(hits[2]!.score)
        // History, a past moment, a scope, k.
        const history = { ...current, includeHistory: true }
        expect((yield* lexical(store, "staging server port", history)).map((h) => h.id)).toEqual(["a", "b", "old", "later", "p1", "p2"])
        expect(yield* lexical(store, "staging server port", history)).toEqual(oracle(corpus, "staging server port", 10, history))
        const march3 = { ...current, asOf: "2026-03-03T00:00:00.000Z" }
        expect((yield* lexical(store, "port", march3)).map((h) => h.id)).toEqual(["a", "b", "old"])
        expect((yield* lexical(store, "staging", { ...current, scope: "/p1" })).map((h) => h.id)).toEqual(["p1", "a", "b"])
        expect(yield* lexical(store, "staging server port", current, 2)).toEqual(oracle(corpus, "staging server port", 2, current))
        // Stopwords only, unknown words, k 0.
        expect(yield* lexical(store, "what is the")).toEqual([])
        expect(yield* lexical(store, "zebrafish")).toEqual([])
        expect(yield* lexical(store, "staging", current, 0)).toEqual([])
      })
    )

    it.scopedLive("lexical top k follows every write: new text is found, replaced and deleted text is not", () =>
      Effect.gen(function* () {
        const store = yield* Effect.flatMap(fresh, seeded)
        yield* store.commit({ upsertNodes: [mem("a", "The staging server runs on port 8443")], deleteNodes: ["b"] })
        expect((yield* lexical(store, "8080")).map((h) => h.id)).toEqual([])
        expect((yield* lexical(store, "9090")).map((h) => h.id)).toEqual([])
        expect((yield* lexical(store, "8443")).map((h) => h.id)).toEqual(["a"])
        const now2 = [...corpus.filter((n) => n.id !== "b" && n.id !== "a"), mem("a", "The staging server runs on port 8443")]
        expect(yield* lexical(store, "staging port")).toEqual(oracle(now2, "staging port", 10, current).sort((x, y) => y.score - x.score || (x.id === "a" ? -1 : 1)))
        // An access-count change (reinforcement) leaves the terms as they were.
        yield* store.commit({ upsertNodes: [{ ...mem("c", "Lunch is at noon on Fridays"), accessCount: 7 }] })
        expect((yield* lexical(store, "lunch fridays")).map((h) => h.id)).toEqual(["c"])
        yield* store.replaceAll({ nodes: new Map([["z", mem("z", "Only the zebra remains")]]), edges: [] })
        expect(yield* lexical(store, "staging")).toEqual([])
        expect((yield* lexical(store, "zebra")).map((h) => h.id)).toEqual(["z"])
      })
    )

    it.scopedLive("lexical top k when the filter refuses most of the best-scored nodes", () =>
      Effect.gen(function* () {
        // 250 short notes of one scope outscore the three long ones of another.
        const many = Array.from({ length: 250 }, (_, i) => mem(`a${i}`, `staging note ${i}`, { scope: "/a" }))
        const few = Array.from({ length: 3 }, (_, i) => mem(`b${i}`, `the staging server of the second project, copy ${i}`, { scope: "/b" }))
        const store = yield* Effect.flatMap(fresh, (s) => seeded(s, [...many, ...few]))
        const filter = { ...current, scope: "/b" }
        const hits = yield* lexical(store, "staging", filter)
        expect(hits.map((h) => h.id)).toEqual(["b0", "b1", "b2"])
        expect(hits).toEqual(oracle([...many, ...few], "staging", 10, filter))
      })
    )

    it.scopedLive("vector top k: exact dot products over admitted nodes of the query's model and dimension", () =>
      Effect.gen(function* () {
        const store = yield* fresh
        expect(yield* store.vectorTopK({ vector: vec(1, 0, 0), modelId: "m", k: 5, filter: current })).toBeNull()
        yield* store.commit({
          upsertNodes: [
            mem("x", "x", { embedding: vec(1, 0, 0), embedModel: "m" }),
            mem("y", "y", { embedding: vec(0.5, 0.5, 0), embedModel: "m" }),
            mem("z", "z", { embedding: vec(0, 1, 0), embedModel: null }),
            mem("gone", "gone", { embedding: vec(0.9, 0, 0), embedModel: "m", status: "superseded" }),
            mem("alien", "alien", { embedding: vec(1, 0, 0), embedModel: "other" }),
            mem("plain", "plain")
          ]
        })
        const hits = yield* store.vectorTopK({ vector: vec(0.75, 0.25, 0), modelId: "m", k: 5, filter: current })
        expect(hits).toEqual([
          { id: "x", score: 0.75 },
          { id: "y", score: 0.5 },
          { id: "z", score: 0.25 }
        ])
        expect(yield* store.vectorTopK({ vector: vec(0.75, 0.25, 0), modelId: "m", k: 1, filter: current })).toEqual([{ id: "x", score: 0.75 }])
        const history = { ...current, includeHistory: true }
        expect((yield* store.vectorTopK({ vector: vec(1, 0, 0), modelId: "m", k: 2, filter: history }))?.map((h) => h.id)).toEqual(["x", "gone"])
        // Another dimension, or a model no node was embedded with (only the model-less node remains).
        expect(yield* store.vectorTopK({ vector: vec(1, 0, 0, 0), modelId: "m", k: 5, filter: current })).toBeNull()
        expect(yield* store.vectorTopK({ vector: vec(0, 1, 0), modelId: "new", k: 5, filter: current })).toEqual([{ id: "z", score: 1 }])
        // A vector written later is searched at once.
        yield* store.commit({ upsertNodes: [mem("w", "w", { embedding: vec(0, 0, 1), embedModel: "m" })], deleteNodes: ["x"] })
        expect((yield* store.vectorTopK({ vector: vec(0.5, 0, 1), modelId: "m", k: 2, filter: current }))?.map((h) => h.id)).toEqual(["w", "y"])
      })
    )

    it.scopedLive("neighbours, slots, source messages and the access-count p90", () =>
      Effect.gen(function* () {
        const store = yield* fresh
        expect(yield* store.accessP90).toBe(1)
        const nodes = Array.from({ length: 20 }, (_, i) =>
          mem(`n${i}`, `memory ${i}`, {
            accessCount: i + 1,
            canonicalKey: i < 3 ? "fact:staging port" : i === 3 ? "fact:lunch" : null,
            sourceRefs: [{ sessionId: i % 2 === 0 ? "even" : "odd", messageIndex: i >> 1 }]
          })
        )
        yield* store.commit({ upsertNodes: nodes, addEdges: [edge("n0", "n1"), edge("n2", "n0", "temporal"), edge("n3", "n4")] })
        expect(yield* store.neighbours(["n0"])).toEqual([edge("n0", "n1"), edge("n2", "n0", "temporal")])
        expect(yield* store.neighbours(["n4", "n9"])).toEqual([edge("n3", "n4")])
        expect((yield* store.bySlot(["fact:staging port", "fact:none"])).map((n) => n.id)).toEqual(["n0", "n1", "n2"])
        expect((yield* store.bySlot(["fact:lunch"]))[0]).toEqual(nodes[3])
        const from = yield* store.fromMessages([
          { sessionId: "even", messageIndex: 1 },
          { sessionId: "odd", messageIndex: 9 },
          { sessionId: "none", messageIndex: 0 }
        ])
        expect(from.map(({ ref, node }) => [ref.sessionId, ref.messageIndex, node.id])).toEqual([
          ["even", 1, "n2"],
          ["odd", 9, "n19"]
        ])
        const keyed = yield* store.fromMessages([{ sessionId: "even", messageIndex: 1 }, { sessionId: "odd", messageIndex: 9 }], { keyed: true })
        expect(keyed.map(({ ref, node }) => [ref.sessionId, ref.messageIndex, node.id])).toEqual([["even", 1, "n2"]])
        // Access counts 1..20: the sorted list's element floor(0.9 * 20) = 18 is 19.
        expect(yield* store.accessP90).toBe(19)
        yield* store.commit({ deleteNodes: ["n19", "n18"] })
        expect(yield* store.accessP90).toBe(17)
        // Many messages at once (past any per-statement batch), in the order asked, and a session id that needs quoting.
        const quoted = `it's "quoted" \\ ✓`
        yield* store.commit({ upsertNodes: [mem("q", "quoted", { sourceRefs: [{ sessionId: quoted, messageIndex: 7 }] })] })
        const many = [
          ...Array.from({ length: 300 }, (_, i) => ({ sessionId: "odd", messageIndex: 100 + i })),
          { sessionId: quoted, messageIndex: 7 },
          { sessionId: "even", messageIndex: 0 },
          { sessionId: "odd", messageIndex: 9 }
        ]
        expect((yield* store.fromMessages(many)).map(({ ref, node }) => [ref.sessionId, ref.messageIndex, node.id])).toEqual([
          [quoted, 7, "q"],
          ["even", 0, "n0"]
        ])
      })
    )

    it.scopedLive("the change stamp moves with every commit and only then", () =>
      Effect.gen(function* () {
        const store = yield* fresh
        const s0 = yield* store.changeStamp
        expect(yield* store.changeStamp).toBe(s0)
        yield* store.commit({ upsertNodes: [mem("a", "alpha")] })
        const s1 = yield* store.changeStamp
        expect(s1).not.toBe(s0)
        yield* lexical(store, "alpha")
        expect(yield* store.changeStamp).toBe(s1)
      })
    )

    const seen = (n: MemoryNode, at: string, composite: number): Reinforcement => ({
      id: n.id,
      content: n.content,
      validTo: n.validTo,
      at,
      strength: { recency: 1, frequency: 0.5, composite }
    })

    it.scopedLive("reinforcement: merged per node, seen at once by this store, skipped for a node that changed", () =>
      Effect.gen(function* () {
        const store = yield* Effect.flatMap(fresh, seeded)
        const [a, c] = corpus.filter((n) => n.id === "a" || n.id === "c")
        yield* store.reinforce([seen(a!, "2026-04-01T00:00:00.000Z", 0.5)])
        yield* store.reinforce([seen(a!, "2026-04-02T00:00:00.000Z", 0.7), seen(c!, "2026-04-02T00:00:00.000Z", 0.4)])
        // Changed before the write: its reinforcement is dropped.
        yield* store.commit({ upsertNodes: [{ ...c!, content: "Lunch moved to one o'clock" }] })
        const expectA = { ...a!, accessCount: 3, lastAccessed: "2026-04-02T00:00:00.000Z", strength: { recency: 1, frequency: 0.5, composite: 0.7 } }
        expect(yield* store.getNodes(["a"])).toEqual([expectA])
        yield* store.flushReinforcement
        expect(yield* store.getNodes(["a", "c"])).toEqual([expectA, { ...c!, content: "Lunch moved to one o'clock" }])
        expect((yield* store.load()).nodes.get("a")).toEqual(expectA)
      })
    )

    if (options.persistent) {
      it.scopedLive("reinforcement is written when the store's scope closes; the indexes open with the file", () =>
        Effect.gen(function* () {
          const dir = yield* tempDir()
          const a = corpus[0]!
          yield* Effect.scoped(
            Effect.gen(function* () {
              const store = yield* Effect.flatMap(open(dir), seeded)
              yield* store.reinforce([seen(a, "2026-04-03T00:00:00.000Z", 0.9)])
            })
          )
          const again = yield* open(dir)
          expect((yield* again.getNodes(["a"]))[0]?.accessCount).toBe(2)
          expect(yield* lexical(again, "staging server port")).toEqual(oracle(corpus, "staging server port", 10, current))
          // Another store on the same files sees this one's writes in its searches.
          const other = yield* open(dir)
          yield* again.commit({ deleteNodes: ["a"] })
          expect((yield* lexical(other, "8080")).map((h) => h.id)).toEqual([])
        })
      )
    }
  })
