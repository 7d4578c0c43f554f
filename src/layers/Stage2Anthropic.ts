import { Duration, Effect, Layer, Redacted } from "effect"
import { AppConfig } from "../services/AppConfig.js"
import { Stage2Client, Stage2Error, type Stage2Request } from "../services/Stage2Client.js"

const CLIENT = "anthropic"
/** The reference's defaults. */
export const ANTHROPIC_DEFAULT_MODEL = "claude-opus-5"
const MAX_TOKENS = 16_000
const API_URL = "https://api.anthropic.com/v1/messages"
const API_VERSION = "2023-06-01"
/** Server-side fallback: a refusal on the primary model is retried on a fallback model in the same call. */
const FALLBACK_BETA = "server-side-fallback-2026-07-01"

export interface Stage2AnthropicOptions {
  /** The fetch to use (tests inject one; nothing else should). */
  readonly fetch?: typeof globalThis.fetch
  /** Where ANTHROPIC_API_KEY is read when anthropic_api_key is not configured (default process.env). */
  readonly env?: NodeJS.ProcessEnv
  /** Use the server-side refusal fallback (default true, as the reference). */
  readonly fallbacks?: boolean
}

/** The Messages API request for one Stage 2 call (without the key). */
export const anthropicRequestBody = (request: Stage2Request, model: string, fallbacks: boolean) => ({
  model,
  max_tokens: MAX_TOKENS,
  system: request.system,
  messages: [{ role: "user", content: request.user }],
  output_config: { format: { type: "json_schema", schema: request.schema } },
  ...(fallbacks ? { fallbacks: "default" } : {})
})

const fail = (message: string) => new Stage2Error({ client: CLIENT, message })

const short = (value: unknown): string => (typeof value === "string" ? value.split("\n")[0]!.slice(0, 200) : "")

/** Reads a Messages API response: the first text block, unless the model refused. */
const readResponse = (status: number, body: unknown): Effect.Effect<string, Stage2Error> => {
  const b = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>
  if (status < 200 || status >= 300) {
    const err = (typeof b.error === "object" && b.error !== null ? b.error : {}) as Record<string, unknown>
    const what = [short(err.type), short(err.message)].filter((s) => s !== "").join(": ")
    return Effect.fail(fail(`Anthropic API returned HTTP ${status}${what === "" ? "" : ` (${what})`}`))
  }
  if (b.stop_reason === "refusal") return Effect.fail(fail("the model refused the Stage 2 request"))
  const blocks = Array.isArray(b.content) ? (b.content as Array<unknown>) : []
  for (const block of blocks) {
    if (typeof block === "object" && block !== null && (block as { type?: unknown }).type === "text") {
      const text = (block as { text?: unknown }).text
      if (typeof text === "string") return Effect.succeed(text)
    }
  }
  return Effect.fail(fail("the Anthropic API response contained no text block"))
}

/**
 * Stage 2 through the Anthropic Messages API (API billing; the default client needs no key). The key
 * is configuration `anthropic_api_key` or ANTHROPIC_API_KEY; it is only ever put in the request header.
 */
export const makeStage2Anthropic = (options: Stage2AnthropicOptions = {}): Layer.Layer<Stage2Client, never, AppConfig> =>
  Layer.effect(
    Stage2Client,
    Effect.gen(function* () {
      const config = yield* AppConfig
      const envKey = (options.env ?? process.env).ANTHROPIC_API_KEY
      const apiKey =
        config.anthropicApiKey !== null && Redacted.value(config.anthropicApiKey).trim() !== ""
          ? config.anthropicApiKey
          : envKey !== undefined && envKey.trim() !== ""
            ? Redacted.make(envKey.trim())
            : null
      const model = config.stage2Model ?? ANTHROPIC_DEFAULT_MODEL
      const fallbacks = options.fallbacks ?? true
      const doFetch = options.fetch ?? globalThis.fetch
      const complete = (request: Stage2Request) =>
        Effect.gen(function* () {
          if (apiKey === null) {
            return yield* fail(
              "no Anthropic API key: set anthropic_api_key (or ANTHROPIC_API_KEY), or use the default claude-code client"
            )
          }
          const headers: Record<string, string> = {
            "content-type": "application/json",
            "anthropic-version": API_VERSION,
            "x-api-key": Redacted.value(apiKey)
          }
          if (fallbacks) headers["anthropic-beta"] = FALLBACK_BETA
          const response = yield* Effect.tryPromise({
            try: (signal) =>
              doFetch(API_URL, {
                method: "POST",
                headers,
                body: JSON.stringify(anthropicRequestBody(request, model, fallbacks)),
                signal
              }),
            catch: (e) => fail(`could not reach the Anthropic API (${e instanceof Error ? e.name : "network error"})`)
          })
          const body = yield* Effect.tryPromise({
            try: () => response.json() as Promise<unknown>,
            catch: () => fail(`the Anthropic API returned HTTP ${response.status} with a body that is not JSON`)
          })
          return yield* readResponse(response.status, body)
        }).pipe(
          Effect.timeoutFail({
            duration: Duration.seconds(config.stage2TimeoutSeconds),
            onTimeout: () => fail(`the Anthropic API did not answer within ${config.stage2TimeoutSeconds} s`)
          })
        )
      return Stage2Client.of({ name: CLIENT, complete })
    })
  )

/** Stage 2 through the Anthropic API, with the global fetch. */
export const Stage2Anthropic: Layer.Layer<Stage2Client, never, AppConfig> = makeStage2Anthropic()
