import { describe, expect, it } from "@effect/vitest"
import { Data, Effect, Exit, type Scope } from "effect"
import type { Edge, MemoryNode } from "../../src/domain/Node.js"
import type { GraphStoreError, GraphStoreShape } from "../../src/services/GraphStore.js"
import { compactNode, FULL_NODE_COMPACT_EMBEDDING, fullNode, plainNode, tempDir } from "../support/graphFixtures.js"
import { partContract } from "./partContract.js"
import { searchContract } from "./searchContract.js"

/** Opens a store in `dir`; opening the same dir twice must give the same data (unless `persistent` is false). */
export type OpenStore = (dir: string) => Effect.Effect<GraphStoreShape, GraphStoreError, Scope.Scope>

class Boom extends Data.TaggedError("Boom")<Record<never, never>> {}

const edge = (source: string, target: string, weight = 1, type: Edge["type"] = "association"): Edge => ({
  source,
  target,
  type,
  weight,
  createdAt: "2026-03-01T10:00:00.000Z"
})

export interface ContractOptions {
  readonly persistent: boolean
  /** The store keeps vectors compact (int8 with a scale): a node's embedding reads back as storedVector of it. */
  readonly compactVectors?: boolean
  /** A database store: getNodes with `withEmbeddings: false` leaves the vectors out (the others may keep them). */
  readonly readsWithoutVectors?: boolean
}

/** The behaviour every GraphStore layer shares. */
export const graphStoreContract = (name: string, open: OpenStore, options: ContractOptions) =>
  describe(`GraphStore contract: ${name}`, () => {
    const fresh = Effect.flatMap(tempDir(), open)
    /** A node as the store gives it back. */
    const back = (n: MemoryNode): MemoryNode => (options.compactVectors === true ? compactNode(n) : n)

    it.scopedLive("an empty store loads an empty graph", () =>
      Effect.gen(function* () {
        const store = yield* fresh
        const graph = yield* store.load()
        expect(graph.nodes.size).toBe(0)
        expect(graph.edges).toEqual([])
        expect(yield* store.counts).toEqual({ nodes: 0, edges: 0 })
      })
    )

    it.scopedLive("a committed node comes back with every field intact", () =>
      Effect.gen(function* () {
        const store = yield* fresh
        const node = fullNode("n1")
        yield* store.commit({ upsertNodes: [node] })
        const graph = yield* store.load()
        expect(graph.nodes.get("n1")).toEqual(back(node))
        expect(graph.nodes.get("n1")?.embedding).toBeInstanceOf(Float32Array)
        // Compact: int8 steps of the largest magnitude / 127 (0.5 / 127 here); the largest comes back exact.
        const embedding = options.compactVectors === true ? FULL_NODE_COMPACT_EMBEDDING : [0.25, -0.5, 0.125, Math.fround(1 / 3)]
        expect(Array.from(graph.nodes.get("n1")?.embedding ?? [])).toEqual(embedding)
        expect(yield* store.getNodes(["missing", "n1"])).toEqual([back(node)])
        // A lexical query asks without vectors: everything else is the same.
        const lean = options.readsWithoutVectors === true ? { ...back(node), embedding: null } : back(node)
        expect(yield* store.getNodes(["missing", "n1"], { withEmbeddings: false })).toEqual([lean])
        expect(yield* store.getNodes(["n1"], { withEmbeddings: true })).toEqual([back(node)])
      })
    )

    it.scopedLive("nodes load in the order they were first added; an upsert keeps the place", () =>
      Effect.gen(function* () {
        const store = yield* fresh
        yield* store.commit({ upsertNodes: [plainNode("b"), plainNode("a")] })
        yield* store.commit({ upsertNodes: [plainNode("c")] })
        yield* store.commit({ upsertNodes: [{ ...plainNode("b"), accessCount: 9 }] })
        const graph = yield* store.load()
        expect(Array.from(graph.nodes.keys())).toEqual(["b", "a", "c"])
        expect(graph.nodes.get("b")?.accessCount).toBe(9)
        expect(yield* store.counts).toEqual({ nodes: 3, edges: 0 })
      })
    )

    it.scopedLive("edges: same (source, target, type) replaces, dangling ones are dropped", () =>
      Effect.gen(function* () {
        const store = yield* fresh
        yield* store.commit({ upsertNodes: [plainNode("a"), plainNode("b")], addEdges: [edge("a", "b", 0.8)] })
        yield* store.commit({
          addEdges: [edge("a", "b", 0.5), edge("b", "a", 1, "temporal"), edge("a", "ghost"), edge("a", "b", 1, "temporal")]
        })
        const graph = yield* store.load()
        expect(graph.edges).toEqual([edge("a", "b", 0.5), edge("b", "a", 1, "temporal"), edge("a", "b", 1, "temporal")])
        expect(yield* store.counts).toEqual({ nodes: 2, edges: 3 })
      })
    )

    it.scopedLive("deleting a node removes it and exactly the edges that touch it", () =>
      Effect.gen(function* () {
        const store = yield* fresh
        yield* store.commit({
          upsertNodes: [plainNode("a"), plainNode("b"), plainNode("c")],
          addEdges: [edge("a", "b"), edge("c", "a"), edge("b", "c")]
        })
        yield* store.commit({ deleteNodes: ["a", "not-there"] })
        const graph = yield* store.load()
        expect(Array.from(graph.nodes.keys())).toEqual(["b", "c"])
        expect(graph.edges).toEqual([edge("b", "c")])
      })
    )

    it.scopedLive("the loaded graph is a copy: changing it writes nothing", () =>
      Effect.gen(function* () {
        const store = yield* fresh
        yield* store.commit({ upsertNodes: [plainNode("a")] })
        const graph = yield* store.load()
        graph.nodes.delete("a")
        graph.edges.push(edge("x", "y"))
        expect(yield* store.counts).toEqual({ nodes: 1, edges: 0 })
        expect((yield* store.load()).nodes.has("a")).toBe(true)
      })
    )

    it.scopedLive("update commits the changes f returns and gives back its value", () =>
      Effect.gen(function* () {
        const store = yield* fresh
        yield* store.commit({ upsertNodes: [plainNode("a")] })
        const seen = yield* store.update((graph) =>
          Effect.succeed([graph.nodes.size, { upsertNodes: [plainNode("b")], addEdges: [edge("a", "b")] }] as const)
        )
        expect(seen).toBe(1)
        const graph = yield* store.load()
        expect(Array.from(graph.nodes.keys())).toEqual(["a", "b"])
        expect(graph.edges).toEqual([edge("a", "b")])
      })
    )

    it.scopedLive("update writes nothing when f fails, and the failure comes through typed", () =>
      Effect.gen(function* () {
        const store = yield* fresh
        yield* store.commit({ upsertNodes: [plainNode("a")] })
        const exit = yield* Effect.exit(store.update(() => Effect.fail(new Boom())))
        expect(exit).toEqual(Exit.fail(new Boom()))
        expect(yield* store.counts).toEqual({ nodes: 1, edges: 0 })
        // The store still works afterwards (no transaction or lock left behind).
        yield* store.commit({ upsertNodes: [plainNode("b")] })
        expect(yield* store.counts).toEqual({ nodes: 2, edges: 0 })
      })
    )

    it.scopedLive("concurrent updates in one process lose nothing", () =>
      Effect.gen(function* () {
        const store = yield* fresh
        yield* store.commit({ upsertNodes: [{ ...plainNode("counter"), accessCount: 0 }] })
        const bump = store.update((graph) => {
          const n = graph.nodes.get("counter")!
          return Effect.as(Effect.yieldNow(), [undefined, { upsertNodes: [{ ...n, accessCount: n.accessCount + 1 }] }] as const)
        })
        yield* Effect.all(Array.from({ length: 20 }, () => bump), { concurrency: "unbounded", discard: true })
        expect((yield* store.getNodes(["counter"]))[0]?.accessCount).toBe(20)
      })
    )

    it.scopedLive("replaceAll swaps in exactly the given graph", () =>
      Effect.gen(function* () {
        const store = yield* fresh
        yield* store.commit({ upsertNodes: [plainNode("old")] })
        const next = { nodes: new Map([["x", fullNode("x")], ["y", plainNode("y")]]), edges: [edge("x", "y"), edge("y", "nope")] }
        yield* store.replaceAll(next)
        const graph = yield* store.load()
        expect(Array.from(graph.nodes.keys())).toEqual(["x", "y"])
        expect(graph.nodes.get("x")).toEqual(back(fullNode("x")))
        expect(graph.edges).toEqual([edge("x", "y")])
      })
    )

    it.scopedLive("scrub keeps the graph as it is", () =>
      Effect.gen(function* () {
        const store = yield* fresh
        yield* store.commit({ upsertNodes: [fullNode("a"), plainNode("b")], addEdges: [edge("a", "b")] })
        yield* store.commit({ deleteNodes: ["b"] })
        yield* store.scrub
        const graph = yield* store.load()
        expect(Array.from(graph.nodes.values())).toEqual([back(fullNode("a"))])
        expect(graph.edges).toEqual([])
      })
    )

    it.scopedLive("a lexical load (withEmbeddings: false) has every node and its text", () =>
      Effect.gen(function* () {
        const store = yield* fresh
        yield* store.commit({ upsertNodes: [fullNode("a"), plainNode("b")] })
        const graph = yield* store.load({ withEmbeddings: false })
        expect(Array.from(graph.nodes.values()).map((n) => [n.id, n.content])).toEqual([
          ["a", "content of a"],
          ["b", "memory b"]
        ])
      })
    )

    if (options.persistent) {
      it.scopedLive("a second store on the same files sees the committed graph, and its writes", () =>
        Effect.gen(function* () {
          const dir = yield* tempDir()
          const first = yield* open(dir)
          const second = yield* open(dir)
          yield* first.commit({ upsertNodes: [fullNode("a"), plainNode("b")], addEdges: [edge("a", "b", 0.7)] })
          const seen = yield* second.load()
          expect(seen.nodes.get("a")).toEqual(back(fullNode("a")))
          expect(seen.edges).toEqual([edge("a", "b", 0.7)])
          // Each store's cache must notice the other's writes.
          yield* second.update((g) => Effect.succeed([undefined, { deleteNodes: [g.nodes.get("b")!.id] }] as const))
          yield* first.update((g) => {
            expect(Array.from(g.nodes.keys())).toEqual(["a"])
            return Effect.succeed([undefined, { upsertNodes: [plainNode("c")] }] as const)
          })
          expect(Array.from((yield* second.load()).nodes.keys())).toEqual(["a", "c"])
        })
      )

      it.scopedLive("a store reopened after its scope closed has the same graph", () =>
        Effect.gen(function* () {
          const dir = yield* tempDir()
          yield* Effect.scoped(Effect.flatMap(open(dir), (s) => s.commit({ upsertNodes: [fullNode("a")] })))
          const again = yield* open(dir)
          expect((yield* again.load()).nodes.get("a")).toEqual(back(fullNode("a")))
        })
      )
    }
    searchContract(open, options)
    partContract(open)
  })
