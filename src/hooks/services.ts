import type { Effect, Layer } from "effect"
import type { AwhmConfigShape } from "../domain/Config.js"
import type { AppConfig } from "../services/AppConfig.js"
import type { RawLog } from "../services/RawLog.js"
import type { Retriever } from "../services/Retriever.js"
import type { SessionBuffer } from "../services/SessionBuffer.js"

/** A retriever whose graph store, embedder and indexes outlive the hook (it still needs the hook's own stores). */
export type WarmRetriever = Layer.Layer<Retriever, never, AppConfig | RawLog | SessionBuffer>

/** What the hook server lends each hook it runs: the parts worth keeping between prompts. */
export interface HookServices {
  readonly retriever: (config: AwhmConfigShape, warn: (line: string) => void) => Effect.Effect<WarmRetriever, unknown>
}
