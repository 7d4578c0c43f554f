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
  trace: Schema.optional(Trace)
})
export type RetrievalResult = typeof RetrievalResult.Type
