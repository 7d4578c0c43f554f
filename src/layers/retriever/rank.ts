// Pure ranking rules shared by the retrieval sources: eligibility, the feature blend, and the merge
// of buffer, graph and raw-log results into one list.
import type { MemoryNode } from "../../domain/Node.js"
import type { RetrievalResult, Trace } from "../../domain/Result.js"
import { normalizeText } from "../../text/canonical.js"
import { admits, type NodeFilter } from "../../domain/nodeFilter.js"
import { isCurrent } from "../../domain/validity.js"

/** Feature weights of the graph blend (AppConfig defaults: the reference's). */
export interface BlendWeights {
  readonly wSemantic: number
  readonly wLexical: number
  readonly wStrength: number
  readonly wConfidence: number
  readonly wAssociation: number
  readonly contradictionPenalty: number
}

/** The relevance part of the blend: wS·sim⁺ + wL·lex (all on lex when semantics are off, see blendScore). */
export const relevanceOf = (t: Trace, w: BlendWeights, semantic: boolean): number =>
  semantic ? w.wSemantic * Math.max(0, t.semanticSim) + w.wLexical * t.lexicalScore : (w.wSemantic + w.wLexical) * t.lexicalScore

/**
 * The reference's blend: max(0, wS·sim⁺ + wL·lex + gate·(wStr·strength + wC·conf) + wA·assoc − (1−statusBonus)·penalty).
 * Without semantics (lexical-only, or no embedder) the semantic weight moves to the lexical feature, so a
 * graph memory keeps the same scale as with semantics instead of sinking under raw-log lines.
 * `gate` in [0, 1] scales the priors (strength, confidence): the reference's blend is gate 1; retrieval
 * passes the memory's relevance relative to the best candidate's (see engine.ts).
 */
export const blendScore = (t: Trace, w: BlendWeights, semantic: boolean, gate = 1): number => {
  const prior = w.wStrength * t.strength + w.wConfidence * Math.min(1, Math.max(0, t.confidence))
  const s =
    relevanceOf(t, w, semantic) +
    gate * prior +
    w.wAssociation * t.association -
    (1 - t.statusBonus) * w.contradictionPenalty
  return Math.max(0, s)
}

export { isCurrent, windowStart } from "../../domain/validity.js"

/** What a query admits (the store's NodeFilter). */
export type EligibilityContext = NodeFilter

/**
 * Which graph nodes may be ranked: with asOf, those whose half-open window [validFrom ?? createdAt, validTo)
 * holds that moment, whatever their status; without, current nodes (all with includeHistory). Scoped
 * queries see their scope and global (null-scope) memory.
 */
export const isEligible = admits

/** 1 when a node counts as true at the moment asked about (always with asOf), else 0 (the penalty applies). */
export const statusBonus = (node: MemoryNode, ctx: EligibilityContext): number =>
  ctx.asOf !== null || isCurrent(node, ctx.now) ? 1 : 0

/** The key a message is known by across sources. */
export const refKey = (sessionId: string, messageIndex: number): string => `${sessionId}\u0000${messageIndex}`

const CONTENT_KEY = 200

/**
 * The content dedup key (the reference's content[:200], normalized). A long text normalises only its first
 * 400 characters when that leaves more than 200: a prefix normalises as the whole text does except for its
 * last character (a cut whitespace run, a trailing mark, a final sigma), which is past the 200th then.
 */
export const contentKey = (content: string): string => {
  if (content.length > 4 * CONTENT_KEY) {
    const head = normalizeText(content.slice(0, 2 * CONTENT_KEY))
    if (head.length > CONTENT_KEY) return head.slice(0, CONTENT_KEY)
  }
  return normalizeText(content).slice(0, CONTENT_KEY)
}

const PRIORITY = { buffer: 2, graph: 1, raw_log: 0 } as const

/** True when a result may stand in for a raw-log line of one of its source messages. */
const coversMessages = (r: Ranked): boolean =>
  // Entity nodes collect a reference from every mention: they stand for a name, not for those messages.
  r.source === "buffer" || (r.source === "graph" && r.nodeId !== undefined && !r.entity)

/** A ranked result plus what the merge needs to know. */
export interface Ranked extends RetrievalResult {
  /** Graph entity node (never stands in for raw-log lines by provenance). */
  readonly entity?: boolean
  /** The contradiction penalty in a graph memory's score (a line it stands for carries it too). */
  readonly penalty?: number
  /** When it was said (newer wins compares these). */
  readonly at?: string
  /** The user's own statement (a graph memory, a buffer entry, a user line), not assistant text. */
  readonly said?: boolean
}

/**
 * One list from all sources: best score first, duplicates merged. Two results are duplicates when their
 * normalized content[:200] is equal, or when a raw-log line is a source message of a buffer entry or a
 * (non-entity) graph memory. The merged result is the buffer entry, else the graph memory, else the line
 * ("does better" 5: a graph memory is never dropped for a raw-log line), at the best score of the group.
 * Each keeps what newer-wins needs to know of it (`toResult` drops that).
 */
export const mergeRanked = (items: ReadonlyArray<Ranked>, k: number): Array<Ranked> => {
  const order = items
    .map((r, i) => ({ r, i }))
    .sort((a, b) => b.r.score - a.r.score || PRIORITY[b.r.source] - PRIORITY[a.r.source] || a.i - b.i)
  interface Group {
    rep: Ranked
    /** Best score per source among the merged results. */
    best: Record<Ranked["source"], number>
  }
  const groups: Array<Group> = []
  const byContent = new Map<string, Group>()
  const byRef = new Map<string, Group>() // raw-log lines by their message, and covering results by theirs
  for (const { r } of order) {
    const ck = contentKey(r.content)
    let group = byContent.get(ck)
    if (group === undefined) {
      if (r.source === "raw_log") {
        const ref = r.sourceRefs[0]
        const g = ref === undefined ? undefined : byRef.get(refKey(ref.sessionId, ref.messageIndex))
        if (g !== undefined && g.rep.source !== "raw_log") group = g
      } else if (coversMessages(r)) {
        for (const ref of r.sourceRefs) {
          const g = byRef.get(refKey(ref.sessionId, ref.messageIndex))
          if (g !== undefined && g.rep.source === "raw_log") {
            group = g
            break
          }
        }
      }
    }
    if (group === undefined) {
      group = { rep: r, best: { buffer: -Infinity, graph: -Infinity, raw_log: -Infinity } }
      groups.push(group)
    } else if (PRIORITY[r.source] > PRIORITY[group.rep.source]) {
      group.rep = r
    }
    group.best[r.source] = Math.max(group.best[r.source], r.score)
    byContent.set(ck, group)
    if (r.source === "raw_log" || coversMessages(r)) {
      for (const ref of r.sourceRefs) {
        const key = refKey(ref.sessionId, ref.messageIndex)
        if (!byRef.has(key)) byRef.set(key, group)
      }
    }
  }
  // A group ranks at its best member, except that a log line standing for a superseded memory carries the
  // memory's contradiction penalty: with history asked for, the current value still comes first.
  const scored = groups.map((g, i) => {
    const { buffer, graph, raw_log } = g.best
    const score =
      g.rep.source === "buffer"
        ? Math.max(buffer, graph, raw_log)
        : g.rep.source === "graph"
          ? Math.max(graph, raw_log - (g.rep.penalty ?? 0))
          : raw_log
    return { g, i, score }
  })
  scored.sort((a, b) => b.score - a.score || a.i - b.i)
  return scored.slice(0, Math.max(0, k)).map(({ g, score }) => ({ ...g.rep, score }))
}

/** The result as returned: without what only the merge and newer-wins need. */
export const toResult = (r: Ranked): RetrievalResult => {
  const { entity: _entity, penalty: _penalty, at: _at, said: _said, ...result } = r
  return result
}
