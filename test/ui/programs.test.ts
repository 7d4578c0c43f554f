import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { type Edge, makeNode, type MemoryNode } from "../../src/domain/Node.js"
import { ConfigFromValues } from "../../src/layers/ConfigLive.js"
import { UnusedGraphFileLive } from "../../src/layers/graph/UnusedGraphFileLive.js"
import { DeletionRecordsFile } from "../../src/layers/DeletionRecordsFile.js"
import { GraphStoreSqlite } from "../../src/layers/GraphStoreSqlite.js"
import { RawLogLive } from "../../src/layers/RawLogLive.js"
import { SessionBufferLive } from "../../src/layers/SessionBufferLive.js"
import { previewDeletion } from "../../src/programs/deletionPreview.js"
import { hardDelete } from "../../src/programs/hardDelete.js"
import { logMessage } from "../../src/programs/logMessage.js"
import { findNodes, nodeNeighbourhood } from "../../src/programs/neighbourhood.js"
import { listSessions, sessionLog } from "../../src/programs/sessionView.js"
import { createSnapshot } from "../../src/programs/snapshot.js"
import { GraphStore } from "../../src/services/GraphStore.js"
import { SessionBuffer } from "../../src/services/SessionBuffer.js"
import { tempDir } from "../support/graphFixtures.js"

const at = "2026-03-01T10:00:00.000Z"
const live = (dir: string) =>
  Layer.mergeAll(RawLogLive, SessionBufferLive, GraphStoreSqlite, UnusedGraphFileLive, DeletionRecordsFile).pipe(Layer.provideMerge(ConfigFromValues(dir, {})))
const node = (id: string, content: string, sessionId: string, index: number, extra: Partial<MemoryNode> = {}) =>
  makeNode({ id, type: "semantic", content, createdAt: at, sourceSessions: [sessionId], sourceRefs: [{ sessionId, messageIndex: index }], ...extra })
const edge = (source: string, target: string, type: Edge["type"], weight: number): Edge => ({ source, target, type, weight, createdAt: at })

/** s1:1 gave the correction T and its sibling S; O came from s1:0, P from s2:0. */
const seed = Effect.gen(function* () {
  yield* logMessage({ sessionId: "s1", role: "user", content: "My name is Alice", timestamp: at })
  yield* logMessage({ sessionId: "s1", role: "user", content: "Actually, the port is 8080", timestamp: at })
  yield* logMessage({ sessionId: "s1", role: "assistant", content: "Noted.", timestamp: at })
  yield* logMessage({ sessionId: "s2", role: "user", content: "I prefer dark mode", timestamp: at })
  yield* (yield* SessionBuffer).flush()
  yield* (yield* GraphStore).commit({
    upsertNodes: [
      node("T", "Actually, the port is 8080", "s1", 1, { canonicalKey: "fact:the port" }),
      node("S", "the port is 8080", "s1", 1),
      node("O", "My name is Alice", "s1", 0, { supersedes: ["B"] }),
      node("B", "My name is Bob", "s0", 0, { status: "superseded" }),
      node("P", "I prefer dark mode", "s2", 0, { type: "procedural" })
    ],
    addEdges: [edge("T", "S", "association", 0.5), edge("O", "T", "temporal", 0.9), edge("O", "P", "association", 0.7)]
  })
  yield* createSnapshot()
})

describe("the delete confirmation", () => {
  it.scoped("lists exactly what hardDelete then removes", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      yield* Effect.gen(function* () {
        yield* seed
        const preview = yield* previewDeletion("T")
        expect(preview.siblings.map((n) => n.id)).toEqual(["S"])
        expect(preview.messages).toEqual([{ sessionId: "s1", index: 1, role: "user", content: "Actually, the port is 8080" }])
        expect(preview.bufferEntries.map((b) => [b.sessionId, b.type])).toEqual([["s1", "correction"], ["s1", "fact"]])
        expect([preview.edges, preview.snapshots, preview.matchStrategy, preview.keepSiblings]).toEqual([2, 1, "source_refs", false])
        // Reading it changed nothing.
        expect((yield* (yield* GraphStore).counts).nodes).toBe(5)

        const { result } = yield* hardDelete("T")
        expect([result.siblingsRemoved, result.logEntriesRemoved, result.bufferEntriesRemoved, result.edgesRemoved, result.snapshotsTouched, result.matchStrategy]).toEqual([
          preview.siblings.map((n) => n.id),
          preview.messages.length,
          preview.bufferEntries.length,
          preview.edges,
          preview.snapshots,
          preview.matchStrategy
        ])
      }).pipe(Effect.provide(live(dir)))
    })
  )

  it.scoped("keeping siblings keeps them out of the list; an unknown node is NodeNotFound", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      yield* Effect.gen(function* () {
        yield* seed
        const kept = yield* previewDeletion("T", { keepSiblings: true })
        expect([kept.siblings, kept.edges, kept.keepSiblings]).toEqual([[], 2, true])
        const missing = yield* Effect.flip(previewDeletion("nope"))
        expect([missing._tag, missing.message]).toEqual(["NodeNotFound", "node nope not found"])
      }).pipe(Effect.provide(live(dir)))
    })
  )
})

describe("graph and session views", () => {
  it.scoped("a node's neighbourhood: heaviest edges first, both directions, supersession both ways", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      yield* Effect.gen(function* () {
        yield* seed
        const o = yield* nodeNeighbourhood("O", { offset: 0, limit: 10 })
        expect(o.neighbours.map((n) => [n.node.id, n.edgeType, n.weight, n.direction])).toEqual([
          ["T", "temporal", 0.9, "out"],
          ["P", "association", 0.7, "out"]
        ])
        expect([o.total, o.supersedes.map((n) => n.id), o.supersededBy]).toEqual([2, ["B"], []])
        expect((yield* nodeNeighbourhood("B", { offset: 0, limit: 10 })).supersededBy.map((n) => n.id)).toEqual(["O"])
        const page2 = yield* nodeNeighbourhood("O", { offset: 1, limit: 1 })
        expect([page2.total, page2.neighbours.map((n) => n.node.id)]).toEqual([2, ["P"]])
        expect((yield* findNodes({ text: "PORT", status: null, offset: 0, limit: 10 })).items.map((n) => n.id)).toEqual(["S", "T"])
        expect((yield* findNodes({ text: "", status: "superseded", offset: 0, limit: 10 })).items.map((n) => n.id)).toEqual(["B"])
      }).pipe(Effect.provide(live(dir)))
    })
  )

  it.scoped("a session's log: each message with its buffer entries and the nodes it produced; a link opens its page", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir()
      yield* Effect.gen(function* () {
        yield* seed
        const log = yield* sessionLog("s1", { offset: 0, limit: 10 })
        expect(log.messages.map((m) => [m.index, m.role, m.buffer.map((b) => b.type), m.nodes.map((n) => n.id)])).toEqual([
          [0, "user", ["fact"], ["O"]],
          [1, "user", ["correction", "fact"], ["T", "S"]],
          [2, "assistant", [], []]
        ])
        const at2 = yield* sessionLog("s1", { offset: 0, limit: 2, at: 2 })
        expect([at2.total, at2.offset, at2.messages.map((m) => m.index)]).toEqual([3, 2, [2]])
        const sessions = yield* listSessions({ text: "", offset: 0, limit: 10 })
        expect([sessions.total, sessions.items.map((s) => s.sessionId)]).toEqual([2, ["s2", "s1"]])
        expect((yield* listSessions({ text: "1", offset: 0, limit: 10 })).items.map((s) => s.sessionId)).toEqual(["s1"])
      }).pipe(Effect.provide(live(dir)))
    })
  )
})
