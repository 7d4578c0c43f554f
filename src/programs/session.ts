import { Effect } from "effect"
import type { CorruptFile, InvalidInput, StorageError } from "../domain/errors.js"
import type { Role } from "../domain/Message.js"
import type { RetrievalResult } from "../domain/Result.js"
import { AppConfig } from "../services/AppConfig.js"
import type { Embedder } from "../services/Embedder.js"
import type { GraphStore } from "../services/GraphStore.js"
import type { RawLog } from "../services/RawLog.js"
import { Retriever, type RetrieveOptions } from "../services/Retriever.js"
import { SessionBuffer } from "../services/SessionBuffer.js"
import type { Stage2Client } from "../services/Stage2Client.js"
import { consolidateSession } from "./consolidate.js"
import { logMessage } from "./logMessage.js"

/** One conversation's memory: log its messages, query everything, consolidate it. */
export interface MemorySession {
  readonly sessionId: string
  /** Appends a message to the raw log and runs the session buffer on it. */
  readonly log: (
    role: Role,
    content: string,
    options?: { readonly timestamp?: string }
  ) => Effect.Effect<{ readonly messageIndex: number; readonly bufferEntries: number }, StorageError | InvalidInput>
  /** Buffer first, then graph and raw log. */
  readonly query: (
    text: string,
    options?: Omit<RetrieveOptions, "sessionId">
  ) => Effect.Effect<ReadonlyArray<RetrievalResult>, StorageError | CorruptFile>
  /** Stage 1 (and Stage 2 when enabled) on this session's new messages; returns the nodes created. */
  readonly consolidate: Effect.Effect<number, StorageError | CorruptFile>
}

type Services = RawLog | SessionBuffer | GraphStore | Embedder | Stage2Client | Retriever | AppConfig

/**
 * A session as a scoped resource (the reference's AWHMSession): acquiring it recovers the session's
 * buffer from its WAL (SessionBufferLive flushes changed buffers every buffer_flush_interval); closing the
 * scope flushes, whatever way it ends.
 */
export const makeMemorySession = Effect.fn("MemorySession")(function* (sessionId: string) {
  const buffer = yield* SessionBuffer
  const retriever = yield* Retriever
  const services = yield* Effect.context<Services>()
  // Recovery: the first read of a session loads its WAL. The periodic flush is the SessionBuffer layer's own.
  yield* buffer.entries(sessionId)
  yield* Effect.addFinalizer(() =>
    buffer.flush(true).pipe(Effect.catchAll((e) => Effect.logWarning(`final buffer flush failed: ${e.message}`)))
  )
  const session: MemorySession = {
    sessionId,
    log: (role, content, options) =>
      logMessage({ sessionId, role, content, ...(options?.timestamp !== undefined ? { timestamp: options.timestamp } : {}) }).pipe(
        Effect.map((r) => ({ messageIndex: r.entry.index, bufferEntries: r.bufferEntries })),
        Effect.provide(services)
      ),
    query: (text, options) => retriever.retrieve(text, { ...options, sessionId }),
    consolidate: consolidateSession(sessionId).pipe(Effect.provide(services))
  }
  return session
})
