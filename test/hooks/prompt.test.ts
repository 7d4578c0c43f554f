import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { RetrievalResult } from "../../src/domain/Result.js"
import { ConfigFromValues } from "../../src/layers/ConfigLive.js"
import { RawLogMemory } from "../../src/layers/RawLogMemory.js"
import { SessionBufferMemory } from "../../src/layers/SessionBufferMemory.js"
import { parsePayload } from "../../src/hooks/payload.js"
import { promptHook } from "../../src/hooks/prompt.js"
import { RawLog } from "../../src/services/RawLog.js"
import { Retriever, type RetrieveOptions } from "../../src/services/Retriever.js"
import { SessionBuffer } from "../../src/services/SessionBuffer.js"
import { scopedTempDir } from "../support/cli.js"

/** A retriever that records what it was asked and answers with fixed results. */
const fakeRetriever = (answer: (ownIndex: number) => ReadonlyArray<RetrievalResult>) => {
  const calls: Array<{ query: string; options: RetrieveOptions | undefined }> = []
  const layer = Layer.succeed(
    Retriever,
    Retriever.of({
      retrieve: (query, options) =>
        Effect.sync(() => {
          calls.push({ query, options })
          return answer(options?.exclude?.[0]?.messageIndex ?? -1)
        })
    })
  )
  return { calls, layer }
}

const graphResult = (content: string, refs: RetrievalResult["sourceRefs"]): RetrievalResult => ({
  content,
  source: "graph",
  score: 0.7,
  sourceRefs: refs
})

const run = (dir: string, retriever: Layer.Layer<Retriever>, payload: object, overrides: Record<string, string> = {}, semantic = false) =>
  parsePayload(JSON.stringify(payload)).pipe(
    Effect.flatMap((p) => promptHook(p!, { k: 5, semantic })),
    Effect.provide(Layer.merge(retriever, ConfigFromValues(dir, overrides)))
  )

const stores = Layer.merge(RawLogMemory, SessionBufferMemory)

describe("prompt hook program", () => {
  it.scoped("logs and buffers the prompt, asks for lexical results of this project, excluding the prompt itself", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir()
      const { calls, layer } = fakeRetriever((own) => [
        graphResult("The port is 8080", [{ sessionId: "claude-old", messageIndex: 3 }]),
        graphResult("My name is Alice", [{ sessionId: "claude-s1", messageIndex: own }]),
        graphResult("my name is alice!", [])
      ])
      const out = yield* Effect.gen(function* () {
        const out = yield* run(dir, layer, { session_id: "s1", cwd: "/proj", prompt: "  My name is Alice  " })
        const log = yield* (yield* RawLog).read("claude-s1")
        expect(log.map((e) => [e.role, e.content, e.metadata])).toEqual([["user", "My name is Alice", { scope: "/proj" }]])
        expect((yield* (yield* SessionBuffer).entries("claude-s1")).map((e) => e.content)).toEqual(["My name is Alice"])
        return out
      }).pipe(Effect.provide(stores))
      expect(calls).toEqual([
        {
          query: "My name is Alice",
          options: { k: 10, lexicalOnly: true, sessionId: "claude-s1", scope: "/proj", exclude: [{ sessionId: "claude-s1", messageIndex: 0 }] }
        }
      ])
      expect(JSON.parse(out!)).toEqual({
        hookSpecificOutput: {
          hookEventName: "UserPromptSubmit",
          additionalContext: "Relevant memories from previous sessions (from awhm):\n- The port is 8080"
        }
      })
    }))

  it.scoped("global scope mode recalls everything; --semantic lets the retriever use embeddings", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir()
      const { calls, layer } = fakeRetriever(() => [])
      const out = yield* run(dir, layer, { session_id: "s2", cwd: "/proj", prompt: "hello" }, { scope_mode: "global" }, true).pipe(
        Effect.provide(stores)
      )
      expect(out).toBeNull()
      expect(calls[0]?.options).toMatchObject({ lexicalOnly: false, scope: null })
    }))

  it.scoped("an empty prompt logs nothing and asks nothing", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir()
      const { calls, layer } = fakeRetriever(() => [graphResult("x is y", [])])
      expect(yield* run(dir, layer, { session_id: "s3", prompt: " \n " }).pipe(Effect.provide(stores))).toBeNull()
      expect(calls).toEqual([])
    }))
})
