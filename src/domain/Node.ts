import { Schema } from "effect"
import { SourceRef } from "./Message.js"

export const NodeType = Schema.Literal("episodic", "semantic", "procedural")
export type NodeType = typeof NodeType.Type

export const NodeStatus = Schema.Literal("active", "superseded", "retracted")
export type NodeStatus = typeof NodeStatus.Type

export const EdgeType = Schema.Literal("temporal", "abstraction", "association")
export type EdgeType = typeof EdgeType.Type

export const Strength = Schema.Struct({
  recency: Schema.Number,
  frequency: Schema.Number,
  composite: Schema.Number
})
export type Strength = typeof Strength.Type

/** A Float32Array held in memory (embeddings are never arrays of JS numbers in the hot path). */
export const Float32ArrayFromSelf = Schema.declare(
  (u: unknown): u is Float32Array => u instanceof Float32Array,
  { identifier: "Float32Array" }
)

/**
 * A memory node. Timestamps are UTC ISO strings. `validFrom`/`validTo` make the half-open
 * validity window [from, to); `canonicalKey` names the slot a statement fills.
 */
export const MemoryNode = Schema.Struct({
  id: Schema.String,
  type: NodeType,
  content: Schema.String,
  embedding: Schema.NullOr(Float32ArrayFromSelf),
  embedModel: Schema.NullOr(Schema.String),
  strength: Strength,
  createdAt: Schema.String,
  lastAccessed: Schema.String,
  sourceSessions: Schema.Array(Schema.String),
  sourceRefs: Schema.Array(SourceRef),
  accessCount: Schema.Int,
  canonicalKey: Schema.NullOr(Schema.String),
  status: NodeStatus,
  supersedes: Schema.Array(Schema.String),
  validFrom: Schema.NullOr(Schema.String),
  validTo: Schema.NullOr(Schema.String),
  confidence: Schema.Number,
  entityType: Schema.NullOr(Schema.String),
  aliases: Schema.Array(Schema.String),
  mentionedDates: Schema.Array(Schema.String),
  /** Project scope (e.g. a working directory) or null for global memory. */
  scope: Schema.NullOr(Schema.String)
})
export type MemoryNode = typeof MemoryNode.Type

export const Edge = Schema.Struct({
  source: Schema.String,
  target: Schema.String,
  type: EdgeType,
  weight: Schema.Number,
  createdAt: Schema.String
})
export type Edge = typeof Edge.Type

/** A whole graph held in memory. */
export interface Graph {
  readonly nodes: Map<string, MemoryNode>
  readonly edges: Array<Edge>
}

/** Sensible defaults for a new node; callers override what they know. */
export const makeNode = (
  fields: Pick<MemoryNode, "id" | "type" | "content" | "createdAt"> & Partial<MemoryNode>
): MemoryNode => ({
  embedding: null,
  embedModel: null,
  strength: { recency: 1, frequency: 1, composite: 1 },
  lastAccessed: fields.createdAt,
  sourceSessions: [],
  sourceRefs: [],
  accessCount: 1,
  canonicalKey: null,
  status: "active",
  supersedes: [],
  validFrom: fields.createdAt,
  validTo: null,
  confidence: 0.6,
  entityType: null,
  aliases: [],
  mentionedDates: [],
  scope: null,
  ...fields
})
