import { describe, expect, it } from "@effect/vitest"
import { Data, Effect, Exit } from "effect"
import { makeNode, type MemoryNode } from "../../src/domain/Node.js"
import type { GraphStoreShape, NodeKeyQuery } from "../../src/services/GraphStore.js"
import { statementKey } from "../../src/text/canonical.js"
import { EntityIndex } from "../../src/text/entities.js"
import { statementKeyLookup } from "../../src/text/lookupKeys.js"
import { tempDir } from "../support/graphFixtures.js"
import type { OpenStore } from "./contract.js"

// What consolidation asks of a store instead of reading the whole graph (services/GraphStore nodesByKeys,
// entityForms, accessCounts, updatePart): the same answers from every backend.

const at = "2026-03-01T10:00:00.000Z"
const mem = (id: string, content: string, overrides: Partial<MemoryNode> = {}): MemoryNode =>
  makeNode({ id, type: "semantic", content, createdAt: at, ...overrides })

const corpus: ReadonlyArray<MemoryNode> = [
  mem("name", "My name is Alice", { canonicalKey: "identity:name" }),
  mem("tea", "I prefer tea", { canonicalKey: "preference:drink" }),
  mem("old-tea", "I prefer coffee", { canonicalKey: "preference:drink", status: "superseded", validTo: at }),
  mem("music", "I prefer jazz", { canonicalKey: "preference:music" }),
  mem("rent", "My rent is $1200 a month"),
  mem("port", "The staging server runs on port 8080"),
  mem("acme", "ORG: Acme Holdings Ltd", { entityType: "ORG", aliases: ["acme.com"] }),
  mem("john", "PERSON: John Smith", { entityType: "PERSON", aliases: ["Johnny"] }),
  mem("john2", "PERSON: John Doe", { entityType: "PERSON" }),
  mem("lisbon", "GPE: Lisbon", { entityType: "GPE", accessCount: 4 })
]

const none: NodeKeyQuery = { ids: [], lookupKeys: [], canonicalKeys: [], keyFamilies: [] }
const ids = (nodes: ReadonlyArray<MemoryNode>) => nodes.map((n) => n.id)

class Boom extends Data.TaggedError("Boom")<Record<never, never>> {}

export const partContract = (open: OpenStore) =>
  describe("the part of the graph a consolidation batch may touch", () => {
    const seeded = Effect.gen(function* () {
      const store = yield* Effect.flatMap(tempDir(), open)
      yield* store.commit({ upsertNodes: [...corpus] })
      return store
    })
    const byKeys = (store: GraphStoreShape, q: Partial<NodeKeyQuery>) => Effect.map(store.nodesByKeys({ ...none, ...q }), ids)

    it.scopedLive("nodes by id, lookup key, slot and a slot family's active nodes, each once, in store order", () =>
      Effect.gen(function* () {
        const store = yield* seeded
        expect(yield* byKeys(store, {})).toEqual([])
        expect(yield* byKeys(store, { ids: ["lisbon", "rent", "missing"] })).toEqual(["rent", "lisbon"])
        // Statement keys ignore case and punctuation; attribute heads; entity first tokens.
        expect(yield* byKeys(store, { lookupKeys: [statementKeyLookup(statementKey("my name is ALICE!")), "h:rent"] })).toEqual(["name", "rent"])
        expect(yield* byKeys(store, { lookupKeys: ["t:john"] })).toEqual(["john", "john2"])
        expect(yield* byKeys(store, { lookupKeys: ["t:johnny", "t:acme"] })).toEqual(["acme", "john"])
        // Every status for a slot; only the active nodes of a family.
        expect(yield* byKeys(store, { canonicalKeys: ["preference:drink"] })).toEqual(["tea", "old-tea"])
        expect(yield* byKeys(store, { keyFamilies: ["preference"] })).toEqual(["tea", "music"])
        expect(yield* byKeys(store, { keyFamilies: ["pref"] })).toEqual([])
        expect(yield* byKeys(store, { ids: ["lisbon"], lookupKeys: ["t:john"], canonicalKeys: ["identity:name"], keyFamilies: ["preference"] }))
          .toEqual(["name", "tea", "music", "john", "john2", "lisbon"])
        const [node] = yield* store.nodesByKeys({ ...none, ids: ["tea"] })
        expect(node).toEqual((yield* store.getNodes(["tea"]))[0])
      })
    )

    it.scopedLive("the keys follow every write: new content and aliases are found, old content and deleted nodes are not", () =>
      Effect.gen(function* () {
        const store = yield* seeded
        yield* store.commit({
          upsertNodes: [mem("rent", "My salary is $5000"), { ...corpus.find((n) => n.id === "lisbon")!, aliases: ["Lisboa"] }],
          deleteNodes: ["john2"]
        })
        expect(yield* byKeys(store, { lookupKeys: ["h:rent"] })).toEqual([])
        expect(yield* byKeys(store, { lookupKeys: ["h:salary", "t:lisboa"] })).toEqual(["rent", "lisbon"])
        expect(yield* byKeys(store, { lookupKeys: ["t:john"] })).toEqual(["john"])
        yield* store.replaceAll({ nodes: new Map([["z", mem("z", "PERSON: Zoe", { entityType: "PERSON" })]]), edges: [] })
        expect(yield* byKeys(store, { lookupKeys: ["t:john", "t:zoe"], canonicalKeys: ["identity:name"] })).toEqual(["z"])
        expect(yield* store.entityForms).toEqual([{ form: "zoe", label: "PERSON" }])
      })
    )

    it.scopedLive("entity forms: every entity's normalised forms with the first node's label, as EntityIndex gives them over load()", () =>
      Effect.gen(function* () {
        const store = yield* seeded
        yield* store.commit({ upsertNodes: [mem("acme2", "PERSON: Acme", { entityType: "PERSON" })] })
        const forms = yield* store.entityForms
        expect(forms).toEqual([
          { form: "acme", label: "ORG" },
          { form: "john smith", label: "PERSON" },
          { form: "johnny", label: "PERSON" },
          { form: "john doe", label: "PERSON" },
          { form: "lisbon", label: "GPE" }
        ])
        expect(forms).toEqual(new EntityIndex((yield* store.load()).nodes.values()).forms())
      })
    )

    it.scopedLive("access counts: how many nodes have each count, as load() shows them (reinforcement not yet written included)", () =>
      Effect.gen(function* () {
        const store = yield* seeded
        expect(yield* store.accessCounts).toEqual([{ count: 1, nodes: 9 }, { count: 4, nodes: 1 }])
        const tea = (yield* store.getNodes(["tea"]))[0]!
        yield* store.reinforce([{ id: "tea", content: tea.content, validTo: null, at, strength: tea.strength }])
        const counts = new Map<number, number>()
        for (const n of (yield* store.load()).nodes.values()) counts.set(n.accessCount, (counts.get(n.accessCount) ?? 0) + 1)
        expect(yield* store.accessCounts).toEqual([{ count: 1, nodes: 8 }, { count: 2, nodes: 1 }, { count: 4, nodes: 1 }])
        expect(yield* store.accessCounts).toEqual([...counts].sort((a, b) => a[0] - b[0]).map(([count, nodes]) => ({ count, nodes })))
      })
    )

    it.scopedLive("updatePart reads through the store under the write lock and commits what f returns; a failing f writes nothing", () =>
      Effect.gen(function* () {
        const store = yield* seeded
        const seen = yield* store.updatePart((reader) =>
          Effect.map(reader.nodesByKeys({ ...none, canonicalKeys: ["identity:name"] }), (nodes) =>
            [ids(nodes), { upsertNodes: [{ ...nodes[0]!, content: "My name is Alicia" }], deleteNodes: ["rent"] }] as const
          )
        )
        expect(seen).toEqual(["name"])
        expect((yield* store.getNodes(["name", "rent"])).map((n) => n.content)).toEqual(["My name is Alicia"])
        const exit = yield* Effect.exit(store.updatePart(() => Effect.fail(new Boom())))
        expect(Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error._tag : null).toBe("Boom")
        // Concurrent read-modify-writes lose nothing.
        const bump = store.updatePart((reader) =>
          Effect.map(reader.getNodes(["lisbon"]), ([n]) => [undefined, { upsertNodes: [{ ...n!, accessCount: n!.accessCount + 1 }] }] as const)
        )
        yield* Effect.all([bump, bump, bump, bump], { concurrency: "unbounded" })
        expect((yield* store.getNodes(["lisbon"]))[0]!.accessCount).toBe(8)
        expect((yield* store.load()).nodes.size).toBe(corpus.length - 1)
      })
    )
  })
