import { Effect } from "effect"
import type { AwhmConfigShape } from "../../domain/Config.js"
import { CorpusError } from "./errors.js"

export interface LocomoEvalOptions {
  readonly k: number
  readonly limit?: number
  readonly onProgress?: (done: number, total: number) => void
}

// Placeholder until src/programs/locomo.ts (loadLocomo, replayLocomo) lands.
export const runLocomoEval = (file: string, _config: AwhmConfigShape, _options: LocomoEvalOptions) =>
  Effect.fail(new CorpusError({ path: file, message: "the LoCoMo replay is not available yet" })) as Effect.Effect<
    { readonly report: unknown; readonly summary: string },
    CorpusError
  >
