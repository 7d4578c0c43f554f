import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { STAGE2_JSON_SCHEMA } from "../../src/domain/Stage2Proposal.js"
import { makeStage2Anthropic, type Stage2AnthropicOptions } from "../../src/layers/Stage2Anthropic.js"
import { Stage2Client, type Stage2Request } from "../../src/services/Stage2Client.js"
import { testConfig } from "./support.js"

// No network here: every test injects fetch.

interface Call {
  readonly url: string
  readonly method: string | undefined
  readonly headers: Record<string, string>
  readonly body: unknown
}

const fakeFetch = (status: number, body: unknown) => {
  const calls: Array<Call> = []
  const fetch = (async (url: string | URL | Request, init?: RequestInit) => {
    calls.push({
      url: String(url),
      method: init?.method,
      headers: init?.headers as Record<string, string>,
      body: JSON.parse(String(init?.body))
    })
    return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } })
  }) as typeof globalThis.fetch
  return { fetch, calls }
}

const request: Stage2Request = { system: "sys", user: "user text", schema: STAGE2_JSON_SCHEMA }

const complete = (options: Stage2AnthropicOptions, overrides: Record<string, string> = {}) =>
  Effect.flatMap(Stage2Client, (c) => c.complete(request)).pipe(
    Effect.provide(makeStage2Anthropic(options).pipe(Layer.provide(testConfig(overrides))))
  )

const ok = { stop_reason: "end_turn", content: [{ type: "text", text: '{"memories":[]}' }] }

describe("Stage2Anthropic", () => {
  it.effect("without a key: a Stage2Error saying how to fix it, and no request is made", () =>
    Effect.gen(function* () {
      const f = fakeFetch(200, ok)
      const error = yield* Effect.flip(complete({ fetch: f.fetch, env: {} }))
      expect(error).toMatchObject({
        _tag: "Stage2Error",
        client: "anthropic",
        message: "no Anthropic API key: set anthropic_api_key (or ANTHROPIC_API_KEY), or use the default claude-code client"
      })
      expect(f.calls).toEqual([])
    }))

  it.effect("builds the reference's request (ANTHROPIC_API_KEY, default model, json_schema output, fallbacks)", () =>
    Effect.gen(function* () {
      const f = fakeFetch(200, ok)
      const out = yield* complete({ fetch: f.fetch, env: { ANTHROPIC_API_KEY: "sk-env-123" } })
      expect(out).toBe('{"memories":[]}')
      expect(f.calls).toEqual([
        {
          url: "https://api.anthropic.com/v1/messages",
          method: "POST",
          headers: {
            "content-type": "application/json",
            "anthropic-version": "2023-06-01",
            "x-api-key": "sk-env-123",
            "anthropic-beta": "server-side-fallback-2026-07-01"
          },
          body: {
            model: "claude-opus-5",
            max_tokens: 16000,
            system: "sys",
            messages: [{ role: "user", content: "user text" }],
            output_config: { format: { type: "json_schema", schema: STAGE2_JSON_SCHEMA } },
            fallbacks: "default"
          }
        }
      ])
    }))

  it.effect("prefers the configured anthropic_api_key and stage2_model; fallbacks can be turned off", () =>
    Effect.gen(function* () {
      const f = fakeFetch(200, ok)
      yield* complete(
        { fetch: f.fetch, env: { ANTHROPIC_API_KEY: "sk-env" }, fallbacks: false },
        { anthropic_api_key: "sk-config", stage2_model: "claude-sonnet-5" }
      )
      const call = f.calls[0]!
      expect(call.headers["x-api-key"]).toBe("sk-config")
      expect(call.headers["anthropic-beta"]).toBeUndefined()
      expect(call.body).toMatchObject({ model: "claude-sonnet-5" })
      expect(call.body).not.toHaveProperty("fallbacks")
    }))

  it.effect("a refusal, an HTTP error, a missing text block and a network failure are Stage2Errors without the key", () =>
    Effect.gen(function* () {
      const env = { ANTHROPIC_API_KEY: "sk-secret-999" }
      const cases: Array<[Stage2AnthropicOptions["fetch"], string]> = [
        [fakeFetch(200, { stop_reason: "refusal", content: [] }).fetch, "the model refused the Stage 2 request"],
        [
          fakeFetch(401, { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } }).fetch,
          "Anthropic API returned HTTP 401 (authentication_error: invalid x-api-key)"
        ],
        [fakeFetch(200, { stop_reason: "end_turn", content: [{ type: "tool_use" }] }).fetch, "the Anthropic API response contained no text block"],
        [(() => Promise.reject(new TypeError("fetch failed sk-secret-999"))) as typeof globalThis.fetch, "could not reach the Anthropic API (TypeError)"]
      ]
      for (const [fetch, message] of cases) {
        const error = yield* Effect.flip(complete({ ...(fetch ? { fetch } : {}), env }))
        expect(error.message).toBe(message)
        expect(JSON.stringify(error)).not.toContain("sk-secret")
      }
    }))
})
