import { Context, type Effect } from "effect"
import type { CorruptFile, StorageError } from "../domain/errors.js"
import type { SourceRef } from "../domain/Message.js"
import type { RetrievalResult } from "../domain/Result.js"

export interface RetrieveOptions {
  /** How many results (default: config k). */
  readonly k?: number
  readonly includeHistory?: boolean
  /** Canonical UTC ISO: answer with what was valid at that moment. */
  readonly asOf?: string | null
  readonly trace?: boolean
  /** The session whose buffer is searched first. */
  readonly sessionId?: string | null
  /** Never call the embedder. */
  readonly lexicalOnly?: boolean
  /** Project scope: graph memories of this scope plus global ones (null: everything). */
  readonly scope?: string | null
  /** Messages that must not come back (the prompt hook's own prompt). */
  readonly exclude?: ReadonlyArray<SourceRef>
}

export interface RetrieverShape {
  readonly retrieve: (
    query: string,
    options?: RetrieveOptions
  ) => Effect.Effect<ReadonlyArray<RetrievalResult>, StorageError | CorruptFile>
}

/** One ranked answer from the buffer, the graph and the raw log. */
export class Retriever extends Context.Tag("awhm/Retriever")<Retriever, RetrieverShape>() {}
