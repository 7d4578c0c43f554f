import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { ConfigFromValues } from "../../src/layers/ConfigLive.js"
import { EmbedderMock } from "../../src/layers/EmbedderMock.js"
import { GraphStoreMemory } from "../../src/layers/GraphStoreMemory.js"
import { RawLogMemory } from "../../src/layers/RawLogMemory.js"
import { Stage2Mock } from "../../src/layers/Stage2Mock.js"
import { consolidateSession } from "../../src/programs/consolidate.js"
import { GraphStore } from "../../src/services/GraphStore.js"
import { RawLog } from "../../src/services/RawLog.js"
import { tempDir } from "../support/graphFixtures.js"
import { captureLogs, memory } from "./support.js"

// Stage 2 inside consolidation: proposals are committed through the same slot and supersession rules.

const services = (dataDir: string, mock: ReturnType<typeof Stage2Mock>, stage2: boolean) =>
  Layer.mergeAll(
    ConfigFromValues(dataDir, { embedder: "mock", stage2_enabled: String(stage2) }),
    RawLogMemory,
    GraphStoreMemory,
    EmbedderMock,
    mock,
    captureLogs().layer
  )

const say = (content: string) =>
  Effect.flatMap(RawLog, (log) =>
    log.append({ sessionId: "s1", role: "user", content, timestamp: "2026-03-01T10:00:00.000Z" })
  )

const nodes = Effect.flatMap(GraphStore, (store) => store.load({ withEmbeddings: false })).pipe(
  Effect.map((graph) => [...graph.nodes.values()])
)

describe("consolidation with Stage 2", () => {
  it.scoped("a correction proposal supersedes an earlier proposal with the same slot", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("awhm-stage2-e2e-")
      const mock = Stage2Mock([
        { memories: [memory({ content: "The user's preferred editor is Neovim", sources: [0] })] },
        {
          memories: [
            memory({ content: "The user's preferred editor is Helix", sources: [1], supersedes_previous: true })
          ]
        }
      ])
      yield* Effect.gen(function* () {
        yield* say("Let's go with Neovim then, it's what I use")
        expect(yield* consolidateSession("s1")).toBeGreaterThanOrEqual(1)
        yield* say("Scratch that, switched to Helix last week")
        expect(yield* consolidateSession("s1")).toBeGreaterThanOrEqual(1)

        const all = yield* nodes
        const neovim = all.find((n) => n.content === "The user's preferred editor is Neovim")
        const helix = all.find((n) => n.content === "The user's preferred editor is Helix")
        expect(neovim).toMatchObject({ status: "superseded", canonicalKey: "fact:user preferred editor" })
        expect(neovim!.validTo).not.toBeNull()
        expect(helix).toMatchObject({
          status: "active",
          canonicalKey: "fact:user preferred editor",
          supersedes: [neovim!.id],
          sourceRefs: [{ sessionId: "s1", messageIndex: 1 }],
          confidence: 0.9
        })
        expect(mock.requests.map((r) => r.user.split("\n").filter((l) => l.startsWith("[")))).toEqual([
          ["[0] user: Let's go with Neovim then, it's what I use"],
          ["[1] user: Scratch that, switched to Helix last week"]
        ])
      }).pipe(Effect.provide(services(dir, mock, true)))
    }))

  it.scoped("Stage 1 statements are listed as already captured, and a proposal repeating one adds no node", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("awhm-stage2-e2e-")
      const mock = Stage2Mock([{ memories: [memory({ content: "I prefer Rust.", slot: null })] }])
      yield* Effect.gen(function* () {
        yield* say("I prefer Rust")
        yield* consolidateSession("s1")
        expect(mock.requests).toHaveLength(1)
        expect(mock.requests[0]!.user).toContain("Already captured (do not repeat):\n- i prefer rust\n")
        const rust = (yield* nodes).filter((n) => /rust/i.test(n.content) && n.entityType === null)
        expect(rust.map((n) => n.content)).toEqual(["I prefer Rust"])
      }).pipe(Effect.provide(services(dir, mock, true)))
    }))

  it.scoped("with Stage 2 disabled the client is never called", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("awhm-stage2-e2e-")
      const mock = Stage2Mock([{ memories: [memory()] }])
      yield* Effect.gen(function* () {
        yield* say("I prefer Rust")
        yield* consolidateSession("s1")
        expect(mock.requests).toEqual([])
        expect((yield* nodes).some((n) => n.content === "The user's preferred editor is Neovim")).toBe(false)
      }).pipe(Effect.provide(services(dir, mock, false)))
    }))
})
