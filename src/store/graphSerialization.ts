import { Either, ParseResult, Schema } from "effect"
import { type Edge, EdgeType, type Graph, type MemoryNode, NodeStatus, NodeType } from "../domain/Node.js"

// The reference's on-disk node and edge shapes (snake_case, REFERENCE-BEHAVIOUR 4.13). Older files lack the
// lifecycle fields; they get the reference's defaults on load.

const CANONICAL_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** Python wrote `2026-03-01T10:00:00.123456+00:00`; inside we compare canonical UTC ISO strings. */
export const canonicalIso = (s: string): string => {
  if (CANONICAL_ISO.test(s)) return s
  const naive = /[zZ]|[+-]\d{2}:?\d{2}$/.test(s) || !s.includes("T") ? s : s + "Z"
  const d = new Date(naive)
  return Number.isNaN(d.getTime()) ? s : d.toISOString()
}
const canonicalOrNull = (s: string | null): string | null => (s === null ? null : canonicalIso(s))

const StoredRef = Schema.Struct({ session_id: Schema.String, message_index: Schema.Int })

const opt = <S extends Schema.Schema.Any>(schema: S, fallback: () => Schema.Schema.Type<S>) =>
  Schema.optionalWith(schema, { default: fallback, nullable: true })

/** A node as the reference stored it. The embedding is absent in SQLite rows (it lives in a BLOB). */
export const StoredNode = Schema.Struct({
  id: Schema.String,
  type: NodeType,
  content: Schema.String,
  embedding: Schema.optionalWith(Schema.NullOr(Schema.Array(Schema.Number)), { default: () => null }),
  embed_model: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  strength: opt(Schema.Struct({ recency: Schema.Number, frequency: Schema.Number, composite: Schema.Number }), () => ({
    recency: 1,
    frequency: 1,
    composite: 1
  })),
  created_at: Schema.String,
  last_accessed: Schema.optional(Schema.NullOr(Schema.String)),
  source_sessions: opt(Schema.Array(Schema.String), () => []),
  source_refs: opt(Schema.Array(StoredRef), () => []),
  access_count: opt(Schema.Int, () => 1),
  canonical_key: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  status: opt(NodeStatus, () => "active" as const),
  supersedes: opt(Schema.Array(Schema.String), () => []),
  valid_from: Schema.optional(Schema.NullOr(Schema.String)),
  valid_to: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  confidence: opt(Schema.Number, () => 0.6),
  entity_type: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  aliases: opt(Schema.Array(Schema.String), () => []),
  mentioned_dates: opt(Schema.Array(Schema.String), () => []),
  scope: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null })
})
export type StoredNode = typeof StoredNode.Type

export const StoredEdge = Schema.Struct({
  source: Schema.String,
  target: Schema.String,
  type: EdgeType,
  weight: opt(Schema.Number, () => 1.0),
  created_at: opt(Schema.String, () => "1970-01-01T00:00:00.000Z")
})
export type StoredEdge = typeof StoredEdge.Type

/** The one-file graph (memory_graph.json) and the graph part of a snapshot. */
export const StoredGraph = Schema.Struct({
  version: Schema.optional(Schema.String),
  nodes: Schema.Record({ key: Schema.String, value: StoredNode }),
  edges: opt(Schema.Array(StoredEdge), () => [])
})
export type StoredGraph = typeof StoredGraph.Type

const decodeStoredNode = Schema.decodeUnknownEither(StoredNode)
const decodeStoredEdge = Schema.decodeUnknownEither(StoredEdge)

/** Stored (snake_case, maybe old) → in-memory node. `embedding` overrides the stored array (SQLite BLOB). */
export const nodeFromStored = (s: StoredNode, embedding?: Float32Array | null): MemoryNode => {
  const createdAt = canonicalIso(s.created_at)
  return {
    id: s.id,
    type: s.type,
    content: s.content,
    embedding: embedding !== undefined ? embedding : s.embedding == null ? null : Float32Array.from(s.embedding),
    embedModel: s.embed_model,
    strength: s.strength,
    createdAt,
    lastAccessed: s.last_accessed == null ? createdAt : canonicalIso(s.last_accessed),
    sourceSessions: s.source_sessions,
    sourceRefs: s.source_refs.map((r) => ({ sessionId: r.session_id, messageIndex: r.message_index })),
    accessCount: s.access_count,
    canonicalKey: s.canonical_key,
    status: s.status,
    supersedes: s.supersedes,
    // The reference's migration: a node without a window was valid from its creation.
    validFrom: s.valid_from === undefined ? createdAt : canonicalOrNull(s.valid_from),
    validTo: canonicalOrNull(s.valid_to),
    confidence: s.confidence,
    entityType: s.entity_type,
    aliases: s.aliases,
    mentionedDates: s.mentioned_dates,
    scope: s.scope
  }
}

/** In-memory node → the reference's JSON object. Without `withEmbedding` the vector is left out (SQLite rows). */
export const nodeToStored = (n: MemoryNode, withEmbedding: boolean): Record<string, unknown> => {
  const out: Record<string, unknown> = {
    id: n.id,
    type: n.type,
    content: n.content
  }
  if (withEmbedding) out.embedding = n.embedding === null ? null : Array.from(n.embedding)
  out.embed_model = n.embedModel
  out.strength = n.strength
  out.created_at = n.createdAt
  out.last_accessed = n.lastAccessed
  out.source_sessions = n.sourceSessions
  out.source_refs = n.sourceRefs.map((r) => ({ session_id: r.sessionId, message_index: r.messageIndex }))
  out.access_count = n.accessCount
  out.canonical_key = n.canonicalKey
  out.status = n.status
  out.supersedes = n.supersedes
  out.valid_from = n.validFrom
  out.valid_to = n.validTo
  out.confidence = n.confidence
  out.entity_type = n.entityType
  out.aliases = n.aliases
  out.mentioned_dates = n.mentionedDates
  out.scope = n.scope
  return out
}

// What a stored node without the field reads as (StoredNode's defaults; last_accessed and valid_from: created_at).
const ROW_DEFAULTS: Readonly<Record<string, (o: Record<string, unknown>) => unknown>> = {
  embed_model: () => null,
  strength: () => ({ recency: 1, frequency: 1, composite: 1 }),
  last_accessed: (o) => o.created_at,
  source_sessions: () => [],
  source_refs: () => [],
  access_count: () => 1,
  canonical_key: () => null,
  status: () => "active",
  supersedes: () => [],
  valid_from: (o) => o.created_at,
  valid_to: () => null,
  confidence: () => 0.6,
  entity_type: () => null,
  aliases: () => [],
  mentioned_dates: () => [],
  scope: () => null
}

const sameValue = (a: unknown, b: unknown): boolean =>
  a === b ||
  (Array.isArray(a) && Array.isArray(b) && a.length === 0 && b.length === 0) ||
  (typeof a === "object" && a !== null && typeof b === "object" && b !== null && !Array.isArray(a) &&
    JSON.stringify(a) === JSON.stringify(b))

/**
 * A node as a SQL row keeps it: the stored JSON without the vector and without the fields at their
 * defaults (the decoder fills them back), about a third smaller for a typical node.
 */
export const nodeToRow = (n: MemoryNode): Record<string, unknown> => {
  const full = nodeToStored(n, false)
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(full)) {
    const fallback = ROW_DEFAULTS[key]
    if (fallback === undefined || !sameValue(value, fallback(full))) out[key] = value
  }
  return out
}

/**
 * `u` with every field a row may leave out at its default, as one object literal (one hidden class, so the
 * fast path stays fast; adding the fields one by one made V8 fall back to slow dictionary objects). Null
 * reads as the default where StoredNode says so; valid_from null stays null (an open window).
 */
const withRowDefaults = (u: unknown): unknown => {
  if (typeof u !== "object" || u === null || Array.isArray(u)) return u
  const o = u as Record<string, unknown>
  return {
    id: o.id,
    type: o.type,
    content: o.content,
    embedding: o.embedding ?? null,
    embed_model: o.embed_model ?? null,
    strength: o.strength ?? { recency: 1, frequency: 1, composite: 1 },
    created_at: o.created_at,
    last_accessed: o.last_accessed ?? o.created_at,
    source_sessions: o.source_sessions ?? [],
    source_refs: o.source_refs ?? [],
    access_count: o.access_count ?? 1,
    canonical_key: o.canonical_key ?? null,
    status: o.status ?? "active",
    supersedes: o.supersedes ?? [],
    valid_from: o.valid_from === undefined ? o.created_at : o.valid_from,
    valid_to: o.valid_to ?? null,
    confidence: o.confidence ?? 0.6,
    entity_type: o.entity_type ?? null,
    aliases: o.aliases ?? [],
    mentioned_dates: o.mentioned_dates ?? [],
    scope: o.scope ?? null
  }
}

export const edgeFromStored = (e: StoredEdge): Edge => ({
  source: e.source,
  target: e.target,
  type: e.type,
  weight: e.weight,
  createdAt: canonicalIso(e.created_at)
})

export const edgeToStored = (e: Edge) => ({
  source: e.source,
  target: e.target,
  type: e.type,
  weight: e.weight,
  created_at: e.createdAt
})

/** Why a stored value did not decode: the field path only, never the value (it may be memory content). */
export const describeParseError = (error: ParseResult.ParseError): string => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
  const first = issues[0]
  return first === undefined || first.path.length === 0
    ? "unexpected shape"
    : `bad field ${first.path.map(String).join(".")}`
}

const isStr = (u: unknown): u is string => typeof u === "string"
const isStrOrNull = (u: unknown): boolean => u === null || typeof u === "string"
const isNum = (u: unknown): u is number => typeof u === "number"
const isStrArray = (u: unknown): boolean => Array.isArray(u) && u.every(isStr)
const NODE_TYPES = new Set<unknown>(NodeType.literals)
const STATUSES = new Set<unknown>(NodeStatus.literals)

/**
 * True when `u` is a complete, well-typed stored node (what this project writes). Loading 100k nodes
 * through the Schema costs ~25 µs each; this check ~1 µs. Anything else (old files, bad data) still
 * goes through StoredNode, which fills defaults and reports errors.
 */
const isCompleteStoredNode = (u: unknown, needEmbedding: boolean): u is StoredNode => {
  if (typeof u !== "object" || u === null) return false
  const o = u as Record<string, unknown>
  const st = o.strength as Record<string, unknown> | null
  return (
    isStr(o.id) && NODE_TYPES.has(o.type) && isStr(o.content) && isStr(o.created_at) && isStr(o.last_accessed) &&
    isStrOrNull(o.embed_model) && typeof st === "object" && st !== null &&
    isNum(st.recency) && isNum(st.frequency) && isNum(st.composite) &&
    isStrArray(o.source_sessions) && Array.isArray(o.source_refs) &&
    o.source_refs.every((r: unknown) => {
      const ref = r as Record<string, unknown> | null
      return typeof ref === "object" && ref !== null && isStr(ref.session_id) && Number.isInteger(ref.message_index)
    }) &&
    Number.isInteger(o.access_count) && isStrOrNull(o.canonical_key) && STATUSES.has(o.status) &&
    isStrArray(o.supersedes) && isStrOrNull(o.valid_from) && isStrOrNull(o.valid_to) && isNum(o.confidence) &&
    isStrOrNull(o.entity_type) && isStrArray(o.aliases) && isStrArray(o.mentioned_dates) && isStrOrNull(o.scope) &&
    (!needEmbedding || o.embedding === null || (Array.isArray(o.embedding) && o.embedding.every(isNum)))
  )
}

/** Decodes one stored node, or says which field is wrong. `embedding` (SQLite BLOB) overrides the stored array. */
export const decodeNode = (u: unknown, embedding?: Float32Array | null): Either.Either<MemoryNode, string> => {
  if (isCompleteStoredNode(u, embedding === undefined)) {
    return Either.right(nodeFromStored(u, embedding))
  }
  return Either.match(decodeStoredNode(u), {
    onLeft: (e) => Either.left(describeParseError(e)),
    onRight: (s) => Either.right(nodeFromStored(s, embedding))
  })
}

/** Decodes one SQL row's node (nodeToRow's JSON: fields at their defaults left out), vector given apart. */
export const decodeRowNode = (u: unknown, embedding: Float32Array | null): Either.Either<MemoryNode, string> => {
  const filled = withRowDefaults(u)
  return isCompleteStoredNode(filled, false) ? Either.right(nodeFromStored(filled, embedding)) : decodeNode(u, embedding)
}

/**
 * Decodes a parsed graph object (`{"nodes":{id:node},"edges":[...]}`) node by node, so a 100k graph does
 * not build one giant parse tree. Left = where it is wrong.
 */
export const decodeGraph = (u: unknown): Either.Either<Graph, string> => {
  if (typeof u !== "object" || u === null || Array.isArray(u)) return Either.left("not a JSON object")
  const obj = u as Record<string, unknown>
  const rawNodes = obj.nodes ?? {}
  if (typeof rawNodes !== "object" || rawNodes === null || Array.isArray(rawNodes)) {
    return Either.left("field nodes is not an object")
  }
  const nodes = new Map<string, MemoryNode>()
  for (const [key, value] of Object.entries(rawNodes as Record<string, unknown>)) {
    const decoded = decodeNode(value)
    if (Either.isLeft(decoded)) return Either.left(`node ${key}: ${decoded.left}`)
    nodes.set(decoded.right.id, decoded.right)
  }
  const rawEdges = obj.edges ?? []
  if (!Array.isArray(rawEdges)) return Either.left("field edges is not an array")
  const edges: Array<Edge> = []
  for (let i = 0; i < rawEdges.length; i++) {
    const decoded = decodeStoredEdge(rawEdges[i])
    if (Either.isLeft(decoded)) return Either.left(`edge ${i}: ${describeParseError(decoded.left)}`)
    edges.push(edgeFromStored(decoded.right))
  }
  return Either.right({ nodes, edges })
}

/** Graph → the reference's `{"nodes":{...},"edges":[...]}` body (with embeddings as number arrays). */
export const graphToStored = (graph: Graph) => {
  const nodes: Record<string, unknown> = {}
  for (const n of graph.nodes.values()) nodes[n.id] = nodeToStored(n, true)
  return { nodes, edges: graph.edges.map(edgeToStored) }
}

/** The reference's one-file format: `{"version":"2.0","nodes":{...},"edges":[...]}`. */
export const encodeJsonGraph = (graph: Graph): string => {
  const { nodes, edges } = graphToStored(graph)
  return JSON.stringify({ version: "2.0", nodes, edges })
}
