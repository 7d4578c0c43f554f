import type { Candidate } from "../../domain/Candidate.js"
import type { SourceRef } from "../../domain/Message.js"
import { type Edge, type Graph, makeNode, type MemoryNode } from "../../domain/Node.js"
import { type AttributeMention, attributeMentions, isSlot, slotKey, updates } from "../../text/attributes.js"
import { canonicalKeyForContent, canonicalSlot, correctionSupersedes, restates, statementKey } from "../../text/canonical.js"
import { EntityIndex, isEntityNode, mentionedEntities, registerAlias } from "../../text/entities.js"
import { p90, type StrengthParams, strengthOf } from "../../domain/strength.js"
import { VectorIndex } from "../../search/VectorIndex.js"
import type { GraphChanges } from "../../services/GraphStore.js"

// The compare-and-commit half of Stage 1, pure: given the graph as loaded under the store's write lock
// and the batch's candidates (already embedded), decide what to create, reinforce and supersede.

/** Weight of the edge from a statement to an entity it names (the reference's ENTITY_MENTION_WEIGHT). */
export const ENTITY_MENTION_WEIGHT = 0.8
export const TEMPORAL_WEIGHT = 1.0

export interface PreparedCandidate {
  readonly candidate: Candidate
  /** The candidate's embedding (same model as `modelId`), or null without embeddings. */
  readonly vector: Float32Array | null
  /** Project scope of the source message (its raw-log metadata), null for global. */
  readonly scope: string | null
}

export interface CommitSettings {
  readonly dedupThreshold: number
  readonly entityLinkThreshold: number
  readonly correctionWindow: number
  /** Model of the candidates' vectors; null when the batch has none. */
  readonly modelId: string | null
  /** Consolidation time: createdAt and lastAccessed of what this batch touches. */
  readonly now: string
  readonly newId: () => string
  readonly strength: StrengthParams
}

export interface CommitOutcome {
  readonly changes: GraphChanges
  /** Nodes created by this batch, in order. */
  readonly created: ReadonlyArray<MemoryNode>
  /** Existing nodes restated (statements) or mentioned again (entities). */
  readonly reinforced: number
  /** Nodes this batch marked superseded (existing or created earlier in the batch). */
  readonly superseded: number
}

const mergeRefs = (a: ReadonlyArray<SourceRef>, b: ReadonlyArray<SourceRef>): Array<SourceRef> => {
  const out = [...a]
  for (const r of b) if (!out.some((x) => x.sessionId === r.sessionId && x.messageIndex === r.messageIndex)) out.push(r)
  return out
}

/** A restatement: the session joins the node's provenance (one more access if the session is new). */
const reinforce = (node: MemoryNode, c: Candidate, now: string): MemoryNode => {
  const newSession = !node.sourceSessions.includes(c.sessionId)
  return {
    ...node,
    sourceSessions: newSession ? [...node.sourceSessions, c.sessionId] : node.sourceSessions,
    accessCount: node.accessCount + (newSession ? 1 : 0),
    sourceRefs: mergeRefs(node.sourceRefs, c.sourceRefs),
    lastAccessed: now > node.lastAccessed ? now : node.lastAccessed
  }
}

/**
 * When a statement starts to hold: its own "from" date, else its message's time; a statement whose
 * window ended before it was written ("I lived in Paris until 2020") describes the past: open start.
 */
const validFromOf = (c: Candidate): string | null =>
  c.validFrom ?? (c.validTo !== null && c.validTo <= c.timestamp ? null : c.timestamp)

const NEGATION = /\b(not|no|never|none|nothing|neither|nor)\b|n['’]t\b/i
const numbers = (text: string) => [...new Set(text.toLowerCase().match(/\p{N}[\p{L}\p{N}.]*/gu) ?? [])].sort().join(" ")

/**
 * Meaning-level duplicates must still agree on what embeddings blur: the numbers they state and
 * whether they are negated ("the port is 8080" is not "the port is 8081").
 */
const sameSpecifics = (a: string, b: string) => numbers(a) === numbers(b) && NEGATION.test(a) === NEGATION.test(b)

const maxRefIn = (node: MemoryNode, sessionId: string): number | null => {
  let max: number | null = null
  for (const r of node.sourceRefs) if (r.sessionId === sessionId && (max === null || r.messageIndex > max)) max = r.messageIndex
  return max
}

export const family = (key: string) => key.split(":", 1)[0]!

/** The families a correction supersedes across ("I prefer tea now" replaces any preference). */
export const correctsAcrossFamily = (c: Candidate, key: string): boolean =>
  c.isCorrection && (family(key) === "preference" || family(key) === "policy")

/** A statement candidate's attribute mentions (none for an episode: episodes never supersede). */
export const candidateSlots = (c: Candidate): Array<AttributeMention> => (c.type === "episodic" ? [] : attributeMentions(c.content))

/** A statement candidate's canonical key: Stage 2's slot, else its content's key or first slot's (none for an episode). */
export const candidateKey = (c: Candidate, slots: ReadonlyArray<AttributeMention>): string | null => {
  const firstSlot = slots.find(isSlot)
  return c.keyOverride ?? (c.type === "episodic" ? null : (canonicalKeyForContent(c.content) ?? (firstSlot !== undefined ? slotKey(firstSlot) : null)))
}

/** p90 (domain/strength) of a distribution given as counts per access count. */
const p90OfCounts = (counts: ReadonlyMap<number, number>): number => {
  const sorted = [...counts].filter(([, k]) => k > 0).sort((a, b) => a[0] - b[0])
  const n = sorted.reduce((sum, [, k]) => sum + k, 0)
  if (n === 0) return 1
  let at = Math.min(Math.floor(0.9 * n), n - 1)
  for (const [count, k] of sorted) {
    if (at < k) return Math.max(count, 1)
    at -= k
  }
  return 1
}

/**
 * Plans one batch's commit (REFERENCE-BEHAVIOUR 4.6, with this project's improvements):
 * - entities resolve to an existing node (alias, unambiguous containment, embedding link with the same
 *   label) and register the alias, else become new `LABEL: name` nodes;
 * - a statement whose statement key an active node already has reinforces it; a keyless statement whose
 *   vector scores ≥ dedupThreshold against a keyless one (same numbers and negation) reinforces it too;
 *   keyed statements are never merged by embedding, since "my name is Alice" and "my name is Bob" are close;
 * - a statement matching only superseded nodes is created afresh and becomes current again;
 * - episodic statements get no canonical key (unless Stage 2 names a slot);
 * - new statements supersede active nodes of the same scope by REFERENCE-BEHAVIOUR 4.3; the old node's
 *   window ends when the new statement starts; a statement older than the active one it would replace
 *   (a late session) is recorded as already superseded by it;
 * - temporal edges chain each session's new episodic nodes; association edges link new statements to the batch's entities.
 * `graph` is the whole graph, or the part the batch may touch (consolidate/graphPart.ts, in store order) with
 * `accessCounts`, the whole graph's access-count distribution (GraphStore accessCounts): the same plan either way.
 */
export const planCommit = (
  graph: Graph,
  prepared: ReadonlyArray<PreparedCandidate>,
  settings: CommitSettings,
  accessCounts?: ReadonlyArray<{ readonly count: number; readonly nodes: number }>
): CommitOutcome => {
  const { now } = settings
  const nodes = new Map(graph.nodes)
  const dirty = new Set<string>()
  const put = (n: MemoryNode) => {
    nodes.set(n.id, n)
    dirty.add(n.id)
  }

  // Statements by statement key, active keyed statements by canonical key, keyless vectors.
  const byStatement = new Map<string, Array<string>>()
  const activeByKey = new Map<string, Set<string>>()
  const addStatement = (n: MemoryNode) => {
    const sk = statementKey(n.content)
    const list = byStatement.get(sk)
    if (list === undefined) byStatement.set(sk, [n.id])
    else list.push(n.id)
    if (n.status === "active" && n.canonicalKey !== null) {
      const set = activeByKey.get(n.canonicalKey)
      if (set === undefined) activeByKey.set(n.canonicalKey, new Set([n.id]))
      else set.add(n.id)
    }
  }
  // Active statements by the heads of the attributes they state a value of (attributes.ts).
  const byHead = new Map<string, Set<string>>()
  const mentionsOf = new Map<string, ReadonlyArray<AttributeMention>>()
  const addSlots = (n: MemoryNode) => {
    if (n.status !== "active" || n.type === "episodic" || isEntityNode(n)) return
    const ms = attributeMentions(n.content)
    if (ms.length === 0) return
    mentionsOf.set(n.id, ms)
    for (const m of ms) {
      const set = byHead.get(m.head)
      if (set === undefined) byHead.set(m.head, new Set([n.id]))
      else set.add(n.id)
    }
  }
  const dimension = prepared.find((p) => p.vector !== null)?.vector?.length ?? 0
  const vectors = settings.modelId !== null && dimension > 0 ? new VectorIndex(dimension) : null
  const addVector = (n: MemoryNode) => {
    if (vectors !== null && n.canonicalKey === null && n.embedding !== null && n.embedModel === settings.modelId && n.embedding.length === dimension) {
      vectors.add(n.id, n.embedding)
    }
  }
  for (const n of nodes.values()) {
    if (isEntityNode(n)) continue
    addStatement(n)
    addVector(n)
    addSlots(n)
  }
  const entities = new EntityIndex(nodes.values())

  const created: Array<MemoryNode> = []
  const batchEntities = new Set<string>()
  let reinforced = 0
  let superseded = 0

  // The old window ends when the new statement starts (never before it began, never later than it did).
  const markSuperseded = (id: string, at: string) => {
    const old = nodes.get(id)!
    const start = old.validFrom
    let end = at
    if (start !== null && end < start) end = start
    if (old.validTo !== null && old.validTo < end) end = old.validTo
    put({ ...old, status: "superseded", validTo: end })
    activeByKey.get(old.canonicalKey ?? "")?.delete(id)
    for (const m of mentionsOf.get(id) ?? []) byHead.get(m.head)?.delete(id)
    superseded++
  }

  for (const { candidate: c, vector, scope } of prepared) {
    const sameScope = (n: MemoryNode) => n.scope === scope
    const withVector = vector !== null && settings.modelId !== null

    if (c.entityType !== null) {
      const name = c.content.slice(c.entityType.length + 2)
      const accept = (n: MemoryNode) => n.scope === scope || n.scope === null
      const match =
        entities.resolveByName(name, c.entityType, accept) ??
        (withVector ? entities.resolveByEmbedding(name, c.entityType, vector, settings.modelId!, settings.entityLinkThreshold, accept) : null)
      if (match !== null) {
        const node = nodes.get(match.nodeId)!
        const updated = reinforce(registerAlias(node, name) ?? node, c, now)
        put(updated)
        entities.add(updated)
        batchEntities.add(updated.id)
        reinforced++
        continue
      }
      const node = makeNode({
        id: settings.newId(),
        type: "semantic",
        content: c.content,
        createdAt: now,
        embedding: withVector ? vector : null,
        embedModel: withVector ? settings.modelId : null,
        sourceSessions: [c.sessionId],
        sourceRefs: c.sourceRefs,
        validFrom: c.timestamp,
        confidence: c.confidence,
        entityType: c.entityType,
        scope
      })
      put(node)
      created.push(node)
      entities.add(node)
      batchEntities.add(node.id)
      continue
    }

    const sk = statementKey(c.content)
    // Episodes (outcomes, dated events) are things that happened, not slots: they never supersede.
    const slots = candidateSlots(c)
    const key = candidateKey(c, slots)
    const exact = (byStatement.get(sk) ?? []).map((id) => nodes.get(id)!).filter(sameScope)
    const current = exact.find((n) => n.status === "active")
    if (current !== undefined) {
      let updated = reinforce(current, c, now)
      // A node stored while the embedder was down gets its vector from the restatement.
      if (updated.embedding === null && withVector) updated = { ...updated, embedding: vector, embedModel: settings.modelId }
      put(updated)
      addVector(updated)
      reinforced++
      continue
    }
    if (exact.length === 0 && key === null && withVector && vectors !== null) {
      const hit = vectors.search(vector, 1, (id) => {
        const n = nodes.get(id)!
        return sameScope(n) && n.status === "active" && sameSpecifics(n.content, c.content)
      })[0]
      if (hit !== undefined && hit.score >= settings.dedupThreshold) {
        put(reinforce(nodes.get(hit.id)!, c, now))
        reinforced++
        continue
      }
    }

    // A new node (also when the statement repeats a superseded one: saying it again makes it current).
    const from = validFromOf(c)
    const at = c.validFrom ?? c.timestamp
    let node = makeNode({
      id: settings.newId(),
      type: c.type,
      content: c.content,
      createdAt: now,
      embedding: withVector ? vector : null,
      embedModel: withVector ? settings.modelId : null,
      sourceSessions: [c.sessionId],
      sourceRefs: c.sourceRefs,
      canonicalKey: key,
      validFrom: from,
      validTo: c.validTo,
      confidence: c.confidence,
      mentionedDates: c.mentionedDates,
      scope
    })
    const supersedes: Array<string> = []
    // A late-arriving older statement: the stored one, `old` (valid from the later `oldFrom`), stays current and supersedes it.
    const yieldTo = (old: MemoryNode, oldFrom: string) => {
      node = { ...node, status: "superseded", validTo: node.validTo !== null && node.validTo < oldFrom ? node.validTo : oldFrom }
      put({ ...old, supersedes: [...old.supersedes, node.id] })
      superseded++
    }
    // Exact slot keys of attributes are not enough to supersede: updates() decides (below).
    if (key !== null && !key.startsWith("attr:")) {
      const rivals = new Set<string>(activeByKey.get(key) ?? [])
      if (correctsAcrossFamily(c, key)) {
        for (const [k, ids] of activeByKey) if (k !== key && family(k) === family(key)) for (const id of ids) rivals.add(id)
      }
      const said = canonicalSlot(c.content)
      for (const id of rivals) {
        const old = nodes.get(id)!
        // The same value said again in other words updates nothing (nor does the same preferred thing).
        if (!sameScope(old) || statementKey(old.content) === sk || restates(canonicalSlot(old.content), said)) continue
        const ref = maxRefIn(old, c.sessionId)
        if (!correctionSupersedes(key, c.isCorrection, old.canonicalKey, ref === null ? null : c.messageIndex - ref, settings.correctionWindow)) continue
        const oldFrom = old.validFrom
        if (old.canonicalKey === key && oldFrom !== null && oldFrom > at && node.status === "active") {
          yieldTo(old, oldFrom)
          continue
        }
        if (oldFrom !== null && oldFrom > at) continue
        markSuperseded(id, at)
        supersedes.push(id)
      }
    }
    // A later value of the same attribute supersedes the earlier statement, whatever either's phrasing.
    for (const later of slots) {
      if (!isSlot(later)) continue
      for (const id of [...(byHead.get(later.head) ?? [])]) {
        const old = nodes.get(id)!
        if (!sameScope(old) || old.status !== "active" || supersedes.includes(id) || statementKey(old.content) === sk) continue
        if (!(mentionsOf.get(id) ?? []).some((m) => updates(m, old.content, later, c.content))) continue
        const oldFrom = old.validFrom
        if (oldFrom !== null && oldFrom > at) {
          if (node.status === "active") yieldTo(old, oldFrom)
          continue
        }
        markSuperseded(id, at)
        supersedes.push(id)
      }
    }
    if (supersedes.length > 0) node = { ...node, supersedes }
    put(node)
    created.push(node)
    addStatement(node)
    addVector(node)
    addSlots(node)
  }

  // Temporal chain of the batch's new episodic nodes; association edges to the entities it names.
  const edges: Array<Edge> = []
  const lastEpisode = new Map<string, string>()
  for (const n of created) {
    if (n.type !== "episodic" || n.entityType !== null) continue
    const session = n.sourceSessions[0]!
    const previous = lastEpisode.get(session)
    if (previous !== undefined) edges.push({ source: previous, target: n.id, type: "temporal", weight: TEMPORAL_WEIGHT, createdAt: now })
    lastEpisode.set(session, n.id)
  }
  const pool = [...batchEntities].map((id) => nodes.get(id)!)
  if (pool.length > 0) {
    for (const n of created) {
      if (n.entityType !== null) continue
      for (const target of mentionedEntities(n.content, pool)) {
        edges.push({ source: n.id, target, type: "association", weight: ENTITY_MENTION_WEIGHT, createdAt: now })
      }
    }
  }

  // Strength of what this batch touched, against every node's access count (retrieval rescores the rest).
  let p: number
  if (accessCounts === undefined) p = p90([...nodes.values()].map((n) => n.accessCount))
  else {
    const counts = new Map(accessCounts.map((r) => [r.count, r.nodes] as const))
    const move = (count: number, by: number) => counts.set(count, (counts.get(count) ?? 0) + by)
    for (const id of dirty) {
      const before = graph.nodes.get(id)
      if (before !== undefined) move(before.accessCount, -1)
      move(nodes.get(id)!.accessCount, 1)
    }
    p = p90OfCounts(counts)
  }
  for (const id of dirty) {
    const n = nodes.get(id)!
    nodes.set(id, { ...n, strength: strengthOf(n, now, p, settings.strength) })
  }

  return {
    changes: { upsertNodes: [...dirty].map((id) => nodes.get(id)!), addEdges: edges },
    created: created.map((n) => nodes.get(n.id)!),
    reinforced,
    superseded
  }
}
