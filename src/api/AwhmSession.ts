import { randomUUID } from "node:crypto"
import { Cause, Effect, Exit, Layer, ManagedRuntime, Scope } from "effect"
import type { Role } from "../domain/Message.js"
import type { RetrievalResult } from "../domain/Result.js"
import { AwhmMemory } from "../layers/AwhmMemory.js"
import { loadConfig } from "../layers/ConfigLive.js"
import { AwhmLive, type AwhmServices } from "../layers/Main.js"
import { makeMemorySession, type MemorySession } from "../programs/session.js"
import { parseAsOf } from "../domain/input.js"
import { SessionBuffer } from "../services/SessionBuffer.js"

export interface StartOptions {
  /** Data directory (default: $AWHM_DATA_DIR or ~/.awhm). */
  readonly dataDir?: string
  /** Session id (default: a random UUID). */
  readonly sessionId?: string
  /** Configuration parameters by their snake_case names, e.g. `{ k: 5, embedder: "mock" }`. */
  readonly config?: Readonly<Record<string, string | number | boolean>>
  /** Keep everything in memory (mock embedder, nothing persisted): for tests and experiments. */
  readonly inMemory?: boolean
}

export interface QueryOptions {
  readonly k?: number
  readonly includeHistory?: boolean
  /** ISO date or timestamp: answer with what was true then. */
  readonly asOf?: string
  readonly trace?: boolean
  readonly lexicalOnly?: boolean
}

// Rejects with the error itself (a StorageError, InvalidInput…), so callers can use instanceof.
type Runtime = ManagedRuntime.ManagedRuntime<AwhmServices, unknown>

const run = <A, E>(runtime: Runtime, effect: Effect.Effect<A, E, AwhmServices | Scope.Scope>): Promise<A> =>
  runtime.runPromiseExit(effect as Effect.Effect<A, E, AwhmServices>).then((exit) => {
    if (Exit.isSuccess(exit)) return exit.value
    throw Cause.squash(exit.cause)
  })

/**
 * A memory session for plain TypeScript, shaped like the reference's AWHMSession:
 * `const session = await AwhmSession.start()` (or `await using session = ...`), `logMessage`, `query`,
 * `consolidate`, `end`.
 */
export class AwhmSession {
  private ended = false

  private constructor(
    private readonly runtime: Runtime,
    private readonly scope: Scope.CloseableScope,
    private readonly session: MemorySession
  ) {}

  /** Opens the memory and starts a session (recovering its buffer if it was used before). */
  static async start(options: StartOptions = {}): Promise<AwhmSession> {
    const flags: Record<string, string> = {}
    for (const [k, v] of Object.entries(options.config ?? {})) flags[k] = String(v)
    if (options.dataDir !== undefined) flags.data_dir = options.dataDir
    const layer: Layer.Layer<AwhmServices, unknown> = options.inMemory
      ? AwhmMemory(flags)
      : Layer.unwrapEffect(Effect.map(loadConfig(flags), (config) => AwhmLive(config)))
    const runtime = ManagedRuntime.make(layer)
    const sessionId = options.sessionId ?? randomUUID()
    try {
      const scope = await run(runtime, Scope.make())
      const session = await run(runtime, makeMemorySession(sessionId).pipe(Scope.extend(scope)))
      return new AwhmSession(runtime, scope, session)
    } catch (e) {
      await runtime.dispose()
      throw e
    }
  }

  get sessionId(): string {
    return this.session.sessionId
  }

  /** Appends a message; the session buffer catches corrections, preferences, facts and outcomes at once. */
  logMessage(role: Role, content: string, options: { readonly timestamp?: string } = {}) {
    return run(this.runtime, this.session.log(role, content, options))
  }

  /** The most relevant memories, best first: this session's buffer, then the graph and the raw log. */
  query(text: string, options: QueryOptions = {}): Promise<ReadonlyArray<RetrievalResult>> {
    const { asOf, ...rest } = options
    return run(
      this.runtime,
      Effect.flatMap(parseAsOf(asOf, "asOf"), (asOfIso) => this.session.query(text, { ...rest, asOf: asOfIso }))
    )
  }

  /** Stage 1 consolidation of this session's new messages; resolves to the number of new memories. */
  consolidate(): Promise<number> {
    return run(this.runtime, this.session.consolidate)
  }

  /** Flushes the buffer, clears this session's WAL and closes the memory. Safe to call twice. */
  async end(): Promise<void> {
    if (this.ended) return
    this.ended = true
    try {
      await run(this.runtime, Scope.close(this.scope, Exit.void))
      await run(this.runtime, Effect.flatMap(SessionBuffer, (b) => b.clear(this.sessionId)))
    } finally {
      await this.runtime.dispose()
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.end()
  }
}
