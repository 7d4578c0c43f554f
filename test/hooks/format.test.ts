import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { RetrievalResult } from "../../src/domain/Result.js"
import { parseHookArgv } from "../../src/hooks/argv.js"
import { CONTEXT_HEADER, formatContext, promptHookOutput, truncateClean, withoutEcho } from "../../src/hooks/context.js"
import { claudeSessionId, parsePayload } from "../../src/hooks/payload.js"
import { renderSettings, settingsBlock } from "../../src/hooks/settings.js"

const result = (content: string, refs: RetrievalResult["sourceRefs"] = []): RetrievalResult => ({
  content,
  source: "graph",
  score: 0.5,
  sourceRefs: refs
})

describe("hook payload", () => {
  it.effect("reads Claude Code's fields; user_prompt wins over prompt", () =>
    Effect.gen(function* () {
      const p = yield* parsePayload(
        JSON.stringify({ session_id: "abc", cwd: "/proj", hook_event_name: "UserPromptSubmit", prompt: "a", user_prompt: "b", extra: 1 })
      )
      expect(p).toEqual({
        sessionId: "abc",
        cwd: "/proj",
        hookEventName: "UserPromptSubmit",
        prompt: "b",
        lastAssistantMessage: null,
        transcriptPath: null,
        project: "/proj"
      })
    }))

  it.effect("empty stdin is nothing to do; garbage and non-objects are errors", () =>
    Effect.gen(function* () {
      expect(yield* parsePayload("  \n")).toBeNull()
      const garbage = yield* Effect.flip(parsePayload("{not json"))
      expect(garbage.message).toBe("stdin is not a JSON object (expected Claude Code's hook payload)")
      expect((yield* Effect.flip(parsePayload("[1,2]")))._tag).toBe("HookInputError")
      expect((yield* Effect.flip(parsePayload('"text"')))._tag).toBe("HookInputError")
    }))

  it.effect("session ids get one claude- prefix; a missing one is claude-unknown", () =>
    Effect.gen(function* () {
      const id = (json: object) => parsePayload(JSON.stringify(json)).pipe(Effect.map((p) => claudeSessionId(p!)))
      expect(yield* id({ session_id: "s1" })).toBe("claude-s1")
      expect(yield* id({ session_id: "claude-s1" })).toBe("claude-s1")
      expect(yield* id({})).toBe("claude-unknown")
      expect(yield* id({ session_id: "" })).toBe("claude-unknown")
      expect(yield* id({ session_id: 42 })).toBe("claude-42")
    }))
})

describe("prompt hook context", () => {
  it("lists memories under the header, one line each, inner whitespace collapsed", () => {
    expect(formatContext(["My name is Alice", "I prefer\n  dark mode"], 2000)).toBe(
      `${CONTEXT_HEADER}\n- My name is Alice\n- I prefer dark mode`
    )
    expect(formatContext([], 2000)).toBeNull()
    expect(formatContext(["  ", "\n"], 2000)).toBeNull()
  })

  it("drops duplicate memories (same normalized text)", () => {
    expect(formatContext(["The port is 8080", "the port is 8080.", "x is y"], 2000)).toBe(
      `${CONTEXT_HEADER}\n- The port is 8080\n- x is y`
    )
  })

  it("never exceeds the budget; the last item is cut at a word with an ellipsis", () => {
    const long = "The deployment pipeline runs on the staging cluster every night at two"
    const budget = CONTEXT_HEADER.length + "\n- short one".length + 3 + 40
    const out = formatContext(["short one", long, "never reached"], budget)!
    expect(out.length).toBeLessThanOrEqual(budget)
    expect(out).toBe(`${CONTEXT_HEADER}\n- short one\n- The deployment pipeline runs on the…`)
  })

  it("drops a cut item too short to be useful", () => {
    const budget = CONTEXT_HEADER.length + "\n- first".length + 3 + 10
    expect(formatContext(["first", "a memory that is quite long indeed"], budget)).toBe(`${CONTEXT_HEADER}\n- first`)
    expect(formatContext(["a memory that is quite long indeed"], 10)).toBeNull()
  })

  it("truncateClean keeps short text and cuts long text with an ellipsis", () => {
    expect(truncateClean("short", 10)).toBe("short")
    expect(truncateClean("abcdefghijklmnop", 8)).toBe("abcdefg…")
    expect(truncateClean("alpha beta, gamma delta", 13)).toBe("alpha beta…")
  })

  it("withoutEcho drops the prompt's own message and copies of its text", () => {
    const own = { sessionId: "claude-s", messageIndex: 4 }
    const kept = withoutEcho(
      [
        result("I prefer Rust", [own]),
        result("  what is my NAME? "),
        result("My name is Alice", [{ sessionId: "claude-s", messageIndex: 1 }]),
        result("The port is 8080", [{ sessionId: "claude-other", messageIndex: 4 }])
      ],
      "What is my name?",
      own
    )
    expect(kept.map((r) => r.content)).toEqual(["My name is Alice", "The port is 8080"])
  })

  it("wraps the context as Claude Code's UserPromptSubmit output", () => {
    expect(JSON.parse(promptHookOutput("ctx"))).toEqual({
      hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "ctx" }
    })
  })
})

describe("hook settings", () => {
  it("prints Claude Code's hooks block with the given command", () => {
    expect(JSON.parse(renderSettings("/opt/bin/awhm"))).toEqual({
      hooks: {
        SessionStart: [{ hooks: [{ type: "command", command: "/opt/bin/awhm hook session-start", timeout: 20 }] }],
        UserPromptSubmit: [{ hooks: [{ type: "command", command: "/opt/bin/awhm hook prompt", timeout: 20 }] }],
        Stop: [{ hooks: [{ type: "command", command: "/opt/bin/awhm hook stop", timeout: 20 }] }],
        SessionEnd: [{ hooks: [{ type: "command", command: "/opt/bin/awhm hook session-end", timeout: 60 }] }]
      }
    })
    expect(settingsBlock("npx awhm").hooks.Stop[0]!.hooks[0]!.command).toBe("npx awhm hook stop")
  })
})

describe("hook argv (the bin's fast path)", () => {
  it("parses the options the full CLI accepts", () => {
    expect(parseHookArgv(["prompt", "-k", "3", "--semantic", "--data-dir=/d"])).toEqual({
      args: { event: "prompt", k: 3, semantic: true, dataDir: "/d" },
      problems: []
    })
    expect(parseHookArgv(["session-end", "--stage2"]).args).toEqual({ event: "session-end", stage2: true })
    expect(parseHookArgv(["settings", "--command", "npx awhm"]).args).toEqual({ event: "settings", command: "npx awhm" })
    expect(parseHookArgv(["serve", "--idle-seconds", "60", "--data-dir", "/d"]).args).toEqual({ event: "serve", idleSeconds: 60, dataDir: "/d" })
    expect(parseHookArgv(["serve", "--idle-seconds=0"]).problems).toEqual(["--idle-seconds expects a whole number >= 1, got '0'"])
  })

  it("reports bad or unknown arguments but still runs with the defaults", () => {
    expect(parseHookArgv(["prompt", "-k", "zero", "--bogus"])).toEqual({
      args: { event: "prompt" },
      problems: ["-k expects a whole number >= 1, got 'zero'", "ignored unknown argument '--bogus'"]
    })
    expect(parseHookArgv(["prompt", "-k"]).problems).toEqual(["-k needs a value"])
  })

  it("rejects an unknown event", () => {
    expect(parseHookArgv(["pre-tool"])).toEqual({
      args: null,
      problems: ["unknown hook 'pre-tool' (expected one of: session-start, prompt, stop, session-end, settings, serve, shutdown)"]
    })
  })
})
