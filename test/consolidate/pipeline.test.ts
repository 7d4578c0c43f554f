import * as fs from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Logger } from "effect"
import type { CorruptFile, StorageError } from "../../src/domain/errors.js"
import { StorageError as StorageErrorClass } from "../../src/domain/errors.js"
import { EmbedderNone } from "../../src/layers/EmbedderNone.js"
import { makeGraphStoreMemory } from "../../src/layers/GraphStoreMemory.js"
import { Stage2Mock } from "../../src/layers/Stage2Mock.js"
import { dataPaths } from "../../src/store/paths.js"
import { consolidatePending, consolidateSession } from "../../src/programs/consolidate.js"
import { Embedder, EmbedderError } from "../../src/services/Embedder.js"
import { GraphStore } from "../../src/services/GraphStore.js"
import { RawLog } from "../../src/services/RawLog.js"
import { allNodes, at, byContent, progressText, say, statements, withStores } from "./support.js"

type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
// The error union is inferred; an unreadable log, a damaged file or a store failure are the only ways
// a run fails (embedding failures are recovered from: see below).
const errorsOfPending: Equals<Effect.Effect.Error<ReturnType<typeof consolidatePending>>, StorageError | CorruptFile> = true
const errorsOfSession: Equals<Effect.Effect.Error<ReturnType<typeof consolidateSession>>, StorageError | CorruptFile> = true

describe("entities", () => {
  it.scoped("names become entity nodes; later mentions in any form resolve to them and register the alias", () =>
    withStores(() =>
      Effect.gen(function* () {
        yield* say("s1", "I work at Acme Holdings Ltd with Priya Natarajan.", 0)
        expect(yield* consolidateSession("s1")).toBe(3)
        yield* say("s2", "Yesterday Acme's office flooded, Priya Natarajan said.", 60)
        yield* consolidateSession("s2")
        const ns = yield* allNodes
        const ents = ns.filter((n) => n.entityType !== null)
        expect(ents.map((n) => [n.content, n.entityType, n.aliases, n.sourceSessions, n.accessCount])).toEqual([
          ["ORG: Acme Holdings Ltd", "ORG", ["Acme"], ["s1", "s2"], 2],
          ["PERSON: Priya Natarajan", "PERSON", [], ["s1", "s2"], 2]
        ])
        expect(ents.every((n) => n.canonicalKey === null && n.confidence === 0.75 && n.type === "semantic")).toBe(true)
      })
    )
  )

  it.scoped("statements link to the entities they name (association, 0.8); new episodic nodes are chained (temporal)", () =>
    withStores(() =>
      Effect.gen(function* () {
        yield* say("s1", "I work at Zentrox Labs now.", 0)
        yield* say("s1", "Error: Zentrox Labs VPN refused the connection", 1, "tool_result")
        yield* say("s1", "That worked, thanks!", 2)
        yield* consolidateSession("s1")
        const store = yield* GraphStore
        const g = yield* store.load()
        const id = (content: string) => byContent([...g.nodes.values()], content).id
        const edges = g.edges.map((e) => [e.source, e.target, e.type, e.weight])
        expect(edges).toEqual([
          [id("Error: Zentrox Labs VPN refused the connection"), id("That worked"), "temporal", 1],
          [id("I work at Zentrox Labs now."), id("ORG: Zentrox Labs"), "association", 0.8],
          [id("Error: Zentrox Labs VPN refused the connection"), id("ORG: Zentrox Labs"), "association", 0.8]
        ])
      })
    )
  )
})

describe("validity windows", () => {
  it.scoped("valid_from is the message's time by default, or its from/since date; until sets valid_to", () =>
    withStores(() =>
      Effect.gen(function* () {
        yield* say("s1", "My favourite colour is green", 0)
        yield* say("s1", "Since 2026-02-14, my office is in Berlin.", 5)
        yield* say("s1", "Until 2026-06-30 the API endpoint is https://staging.example.com", 6)
        yield* say("s1", "I lived in Paris until 2020, it was lovely.", 7)
        yield* consolidateSession("s1")
        const ns = yield* statements
        const win = (c: string) => {
          const n = byContent(ns, c)
          return [n.validFrom, n.validTo, n.mentionedDates]
        }
        expect(win("My favourite colour is green")).toEqual([at(0), null, []])
        expect(win("my office is in Berlin.")).toEqual(["2026-02-14T00:00:00.000Z", null, ["2026-02-14T00:00:00.000Z"]])
        expect(win("the API endpoint is https://staging.example.com")).toEqual([at(6), "2026-06-30T00:00:00.000Z", ["2026-06-30T00:00:00.000Z"]])
        // A window that ended before the message describes the past: open start, ended.
        expect(win("I lived in Paris until 2020, it was lovely.")).toEqual([null, "2020-01-01T00:00:00.000Z", ["2020-01-01T00:00:00.000Z"]])
        expect(byContent(ns, "I lived in Paris until 2020, it was lovely.").type).toBe("episodic")
      })
    )
  )

  it.scoped("a superseded node with an earlier end keeps it", () =>
    withStores(() =>
      Effect.gen(function* () {
        yield* say("s1", "Until 2026-02-20 my manager is Dana", 0)
        yield* say("s2", "My manager is Lee", 30)
        yield* consolidatePending()
        const ns = yield* statements
        expect([byContent(ns, "my manager is Dana").status, byContent(ns, "my manager is Dana").validTo]).toEqual([
          "superseded", "2026-02-20T00:00:00.000Z"
        ])
      })
    )
  )
})

describe("roles", () => {
  it.scoped("assistant and tool-call text yields no nodes; tool results only outcomes", () =>
    withStores(() =>
      Effect.gen(function* () {
        yield* say("s1", "Actually, the port is 8080. I met Priya Natarajan yesterday.", 0, "assistant")
        yield* say("s1", "I prefer Rust", 1, "tool_call")
        yield* say("s1", "My name is Bob. Traceback (most recent call last): boom", 2, "tool_result")
        expect(yield* consolidateSession("s1")).toBe(1)
        expect((yield* allNodes).map((n) => [n.content, n.type])).toEqual([
          ["Traceback (most recent call last): boom", "episodic"]
        ])
      })
    )
  )
})

describe("progress", () => {
  it.scoped("runs are incremental and idempotent, with progress in the v2 file", () =>
    withStores((dir) =>
      Effect.gen(function* () {
        yield* say("s1", "My favourite colour is green", 0)
        yield* say("s1", "I prefer tea", 1)
        expect(yield* consolidatePending()).toEqual({ newNodes: 2, sessions: { s1: 2 } })
        const first = JSON.parse(progressText(dir)!)
        expect(first).toEqual({ version: 2, sessions: { s1: { last_msg_index: 1, updated_at: expect.any(String) } } })
        // Again: nothing new, nothing written.
        expect(yield* consolidatePending()).toEqual({ newNodes: 0, sessions: {} })
        expect(JSON.parse(progressText(dir)!)).toEqual(first)
        expect(yield* statements).toHaveLength(2)
        // New messages later are picked up, and only they.
        yield* say("s1", "The port is 8080", 2)
        yield* say("s2", "Our deadline is next week", 3)
        expect(yield* consolidatePending()).toEqual({ newNodes: 2, sessions: { s1: 1, s2: 1 } })
        expect(JSON.parse(progressText(dir)!).sessions.s1.last_msg_index).toBe(2)
        expect(yield* statements).toHaveLength(4)
      })
    )
  )

  it.scoped("a log whose last messages were deleted is clamped; new messages after it are consolidated", () =>
    withStores((dir) =>
      Effect.gen(function* () {
        for (const [i, t] of ["My favourite colour is green", "I prefer tea", "The host is db2"].entries()) yield* say("s1", t, i)
        yield* consolidateSession("s1")
        const log = yield* RawLog
        yield* log.removeEntries("s1", new Set([1, 2]))
        yield* say("s1", "My favourite tea is oolong", 5)
        expect(yield* consolidateSession("s1")).toBe(1)
        expect(JSON.parse(progressText(dir)!).sessions.s1.last_msg_index).toBe(3)
      })
    )
  )

  it.scoped("--session consolidates one session only", () =>
    withStores(() =>
      Effect.gen(function* () {
        yield* say("s1", "My favourite colour is green", 0)
        yield* say("s2", "My favourite tea is oolong", 1)
        expect(yield* consolidatePending({ sessionId: "s2" })).toEqual({ newNodes: 1, sessions: { s2: 1 } })
        expect(yield* consolidatePending({ sessionId: "nobody" })).toEqual({ newNodes: 0, sessions: {} })
      })
    )
  )

  it.scoped("v1 progress files are migrated: listed sessions count as done, indices are kept", () =>
    withStores((dir) =>
      Effect.gen(function* () {
        yield* say("a", "My favourite colour is green", 0)
        yield* say("b", "The host is db2", 1)
        yield* say("b", "My favourite tea is oolong", 2)
        fs.mkdirSync(dataPaths(dir).meta, { recursive: true })
        fs.writeFileSync(dataPaths(dir).progress, JSON.stringify({ sessions: ["a"] }))
        // "a" was consolidated in full; "b" has no progress yet.
        expect(yield* consolidatePending()).toEqual({ newNodes: 2, sessions: { b: 2 } })
        const file = JSON.parse(progressText(dir)!)
        expect([file.version, file.sessions.a.last_msg_index, file.sessions.b.last_msg_index]).toEqual([2, 0, 1])
        yield* say("a", "I prefer tea", 3)
        expect(yield* consolidatePending()).toEqual({ newNodes: 1, sessions: { a: 1 } })
        // The other v1 form: session → last index.
        fs.writeFileSync(dataPaths(dir).progress, JSON.stringify({ a: 1, b: 0 }))
        expect(yield* consolidatePending()).toEqual({ newNodes: 0, sessions: { b: 0 } })
        expect(yield* statements).toHaveLength(3)
      })
    )
  )
})

describe("failures", () => {
  const diskFull = new StorageErrorClass({ operation: "save graph", path: "/x/memory_graph.sqlite", message: "disk full" })
  const failingStore = Layer.effect(
    GraphStore,
    Effect.map(makeGraphStoreMemory(), (store) =>
      GraphStore.of({ ...store, update: () => Effect.fail(diskFull), updatePart: () => Effect.fail(diskFull) })
    )
  )

  it.scoped("a store failure leaves the graph and the progress index as they were", () =>
    withStores(
      (dir) =>
        Effect.gen(function* () {
          yield* say("s1", "My name is Alice", 0)
          const error = yield* Effect.flip(consolidatePending())
          expect([error._tag, error.message]).toEqual(["StorageError", "disk full"])
          expect(progressText(dir)).toBeNull()
          expect(yield* allNodes).toEqual([])
        }),
      { graphStore: failingStore }
    )
  )

  it.scoped("a damaged progress file is a CorruptFile failure that changes nothing", () =>
    withStores((dir) =>
      Effect.gen(function* () {
        yield* say("s1", "My name is Alice", 0)
        fs.mkdirSync(dataPaths(dir).meta, { recursive: true })
        fs.writeFileSync(dataPaths(dir).progress, "{oops")
        const error = yield* Effect.flip(consolidateSession("s1"))
        expect(error._tag).toBe("CorruptFile")
        expect(progressText(dir)).toBe("{oops")
        expect(yield* allNodes).toEqual([])
      })
    )
  )

  it.scoped("an unreadable log fails the run before anything is written", () =>
    withStores(
      (dir) =>
        Effect.gen(function* () {
          const error = yield* Effect.flip(consolidateSession("s1"))
          expect(error._tag).toBe("StorageError")
          expect(progressText(dir)).toBeNull()
        }),
      {
        rawLog: Layer.succeed(RawLog, RawLog.of({
          append: () => Effect.die("unused"),
          read: () => Effect.fail(new StorageErrorClass({ operation: "read log", path: "/x/s1.jsonl", message: "permission denied" })),
          sessions: Effect.succeed([{ sessionId: "s1", mtimeMs: 1, stamp: "1" }]),
          session: () => Effect.die("unused"),
          changesSince: () => Effect.die("unused"),
          removeEntries: () => Effect.die("unused"),
          nextIndex: () => Effect.die("unused"),
          copyIn: () => Effect.die("unused"),
          stats: Effect.succeed({ sessions: 1, messages: 0 })
        }))
      }
    )
  )

  it.scoped("without embeddings (disabled or failing) it still dedups exact statements; a failure warns once", () =>
    Effect.gen(function* () {
      const lines: Array<string> = []
      const capture = Logger.replace(Logger.defaultLogger, Logger.make(({ logLevel, message }) => {
        lines.push(`${logLevel.label} ${(Array.isArray(message) ? message : [message]).map(String).join(" ")}`)
      }))
      const failing = Layer.succeed(Embedder, Embedder.of({
        modelId: "broken", enabled: true, dimension: 384,
        embed: () => Effect.fail(new EmbedderError({ operation: "load", message: "model files missing" }))
      }))
      for (const embedder of [EmbedderNone, failing]) {
        const ns = yield* withStores(
          () =>
            Effect.gen(function* () {
              yield* say("s1", "I prefer dark mode", 0)
              yield* say("s2", "I prefer dark mode", 1)
              yield* consolidatePending()
              return yield* statements
            }),
          { embedder }
        ).pipe(Effect.provide(capture))
        expect(ns.map((n) => [n.content, n.embedding, n.embedModel, n.accessCount])).toEqual([["I prefer dark mode", null, null, 2]])
      }
      // Disabled: silent. Failing: one warning for the two sessions, naming the cause, no memory content.
      expect(lines).toEqual([
        "WARN the embedder failed (model files missing); consolidating without embedding dedup or entity linking"
      ])
    })
  )
})

describe("embeddings and Stage 2", () => {
  it.scoped("nodes store their vector and the embedder's model id", () =>
    withStores(() =>
      Effect.gen(function* () {
        yield* say("s1", "I prefer dark mode", 0)
        yield* consolidateSession("s1")
        const [n] = yield* statements
        expect([n!.embedModel, n!.embedding?.length]).toEqual(["mock-hash-384", 384])
      })
    )
  )

  it.scoped("with stage2_enabled the proposals are committed through the same slot rules", () =>
    withStores(
      () =>
        Effect.gen(function* () {
          yield* say("s1", "let's go with Rust then", 0)
          yield* consolidateSession("s1")
          const ns = yield* statements
          expect(ns.map((n) => [n.content, n.canonicalKey, n.sourceRefs])).toEqual([
            ["The user chose Rust for the project", "fact:project language", [{ sessionId: "s1", messageIndex: 0 }]]
          ])
        }),
      {
        config: { stage2_enabled: "true" },
        stage2: Stage2Mock([
          {
            memories: [{
              content: "The user chose Rust for the project", type: "semantic", slot: "project language",
              valid_from: null, valid_to: null, confidence: 0.9, sources: [0], supersedes_previous: false
            }]
          }
        ])
      }
    )
  )

  it("the inferred error union is StorageError | CorruptFile", () => {
    expect([errorsOfPending, errorsOfSession]).toEqual([true, true])
  })
})
