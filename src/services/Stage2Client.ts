import { Context, Data, type Effect } from "effect"

/** A Stage 2 call failed (missing binary, non-zero exit, timeout, refusal); that chunk is skipped. */
export class Stage2Error extends Data.TaggedError("Stage2Error")<{
  readonly client: string
  readonly message: string
}> {}

export interface Stage2Request {
  readonly system: string
  readonly user: string
  /** The JSON Schema generated from the proposal batch Schema. */
  readonly schema: object
}

export interface Stage2ClientShape {
  readonly name: string
  /** Returns the model's answer: parsed JSON when the client has it, else raw text. Validation happens after. */
  readonly complete: (request: Stage2Request) => Effect.Effect<unknown, Stage2Error>
}

/** The LLM behind Stage 2. Layers: Stage2ClaudeCode (default), Stage2Anthropic, Stage2Mock. */
export class Stage2Client extends Context.Tag("awhm/Stage2Client")<Stage2Client, Stage2ClientShape>() {}
