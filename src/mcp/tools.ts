import { Tool, Toolkit } from "@effect/ai"
import { Schema } from "effect"
import { RetrievalResult } from "../domain/Result.js"

/** A tool call that could not be done (bad argument, unknown node): returned to the client as a tool error. */
export class McpToolError extends Schema.TaggedError<McpToolError>()("McpToolError", {
  message: Schema.String
}) {}

const common = { failure: McpToolError, failureMode: "return" } as const

// Argument names and defaults are the reference's (snake_case), so existing prompts keep working.

export const MemoryQuery = Tool.make("memory_query", {
  description:
    "Search long-term memory (session buffer, memory graph, raw conversation logs) for a natural-language query. Returns the best memories, most relevant first.",
  parameters: {
    query: Schema.String.annotations({ description: "What to look for, in plain words" }),
    k: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 100)), { default: () => 10 }).annotations({
      description: "How many results (1-100, default 10)"
    }),
    include_history: Schema.optionalWith(Schema.Boolean, { default: () => false }).annotations({
      description: "Also return superseded (outdated) memories"
    }),
    with_trace: Schema.optionalWith(Schema.Boolean, { default: () => false }).annotations({
      description: "Include the ranking features of each result"
    }),
    as_of: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }).annotations({
      description: "ISO date or time: answer with what was true at that moment"
    })
  },
  success: Schema.Struct({ results: Schema.Array(RetrievalResult) }),
  ...common
})
  .annotate(Tool.Title, "Query memory")
  .annotate(Tool.Readonly, true)
  .annotate(Tool.Destructive, false)
  .annotate(Tool.OpenWorld, false)

export const MemoryLog = Tool.make("memory_log", {
  description: "Log one message of this conversation to the raw log (and the session buffer, which catches facts, preferences and corrections at once).",
  parameters: {
    role: Schema.String.annotations({ description: "user, assistant, tool_call or tool_result" }),
    content: Schema.String.annotations({ description: "The message, verbatim" })
  },
  success: Schema.Struct({ sessionId: Schema.String, messageIndex: Schema.Int, bufferEntries: Schema.Int }),
  ...common
})
  .annotate(Tool.Title, "Log a message")
  .annotate(Tool.Destructive, false)
  .annotate(Tool.OpenWorld, false)

export const MemoryConsolidate = Tool.make("memory_consolidate", {
  description: "Extract memories from every pending session's new messages into the long-term memory graph.",
  success: Schema.Struct({
    newNodes: Schema.Int,
    sessions: Schema.Record({ key: Schema.String, value: Schema.Int })
  }),
  ...common
})
  .annotate(Tool.Title, "Consolidate memory")
  .annotate(Tool.Destructive, false)
  .annotate(Tool.OpenWorld, false)

export const MemoryStatus = Tool.make("memory_status", {
  description: "Counts: graph nodes and edges, logged sessions and messages, this session's buffer entries.",
  success: Schema.Struct({
    session_id: Schema.String,
    node_count: Schema.Int,
    edge_count: Schema.Int,
    buffer_entries: Schema.Int,
    total_sessions: Schema.Int,
    log_messages: Schema.Int
  }),
  ...common
})
  .annotate(Tool.Title, "Memory status")
  .annotate(Tool.Readonly, true)
  .annotate(Tool.Destructive, false)
  .annotate(Tool.Idempotent, true)
  .annotate(Tool.OpenWorld, false)

export const MemorySnapshotCreate = Tool.make("memory_snapshot_create", {
  description: "Save a backup snapshot of the memory graph and session buffers.",
  success: Schema.Struct({ path: Schema.String }),
  ...common
})
  .annotate(Tool.Title, "Create a snapshot")
  .annotate(Tool.Destructive, false)
  .annotate(Tool.OpenWorld, false)

export const MemoryDeleteNode = Tool.make("memory_delete_node", {
  description:
    "Hard-delete one memory node for good: the node, its edges, the raw-log messages it came from, matching buffer entries and snapshot copies.",
  parameters: {
    node_id: Schema.String.annotations({ description: "The node's id (from memory_query results' nodeId)" })
  },
  success: Schema.Struct({
    nodeId: Schema.String,
    nodeDeleted: Schema.Boolean,
    edgesRemoved: Schema.Int,
    logEntriesRemoved: Schema.Int,
    bufferEntriesRemoved: Schema.Int,
    affectedSessions: Schema.Array(Schema.String),
    matchStrategy: Schema.Literal("none", "source_refs", "exact_content"),
    exactMatchesRemoved: Schema.Int,
    snapshotsTouched: Schema.Int,
    tombstoneId: Schema.String,
    ledgerRecordId: Schema.String,
    siblingsRemoved: Schema.Array(Schema.String)
  }),
  ...common
})
  .annotate(Tool.Title, "Delete a memory")
  .annotate(Tool.Destructive, true)
  .annotate(Tool.Idempotent, true)
  .annotate(Tool.OpenWorld, false)

/** Every tool of the awhm MCP server. */
export const MemoryToolkit = Toolkit.make(
  MemoryQuery,
  MemoryLog,
  MemoryConsolidate,
  MemoryStatus,
  MemorySnapshotCreate,
  MemoryDeleteNode
)
