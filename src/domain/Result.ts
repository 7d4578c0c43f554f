import { Schema } from "effect"
import { SourceRef } from "./Message.js"
import { NodeStatus } from "./Node.js"

export const ResultSource = Schema.Literal("buffer", "graph", "raw_log")
export type ResultSource = typeof ResultSource.Type

/** Ranking features of one result (with --trace). */
export const Trace = Schema.Struct({
  semanticSim: Schema.Number,
  lexicalScore: Schema.Number,
  strength: Schema.Number,
  confidence: Schema.Number,
  statusBonus: Schema.Number,
  association: Schema.Number
})
export type Trace = typeof Trace.Type

/** A newer statement of the same value exists (newer wins at retrieval): when it was said, and where. */
export const SupersededBy = Schema.Struct({
  at: Schema.String,
  sourceRefs: Schema.Array(SourceRef),
  nodeId: Schema.optional(Schema.String)
})
export type SupersededBy = typeof SupersededBy.Type

/** The newest of several values among the results: when it was said, and the value before it. */
export const Updated = Schema.Struct({
  at: Schema.String,
  before: Schema.String,
  beforeAt: Schema.String
})
export type Updated = typeof Updated.Type

/** Another result says the opposite (a contradiction, not an update): both come back, flagged. */
export const ConflictsWith = Schema.Struct({
  at: Schema.NullOr(Schema.String),
  sourceRefs: Schema.Array(SourceRef),
  nodeId: Schema.optional(Schema.String)
})
export type ConflictsWith = typeof ConflictsWith.Type

/** One retrieved memory, as the CLI contract prints it. */
export const RetrievalResult = Schema.Struct({
  content: Schema.String,
  source: ResultSource,
  score: Schema.Number,
  nodeId: Schema.optional(Schema.String),
  status: Schema.optional(NodeStatus),
  canonicalKey: Schema.optional(Schema.NullOr(Schema.String)),
  validFrom: Schema.optional(Schema.NullOr(Schema.String)),
  validTo: Schema.optional(Schema.NullOr(Schema.String)),
  sourceRefs: Schema.Array(SourceRef),
  supersededBy: Schema.optional(SupersededBy),
  updated: Schema.optional(Updated),
  conflictsWith: Schema.optional(ConflictsWith),
  trace: Schema.optional(Trace)
})
export type RetrievalResult = typeof RetrievalResult.Type
