import { Tool, Toolkit } from "@effect/ai"
import { Schema } from "effect"
import { ROLES } from "../domain/Message.js"
import { NodeStatus } from "../domain/Node.js"
import { ResultSource } from "../domain/Result.js"

/** A tool call that could not be done (bad argument, unknown node): returned to the client as a tool error. */
export class McpToolError extends Schema.TaggedError<McpToolError>()("McpToolError", {
  message: Schema.String
}) {}

const common = { failure: McpToolError, failureMode: "return" } as const

// Argument names and defaults are the reference's (snake_case), so existing prompts keep working. The
// structured results (what Claude Code shows the model) use the same snake_case and only what a model
// acts on; each field says what it means in the tool's outputSchema.

const described = <S extends Schema.Schema.All>(schema: S, description: string): S => schema.annotations({ description }) as S

// Its own JSON Schema, not Schema.Int's, whose title ("int") means nothing to a model.
const Count = (description: string) =>
  Schema.Int.pipe(Schema.nonNegative({ jsonSchema: { type: "integer", minimum: 0, description } }))

const QueryResult = Schema.Struct({
  content: described(Schema.String, "The memory, as stored"),
  source: described(ResultSource, "buffer: said in this session; graph: a consolidated memory; raw_log: an earlier message, verbatim"),
  score: described(Schema.Number, "How well it matches the query, 0 to 1 (higher is better), on one scale for every source"),
  node_id: Schema.optional(described(Schema.String, "The graph memory's id (for memory_delete_node)")),
  status: Schema.optional(described(NodeStatus, "A graph memory's status: active, or superseded by a newer one")),
  valid_from: Schema.optional(described(Schema.String, "Since when the memory holds (ISO time)")),
  valid_to: Schema.optional(described(Schema.String, "Until when it held (ISO time), if it no longer does")),
  trace: Schema.optional(
    described(
      Schema.Struct({
        semantic_sim: Schema.Number,
        lexical_score: Schema.Number,
        strength: Schema.Number,
        confidence: Schema.Number,
        status_bonus: Schema.Number,
        association: Schema.Number
      }),
      "The ranking features (with_trace)"
    )
  )
})
export type QueryResult = typeof QueryResult.Type

/** An optional boolean argument, false unless given. */
const flag = (description: string) =>
  Schema.optionalWith(Schema.Boolean.annotations({ jsonSchema: { type: "boolean", default: false, description } }), {
    default: () => false
  })

// Defined apart from Tool.make: inline, fields with annotated schemas defeat its parameter inference.
const queryParameters = {
  query: Schema.String.annotations({ description: "What to look for, in plain words" }),
  k: Schema.optionalWith(
    Schema.Int.pipe(Schema.between(1, 100)).annotations({
      message: () => ({ message: "must be an integer from 1 to 100", override: true }),
      jsonSchema: { type: "integer", minimum: 1, maximum: 100, default: 10, description: "How many results (default 10)" }
    }),
    { default: () => 10 }
  ),
  include_history: flag("Also return superseded (outdated) memories"),
  with_trace: flag("Include the ranking features of each result"),
  as_of: Schema.optionalWith(
    Schema.NullOr(Schema.String).annotations({
      jsonSchema: {
        anyOf: [
          { type: "string", format: "date-time" },
          { type: "string", format: "date" },
          { type: "null" }
        ],
        default: null,
        description: "Answer with what was true at this moment: an ISO date or date-time (UTC unless it has an offset)"
      }
    }),
    { default: () => null }
  )
}

export const MemoryQuery = Tool.make("memory_query", {
  description:
    "Search long-term memory (this session's statements, consolidated memories, earlier conversations) for a natural-language query. Returns the best matches first.",
  parameters: queryParameters,
  success: Schema.Struct({ results: described(Schema.Array(QueryResult), "Best match first") }),
  ...common
})
  .annotate(Tool.Title, "Query memory")
  .annotate(Tool.Readonly, true)
  .annotate(Tool.Destructive, false)
  .annotate(Tool.OpenWorld, false)

const logParameters = {
  role: Schema.String.annotations({
    jsonSchema: { type: "string", enum: [...ROLES], description: "Who said it" }
  }),
  content: Schema.String.annotations({ description: "The message, verbatim (not empty)" })
}

export const MemoryLog = Tool.make("memory_log", {
  description:
    "Log one message of this conversation to long-term memory: facts, preferences and corrections in it are found at once by memory_query.",
  parameters: logParameters,
  success: Schema.Struct({
    session_id: described(Schema.String, "This server's session, where everything it logs goes"),
    message_index: Count("The message's position in the session (from 0)"),
    buffer_entries: Count("Statements of this session ready for memory_query")
  }),
  ...common
})
  .annotate(Tool.Title, "Log a message")
  .annotate(Tool.Destructive, false)
  .annotate(Tool.OpenWorld, false)

export const MemoryConsolidate = Tool.make("memory_consolidate", {
  description: "Extract memories from every pending session's new messages into the long-term memory graph.",
  success: Schema.Struct({
    new_nodes: Count("Memories added in all"),
    sessions: described(Schema.Record({ key: Schema.String, value: Schema.Int }), "New memories per consolidated session")
  }),
  ...common
})
  .annotate(Tool.Title, "Consolidate memory")
  .annotate(Tool.Destructive, false)
  .annotate(Tool.OpenWorld, false)

export const MemoryStatus = Tool.make("memory_status", {
  description: "Counts: graph nodes and edges, logged sessions and messages, this session's buffer entries.",
  success: Schema.Struct({
    session_id: described(Schema.String, "This server's session"),
    node_count: Count("Memories in the graph"),
    edge_count: Count("Links between them"),
    buffer_entries: Count("Statements of this session not yet consolidated"),
    total_sessions: Count("Logged sessions"),
    log_messages: Count("Logged messages")
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
  success: Schema.Struct({ path: described(Schema.String, "The snapshot file") }),
  ...common
})
  .annotate(Tool.Title, "Create a snapshot")
  .annotate(Tool.Destructive, false)
  .annotate(Tool.OpenWorld, false)

export const MemoryDeleteNode = Tool.make("memory_delete_node", {
  description:
    "Hard-delete one memory for good: the node, its links, the logged messages it came from, matching buffer entries and snapshot copies. Only when the user asks to forget something.",
  parameters: {
    node_id: Schema.String.annotations({ description: "The memory's node_id, from memory_query results" })
  },
  success: Schema.Struct({
    node_id: described(Schema.String, "The deleted memory"),
    edges_removed: Count("Links removed"),
    log_messages_removed: Count("Logged messages removed"),
    buffer_entries_removed: Count("Buffer entries removed"),
    snapshots_scrubbed: Count("Snapshots it was removed from"),
    sibling_nodes_removed: described(Schema.Array(Schema.String), "Other memories from the same messages, removed too")
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
