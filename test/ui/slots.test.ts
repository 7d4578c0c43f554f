import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { makeNode, type MemoryNode } from "../../src/domain/Node.js"
import { makeGraphStoreMemory } from "../../src/layers/GraphStoreMemory.js"
import { listSlots, slotHistory, slotVersions } from "../../src/programs/slots.js"
import { GraphStore } from "../../src/services/GraphStore.js"

const NOW = "2026-06-01T00:00:00.000Z"

/** "My name is Alice" (Jan), "My name is Bob" (Feb), "My name is Alice" again (Mar), as consolidation leaves them. */
const nameNodes: ReadonlyArray<MemoryNode> = [
  makeNode({ id: "a1", type: "semantic", content: "My name is Alice", createdAt: "2026-01-05T10:00:00.000Z", canonicalKey: "fact:my name", status: "superseded", validTo: "2026-02-10T09:00:00.000Z" }),
  makeNode({ id: "b", type: "semantic", content: "My name is Bob", createdAt: "2026-02-10T09:00:00.000Z", canonicalKey: "fact:my name", status: "superseded", validTo: "2026-03-15T09:00:00.000Z", supersedes: ["a1"] }),
  makeNode({ id: "a2", type: "semantic", content: "my name is alice.", createdAt: "2026-03-15T09:00:00.000Z", canonicalKey: "fact:my name", supersedes: ["b"] })
]
const others: ReadonlyArray<MemoryNode> = [
  makeNode({ id: "e1", type: "semantic", content: "My favourite editor is vim", createdAt: "2026-01-05T10:01:00.000Z", canonicalKey: "fact:my favourite editor", status: "superseded", validTo: "2026-02-10T09:01:00.000Z" }),
  makeNode({ id: "e2", type: "semantic", content: "Actually, my favourite editor is emacs", createdAt: "2026-02-10T09:01:00.000Z", canonicalKey: "fact:my favourite editor", supersedes: ["e1"] }),
  makeNode({ id: "p", type: "semantic", content: "PERSON: Alice", createdAt: "2026-01-05T10:00:00.000Z", entityType: "PERSON" }),
  makeNode({ id: "w", type: "semantic", content: "I work at Acme", createdAt: "2026-01-20T10:00:00.000Z", canonicalKey: "fact:i work at", scope: "/work/project" })
]

const store = (nodes: ReadonlyArray<MemoryNode>) =>
  Layer.effect(GraphStore, makeGraphStoreMemory({ nodes: new Map(nodes.map((n) => [n.id, n])), edges: [] }))

describe("slot versions", () => {
  it("orders by window start and marks a value said again after another as re-asserted", () => {
    const versions = slotVersions([...nameNodes].reverse(), NOW)
    expect(versions.map((v) => [v.id, v.value, v.reasserted, v.current])).toEqual([
      ["a1", "my name is alice", false, false],
      ["b", "my name is bob", false, false],
      ["a2", "my name is alice", true, true]
    ])
    expect(versions.map((v) => [v.start, v.end])).toEqual([
      ["2026-01-05T10:00:00.000Z", "2026-02-10T09:00:00.000Z"],
      ["2026-02-10T09:00:00.000Z", "2026-03-15T09:00:00.000Z"],
      ["2026-03-15T09:00:00.000Z", null]
    ])
  })

  it("a correction of the same value is the same value (no re-assertion without another in between)", () => {
    const same = [
      makeNode({ id: "x1", type: "semantic", content: "The port is 8080", createdAt: "2026-01-01T00:00:00.000Z", canonicalKey: "fact:the port", status: "superseded", validTo: "2026-01-02T00:00:00.000Z" }),
      makeNode({ id: "x2", type: "semantic", content: "Actually, the port is 8080", createdAt: "2026-01-02T00:00:00.000Z", canonicalKey: "fact:the port" })
    ]
    expect(slotVersions(same, NOW).map((v) => [v.value, v.reasserted])).toEqual([
      ["the port is 8080", false],
      ["the port is 8080", false]
    ])
  })
})

describe("listSlots", () => {
  it.effect("lists each key (per scope) with the value held now, most recently changed first", () =>
    Effect.gen(function* () {
      const page = yield* listSlots({ text: "", asOf: null, offset: 0, limit: 10 })
      expect(page.total).toBe(3)
      expect(page.items.map((s) => [s.key, s.scope, s.held?.content ?? null, s.versions, s.lastChange])).toEqual([
        ["fact:my name", null, "my name is alice.", 3, "2026-03-15T09:00:00.000Z"],
        ["fact:my favourite editor", null, "Actually, my favourite editor is emacs", 2, "2026-02-10T09:01:00.000Z"],
        ["fact:i work at", "/work/project", "I work at Acme", 1, "2026-01-20T10:00:00.000Z"]
      ])
      expect(page.range.from).toBe("2026-01-05T10:00:00.000Z")
    }).pipe(Effect.provide(store([...nameNodes, ...others])))
  )

  it.effect("as of a moment, each key shows what held then (superseded or not), and nothing before it began", () =>
    Effect.gen(function* () {
      const feb = yield* listSlots({ text: "", asOf: "2026-02-20T00:00:00.000Z", offset: 0, limit: 10 })
      expect(feb.items.map((s) => [s.key, s.held?.id ?? null])).toEqual([
        ["fact:my name", "b"],
        ["fact:my favourite editor", "e2"],
        ["fact:i work at", "w"]
      ])
      const jan = yield* listSlots({ text: "", asOf: "2026-01-10T00:00:00.000Z", offset: 0, limit: 10 })
      expect(jan.items.map((s) => [s.key, s.held?.id ?? null])).toEqual([
        ["fact:my name", "a1"],
        ["fact:my favourite editor", "e1"],
        ["fact:i work at", null]
      ])
    }).pipe(Effect.provide(store([...nameNodes, ...others])))
  )

  it.effect("filters by key or any version's text, and pages on the server", () =>
    Effect.gen(function* () {
      expect((yield* listSlots({ text: "BOB", asOf: null, offset: 0, limit: 10 })).items.map((s) => s.key)).toEqual(["fact:my name"])
      expect((yield* listSlots({ text: "editor", asOf: null, offset: 0, limit: 10 })).items.map((s) => s.key)).toEqual(["fact:my favourite editor"])
      const second = yield* listSlots({ text: "", asOf: null, offset: 1, limit: 1 })
      expect([second.total, second.offset, second.items.map((s) => s.key)]).toEqual([3, 1, ["fact:my favourite editor"]])
    }).pipe(Effect.provide(store([...nameNodes, ...others])))
  )

  it.effect("a slot's history holds only its own scope's versions", () =>
    Effect.gen(function* () {
      const h = yield* slotHistory("fact:my name", null)
      expect(h.versions.map((v) => v.id)).toEqual(["a1", "b", "a2"])
      expect((yield* slotHistory("fact:i work at", null)).versions).toEqual([])
      expect((yield* slotHistory("fact:i work at", "/work/project")).versions.map((v) => v.id)).toEqual(["w"])
    }).pipe(Effect.provide(store([...nameNodes, ...others])))
  )
})
