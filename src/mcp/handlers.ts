import { type Context, Effect } from "effect"
import type { RetrievalResult } from "../domain/Result.js"
import { errorLine } from "../domain/errors.js"
import { parseAsOf, parseRole, validateQuery } from "../domain/input.js"
import { AppConfig } from "../services/AppConfig.js"
import { Retriever } from "../services/Retriever.js"
import { SessionBuffer } from "../services/SessionBuffer.js"
import { hardDelete } from "../programs/hardDelete.js"
import { logMessage } from "../programs/logMessage.js"
import { createSnapshot } from "../programs/snapshot.js"
import { storeCounts } from "../programs/status.js"
import { sayUnsaved } from "../runtime/unsavedNotice.js"
import { nodeNotFoundText } from "./render.js"
import { McpToolError, MemoryToolkit, type QueryResult } from "./tools.js"

/** Any failure of a subsystem, as a tool error (its message never carries memory content). */
export const asToolError = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, McpToolError, R> =>
  Effect.mapError(effect, (e) =>
    e instanceof McpToolError
      ? e
      : new McpToolError({
          message: errorLine(e)
        })
  )

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits

/** A result as the model sees it: what it says, where from, how good a match, and what it needs to act on it. */
export const queryResult = (r: RetrievalResult): QueryResult => ({
  content: r.content,
  source: r.source,
  score: round(r.score, 3),
  ...(r.nodeId !== undefined && r.source === "graph" ? { node_id: r.nodeId } : {}),
  ...(r.status !== undefined ? { status: r.status } : {}),
  ...(r.validFrom != null ? { valid_from: r.validFrom } : {}),
  ...(r.validTo != null ? { valid_to: r.validTo } : {}),
  ...(r.trace !== undefined
    ? {
        trace: {
          semantic_sim: round(r.trace.semanticSim, 4),
          lexical_score: round(r.trace.lexicalScore, 4),
          strength: round(r.trace.strength, 4),
          confidence: round(r.trace.confidence, 4),
          status_bonus: round(r.trace.statusBonus, 4),
          association: round(r.trace.association, 4)
        }
      }
    : {})
})

/** memory_query: the same ranking as `awhm query`, from this server's session. */
export const memoryQuery = (sessionId: string) =>
  Effect.fn("mcp.memory_query")(function* (params: {
    readonly query: string
    readonly k: number
    readonly include_history: boolean
    readonly with_trace: boolean
    readonly as_of: string | null
  }) {
    const query = params.query.trim()
    if (query === "") return yield* new McpToolError({ message: "Invalid query: it must not be empty." })
    yield* asToolError(validateQuery(query, (yield* AppConfig).maxMessageChars))
    const asOf = yield* asToolError(parseAsOf(params.as_of?.trim() === "" ? null : params.as_of, "as_of"))
    const retriever = yield* Retriever
    const results = yield* asToolError(
      retriever.retrieve(query, {
        k: params.k,
        includeHistory: params.include_history,
        trace: params.with_trace,
        asOf,
        sessionId
      })
    )
    // What a full disk kept this or an earlier query from saving goes to the log (stderr), once.
    sayUnsaved()
    return { results: results.map(queryResult) }
  })

/** memory_log: role is trimmed and lower-cased as the reference did. */
export const memoryLog = (sessionId: string) =>
  Effect.fn("mcp.memory_log")(function* (params: { readonly role: string; readonly content: string }) {
    const role = yield* asToolError(parseRole(params.role))
    // An empty message would come back later as an empty memory.
    if (params.content.trim() === "") return yield* new McpToolError({ message: "Invalid content: it must not be empty." })
    const { entry, bufferEntries } = yield* asToolError(logMessage({ sessionId, role, content: params.content }))
    return { session_id: sessionId, message_index: entry.index, buffer_entries: bufferEntries }
  })

/** memory_status: the reference's keys; buffer_entries counts this server's session. */
export const memoryStatus = (sessionId: string) =>
  Effect.fn("mcp.memory_status")(function* () {
    const buffer = yield* SessionBuffer
    const counts = yield* asToolError(storeCounts)
    const entries = yield* asToolError(buffer.entries(sessionId))
    return {
      session_id: sessionId,
      node_count: counts.nodes,
      edge_count: counts.edges,
      buffer_entries: entries.length,
      total_sessions: counts.sessions,
      log_messages: counts.logMessages
    }
  })

/** memory_consolidate: every session with pending messages, this one included. */
export const memoryConsolidate = Effect.fn("mcp.memory_consolidate")(function* () {
  // Loaded on first use: extraction (its NLP lexicon) is the largest part of the server's start-up.
  const { consolidatePending } = yield* Effect.promise(() => import("../programs/consolidate.js"))
  const report = yield* asToolError(consolidatePending())
  return { new_nodes: report.newNodes, sessions: { ...report.sessions } }
})

/** memory_snapshot_create: the graph and every buffer, to a new snapshot file. */
export const memorySnapshotCreate = Effect.fn("mcp.memory_snapshot_create")(function* () {
  const { path } = yield* asToolError(createSnapshot())
  return { path }
})

/** memory_delete_node: the hard-delete cascade; an unknown id is a tool error worded as the reference's. */
export const memoryDeleteNode = Effect.fn("mcp.memory_delete_node")(function* (params: { readonly node_id: string }) {
  const nodeId = params.node_id.trim()
  const report = yield* hardDelete(nodeId).pipe(
    Effect.catchTag("NodeNotFound", () => new McpToolError({ message: nodeNotFoundText(nodeId) })),
    asToolError
  )
  for (const warning of report.warnings) yield* Effect.logWarning(warning)
  const r = report.result
  return {
    node_id: nodeId,
    edges_removed: r.edgesRemoved,
    log_messages_removed: r.logEntriesRemoved,
    buffer_entries_removed: r.bufferEntriesRemoved,
    snapshots_scrubbed: r.snapshotsTouched,
    sibling_nodes_removed: r.siblingsRemoved
  }
})

/** Everything the tools use. */
export type McpServices = Effect.Effect.Context<
  | ReturnType<ReturnType<typeof memoryQuery>>
  | ReturnType<ReturnType<typeof memoryLog>>
  | ReturnType<ReturnType<typeof memoryStatus>>
  | ReturnType<typeof memoryConsolidate>
  | ReturnType<typeof memorySnapshotCreate>
  | ReturnType<typeof memoryDeleteNode>
>

/**
 * The tools' handlers, bound to this server's session. `services`: the live services, built on the
 * first call that needs them (a failure to build them is that call's tool error).
 */
export const memoryHandlersLayer = (sessionId: string, services: Effect.Effect<Context.Context<McpServices>, McpToolError>) => {
  const run = <A, E>(effect: Effect.Effect<A, E, McpServices>) => Effect.flatMap(services, (context) => Effect.provide(effect, context))
  return MemoryToolkit.toLayer(
    MemoryToolkit.of({
      memory_query: (p) => run(memoryQuery(sessionId)(p)),
      memory_log: (p) => run(memoryLog(sessionId)(p)),
      memory_status: () => run(memoryStatus(sessionId)()),
      memory_consolidate: () => run(memoryConsolidate()),
      memory_snapshot_create: () => run(memorySnapshotCreate()),
      memory_delete_node: (p) => run(memoryDeleteNode(p))
    })
  )
}
