// The ranking core: one query against prepared views of the buffer hits, the graph and the raw log.
// No I/O and no embedding here, so its latency is what bench/retrieval.ts measures.
import type { MemoryNode, Strength } from "../../domain/Node.js"
import type { RetrievalResult, Trace } from "../../domain/Result.js"
import { strengthOf, type StrengthParams } from "../../domain/strength.js"
import type { BufferHit } from "../../services/SessionBuffer.js"
import {
  blendScore, isCurrent, isEligible, refKey, relevanceOf, statusBonus, windowStart, mergeRanked, toResult,
  type BlendWeights, type EligibilityContext, type Ranked
} from "./rank.js"
import type { RawDoc, RawLogView } from "./RawLogView.js"
import type { LexicalHit, Ranking } from "../../search/LexicalIndex.js"
import type { VectorHit } from "../../search/VectorIndex.js"
import { queryPeriods, withinPeriod } from "../../text/queryPeriod.js"
import { isSummaryRequest } from "../../text/summaryRequest.js"
import { asksName, namesOne } from "../../text/namesAsked.js"
import { kindAsked, kindWordsIn } from "../../text/kindsAsked.js"
import { asksWhen, saysWhen } from "../../text/timeReference.js"
import { words } from "../../text/tokenize.js"
import { analyze } from "../../search/IndexAnalyzer.js"
import { validAt } from "../../domain/time.js"
import { type OwnLinesLookup, NEWER_WINS_POOL, newerWins } from "./newerWins.js"

/** How raw-log lines are scored (defaults below; overridable for measurements). */
export interface RawTuning {
  /** Share of the lexical score in a line's own score when semantics are on (1: lexical only). */
  readonly lexicalShare: number
  /** Weight of the best neighbouring line's own score. */
  readonly neighbourWeight: number
  /**
   * Weight of the line before when it asks a question another person answers with this line ("How often do you
   * work out together?" / "Three times a week"): the answer borrows this much of the question's own score.
   */
  readonly answerWeight: number
  /** Weight of the session's relevance (mean of its best few lines). */
  readonly sessionWeight: number
  /** Added to a line's own score when the question names its author (metadata.speaker). */
  readonly authorWeight: number
  /**
   * Share of an assistant line's own score when the question is in the first person ("what is my…",
   * "have I ever…"): what the user said about their own things is the answer; the assistant restates it.
   */
  readonly assistantShare: number
  /** Added to a line's score when it was said in a period the question names ("in May 2023"; queryPeriod.ts). */
  readonly periodWeight: number
  /** Added to a line's score when the question asks when and the line says when ("last weekend"; timeReference.ts). */
  readonly timeWeight: number
  /**
   * Added to a line's score when the question asks where, who or which book, film, band… and the line names a place,
   * a person or a title other than the question's names and the speakers' ("a short trip to Rome" for "Which cities
   * has Jon visited?"; namesAsked.ts).
   */
  readonly nameWeight: number
  /**
   * Share of a line's score when the question names one of the people whose lines are candidates
   * (metadata.speaker) and another person said it: "Where has Melanie camped?" is answered by Melanie's lines.
   */
  readonly otherAuthorShare: number
  /**
   * Share of a person's line's score (metadata.speaker) when it only asks ("What's your best camping memory?"): a
   * question says nothing; its answer, which borrows from it, does. Not for lines without an author: what a user
   * asks an assistant is what they are about.
   */
  readonly questionShare: number
  /**
   * Share of a line's score when the question asks about one named person's things (not in the first person) and
   * that person's line says nothing of their own (no "I", "my", "we"…): "Wow, Caroline, that painting is awesome!"
   * reacts to what the other person did; "Here's a photo of my horse painting" answers "What has Melanie painted?".
   */
  readonly reactionShare: number
  /**
   * When the question asks for a named person's things of one kind ("What activities does Melanie partake in?";
   * kindsAsked.ts), that person's lines that mention one, at most this many (the best first, each naming a thing no
   * line before it did: "pottery", "camping", "swimming"), come back as one result in the place of the best of them:
   * the question asks for the set, each line an example ("I'm off to go swimming with the kids"). Among the candidates
   * (a lexical pull of the person's lines of the kind measured the same and cost ~0.2 s CPU per such query at 100k).
   * 0: each line on its own.
   */
  readonly kindGroup: number
}

/** How graph memories are ranked beyond the reference's blend (defaults below; overridable for measurements). */
export interface GraphTuning {
  /** Scale strength and confidence by relevance relative to the best candidate (false: the reference's blend). */
  readonly gatePriors: boolean
  /** Entity nodes as results: this share of their blend (1: the reference). */
  readonly entityFactor: number
  /**
   * A memory that shares no word with the question but the name of a person who said the candidates (metadata.speaker)
   * is no lexical match: "Melanie: Here's one I did last week." says nothing about "Where has Melanie camped?" (short,
   * it would otherwise match the name as well as a whole answer does). False: the index's score, name or not.
   */
  readonly nameOnlyNoMatch: boolean
}

export const DEFAULT_GRAPH_TUNING: GraphTuning = { gatePriors: true, entityFactor: 0.5, nameOnlyNoMatch: true }

export interface RankSettings extends BlendWeights {
  readonly raw: RawTuning
  readonly graph: GraphTuning
  readonly bm25AnchorRatio: number
  readonly embedThreshold: number
  readonly neighborExpansion: boolean
  readonly neighborDecay: number
  readonly rawLogScoreScale: number
  readonly strength: StrengthParams
  /** Newer wins among the candidates (newerWins.ts); false only for ablations. */
  readonly newerWins?: boolean
}

export interface RankRequest {
  readonly query: string
  /** The query's embedding, or null for lexical-only ranking. */
  readonly queryVector: Float32Array | null
  readonly k: number
  readonly includeHistory: boolean
  readonly asOf: string | null
  readonly scope: string | null
  /** Ref keys (refKey) of messages that must not come back. */
  readonly exclude: ReadonlySet<string>
  readonly trace: boolean
  readonly now: string
  /**
   * The query asks for a summary (summaryRequest.ts); `query` may then be only its subject, so it is said here.
   * Undefined: read from `query`.
   */
  readonly summary?: boolean
}

/** One neighbour of a node: the other end of an edge, and its weight. */
export interface Neighbour {
  readonly id: string
  readonly weight: number
}

/**
 * What ranking needs of the graph for one query, fetched from the store beforehand: the store's lexical and
 * vector top lists (among admitted nodes), those nodes and their neighbours, and the access-count p90.
 */
export interface GraphCandidates {
  /** Lexical top pool (exact BM25) among admitted nodes, best first. */
  readonly lexical: ReadonlyArray<LexicalHit>
  /** Vector top pool among admitted nodes, or null when semantic search is off for the graph. */
  readonly semantic: ReadonlyArray<VectorHit> | null
  /** The query's model: a node's vector is compared only when it is this model's (or has none recorded). */
  readonly modelId: string | null
  /** Every node named above and every neighbour of them. */
  readonly nodes: ReadonlyMap<string, MemoryNode>
  readonly adjacency: ReadonlyMap<string, ReadonlyArray<Neighbour>>
  readonly accessP90: number
  /**
   * Statement nodes (canonical key, not entities) that came from a message (ref key); undefined when not
   * fetched yet: the key is then noted in `missing`, and the caller fetches those and ranks again.
   */
  readonly statementsOf: (key: string) => ReadonlyArray<MemoryNode> | undefined
  readonly missing: Set<string>
}

export interface RankSources {
  readonly graph: GraphCandidates | null
  /** Null when the raw log is not searched (cold-start count reached, or turned off). */
  readonly raw: RawLogView | null
  readonly buffer: ReadonlyArray<BufferHit>
  /** Ref keys of messages whose buffer statements a later correction superseded (their lines are history). */
  readonly staleRefs?: ReadonlySet<string>
  /** What the passes of one query share (the caller ranks again once it fetched missing statements). */
  readonly memo?: RankMemo
}

/** One query's work that a second ranking pass over the same views need not redo. */
export class RankMemo {
  raw: { readonly view: RawLogView; readonly ranking: Ranking; readonly inPeriod: InPeriod | undefined } | null = null
  /** The raw-log ranking of the last text ownLinesLookup searched for (what a denial denies, a statement that may have changed). */
  denied: { readonly view: RawLogView; readonly text: string; readonly ranking: Ranking } | null = null
}

export interface RankOutcome {
  readonly results: ReadonlyArray<RetrievalResult>
  /** Returned graph nodes that are active, with their strength as recomputed for this query. */
  readonly returnedNodes: ReadonlyArray<{ readonly node: MemoryNode; readonly strength: Strength }>
}

/** Buffer hits below this relative relevance are not "relevant" and are left out. */
export const BUFFER_MIN_RELEVANCE = 0.5

// Raw-log blend, measured on LoCoMo (bench/locomo.ts): lexical share when semantics are on, and the weights
// with which a message borrows from its neighbours (a reply answers what came before it) and from the
// best messages of its session.
export const DEFAULT_RAW_TUNING: RawTuning = {
  lexicalShare: 0.4,
  neighbourWeight: 0.4,
  answerWeight: 0.5,
  sessionWeight: 0.7,
  authorWeight: 0.2,
  assistantShare: 0.5,
  periodWeight: 0.4,
  timeWeight: 0.3,
  nameWeight: 0.3,
  otherAuthorShare: 0.85,
  questionShare: 0.8,
  reactionShare: 0.9,
  kindGroup: 8
}

/** A question about the asker's own things. */
const FIRST_PERSON = /\b(?:i|me|my|mine|myself|we|us|our|ours)\b|\b(?:i|we)['’](?:m|ve|d|ll|re)\b/i
const RAW_SESSION_TOP = 3
/** A raw-log line's own score plus context at which it counts as a full match (see rankRawLog). */
const RAW_FULL_MATCH = 1

/**
 * The raw log's semantic candidates, in pools: a line that shares no word with the question ("a short trip to
 * Rome" for "Which cities has Jon visited?") is found only this way, and another person's lines, closer in
 * meaning, can fill one pool, or two (LoCoMo real any@5/any@10/all@10 at two pools 0.784/0.859/0.730, at three
 * 0.786/0.859/0.732, at four 0.785/0.858/0.733).
 */
const RAW_SEMANTIC_DEPTH = 3

/** How many candidates each source ranks for k results. */
export const pool = (k: number) => Math.max(5 * k, 50)

const dot = (a: Float32Array, b: Float32Array): number => {
  if (a.length !== b.length) return 0
  let s = 0
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!
  return s
}

/** Ranks one query over every source and merges the results (best first, at most k). */
export const rankQuery = (req: RankRequest, settings: RankSettings, sources: RankSources): RankOutcome => {
  const ctx: EligibilityContext = {
    asOf: req.asOf,
    includeHistory: req.includeHistory,
    now: req.now,
    scope: req.scope
  }
  const items: Array<Ranked> = []
  items.push(...rankBuffer(req, settings, sources.buffer))
  const graphSearch = sources.graph === null ? null : graphLexical(req, ctx, sources.graph)
  const rawSearch =
    sources.raw === null ? null : rawLexical(req, sources.raw, sources.graph, sources.staleRefs ?? new Set(), sources.memo ?? new RankMemo())
  // Lexical relevance is relative to the best match in either source, so a graph memory matching only a
  // name is not "the best lexical match" while a log line matches the whole question.
  const bestLexical = Math.max(graphSearch?.hits[0]?.score ?? 0, rawSearch?.hits[0]?.score ?? 0)
  const { ranked: raw, kindLines } =
    sources.raw !== null && rawSearch !== null ? rankRawLog(req, settings, sources.raw, rawSearch, bestLexical) : { ranked: [], kindLines: [] }
  // The raw log asked for statements not fetched yet: the caller fetches them and ranks again, so the rest
  // of this pass would be thrown away.
  if (sources.graph !== null && sources.graph.missing.size > 0) return { results: [], returnedNodes: [] }
  const graph =
    sources.graph === null || graphSearch === null
      ? { ranked: [], nodes: new Map<string, { node: MemoryNode; strength: Strength }>() }
      : rankGraph(req, settings, ctx, sources.graph, graphSearch, bestLexical, settings.graph.nameOnlyNoMatch && sources.raw !== null && rawSearch !== null ? speakerTerms(req.query, sources.raw, rawSearch) : null)
  items.push(...graph.ranked, ...raw)
  // Newer wins among the best candidates, then the cut: a newer statement ranked below k can take the place of an older one.
  const merged = mergeRanked(items, Math.max(req.k, NEWER_WINS_POOL))
  const lookup = sources.raw === null || rawSearch === null ? undefined : ownLinesLookup(req, sources.raw, rawSearch, merged, sources.memo ?? new RankMemo())
  const results = grouped(settings.newerWins === false ? merged : newerWins(merged, req.query, req.includeHistory, lookup), kindLines)
    .slice(0, req.k)
    .map(toResult)
  const returnedNodes: Array<{ node: MemoryNode; strength: Strength }> = []
  for (const r of results) {
    const hit = r.nodeId === undefined ? undefined : graph.nodes.get(r.nodeId)
    if (hit !== undefined && hit.node.status === "active") returnedNodes.push(hit)
  }
  return { results, returnedNodes }
}

/**
 * The lines of a kind question's group as one result, in the place of the best of them (or where its score puts
 * it); what stands only for its lines (the lines, or graph memories of them) is left out. Fewer than two: as is.
 */
const grouped = (list: ReadonlyArray<Ranked>, lines: ReadonlyArray<Ranked>): ReadonlyArray<Ranked> => {
  if (lines.length < 2) return list
  const keys = new Set(lines.map((l) => refKey(l.sourceRefs[0]!.sessionId, l.sourceRefs[0]!.messageIndex)))
  const covered = (r: Ranked) =>
    r.source !== "buffer" && r.entity !== true && r.sourceRefs.length > 0 && r.sourceRefs.every((ref) => keys.has(refKey(ref.sessionId, ref.messageIndex)))
  const rest = list.filter((r) => !covered(r))
  const best = Math.max(...lines.map((l) => l.score), ...list.filter(covered).map((r) => r.score))
  const group: Ranked = {
    content: lines.map((l) => l.content).join("\n"),
    source: "raw_log",
    score: best,
    sourceRefs: lines.flatMap((l) => l.sourceRefs),
    said: true,
    ...(lines[0]!.trace !== undefined ? { trace: lines[0]!.trace } : {})
  }
  const at = rest.findIndex((r) => r.score < best)
  return at < 0 ? [...rest, group] : [...rest.slice(0, at), group, ...rest.slice(at)]
}

// Every score is on the graph blend's scale, 0 to 1 (higher = better match), whatever the source.

/**
 * A buffer hit scores as a graph memory of the same relevance would, fresh (strength 1) and fully
 * trusted (confidence 1): so it ranks first when it is a good match, not merely because it is in the buffer.
 */
const rankBuffer = (req: RankRequest, settings: RankSettings, hits: ReadonlyArray<BufferHit>): Array<Ranked> =>
  hits
    .filter((h) => h.relevance >= BUFFER_MIN_RELEVANCE && !req.exclude.has(refKey(h.entry.session_id, h.entry.source_msg)))
    // Of two equally good hits, the later message first.
    .sort((a, b) => b.relevance - a.relevance || b.entry.source_msg - a.entry.source_msg)
    .map((h) => {
      const trace: Trace = { semanticSim: 0, lexicalScore: h.relevance, strength: 1, confidence: 1, statusBonus: 1, association: 0 }
      return {
        content: h.entry.content,
        source: "buffer" as const,
        score: Math.min(1, blendScore(trace, settings, false)),
        sourceRefs: [{ sessionId: h.entry.session_id, messageIndex: h.entry.source_msg }],
        at: h.entry.timestamp,
        said: true,
        ...(req.trace ? { trace } : {})
      }
    })

interface LexicalSearch {
  readonly hits: ReadonlyArray<LexicalHit>
  readonly accept: (key: string) => boolean
  /** Whether a raw-log line was said in a period the question names; absent when it names none. */
  readonly inPeriod?: InPeriod
  /** A raw-log line's lexical score wherever it ranks (a line found by meaning, below the pool). */
  readonly scoreOf?: (key: string) => number
}

const graphLexical = (req: RankRequest, ctx: EligibilityContext, view: GraphCandidates): LexicalSearch => {
  const nodes = view.nodes
  const accept = (id: string) => {
    const n = nodes.get(id)
    return n !== undefined && isEligible(n, ctx) && !excludedNode(n, req.exclude)
  }
  return { hits: view.lexical.filter((h) => accept(h.key)).slice(0, pool(req.k)), accept }
}

/** Whether a node's vector may be compared with the query's (same model, or none recorded; same dimension). */
const comparable = (node: MemoryNode, q: Float32Array, modelId: string | null): boolean =>
  node.embedding !== null &&
  node.embedding.length === q.length &&
  (node.embedModel === null || modelId === null || node.embedModel === modelId)

const rankGraph = (
  req: RankRequest,
  settings: RankSettings,
  ctx: EligibilityContext,
  view: GraphCandidates,
  search: LexicalSearch,
  best: number,
  names: ReadonlySet<string> | null
) => {
  const nodes = view.nodes
  const eligible = search.accept
  const lexHits = search.hits
  const lexical = new Map<string, number>()
  const anchors = new Set<string>()
  const queryTerms = names === null || names.size === 0 ? null : new Set(analyze(req.query))
  const nameOnly = (id: string): boolean => {
    const node = nodes.get(id)
    if (queryTerms === null || node === undefined) return false
    let shared = false
    for (const t of analyze(node.content)) {
      if (!queryTerms.has(t)) continue
      if (!names!.has(t)) return false
      shared = true
    }
    return shared
  }
  for (const h of lexHits) {
    const rel = best > 0 && !nameOnly(h.key) ? h.score / best : 0
    lexical.set(h.key, rel)
    if (rel >= settings.bm25AnchorRatio) anchors.add(h.key)
  }
  const q = req.queryVector
  const vectorHits = q !== null ? view.semantic : null
  const semantic = new Map<string, number>()
  if (vectorHits !== null) {
    for (const h of vectorHits.filter((x) => eligible(x.id)).slice(0, pool(req.k))) {
      semantic.set(h.id, h.score)
      if (h.score >= settings.embedThreshold) anchors.add(h.id)
    }
  }
  const association = new Map<string, number>()
  if (settings.neighborExpansion) {
    for (const id of anchors) {
      for (const nb of view.adjacency.get(id) ?? []) {
        if (anchors.has(nb.id) || !eligible(nb.id)) continue
        const a = Math.max(nb.weight, 0) * settings.neighborDecay
        if (a > (association.get(nb.id) ?? 0)) association.set(nb.id, a)
      }
    }
  }
  const p90 = view.accessP90
  const semanticOn = vectorHits !== null
  const scored: Array<{ node: MemoryNode; strength: Strength; trace: Trace; score: number }> = []
  for (const id of [...anchors, ...association.keys()]) {
    const node = nodes.get(id)!
    const strength = strengthOf(node, req.now, p90, settings.strength)
    const sim = vectorHits === null ? 0 : (semantic.get(id) ?? (comparable(node, q!, view.modelId) ? dot(q!, node.embedding!) : 0))
    const trace: Trace = {
      semanticSim: sim,
      lexicalScore: lexical.get(id) ?? 0,
      strength: strength.composite,
      confidence: Math.min(1, Math.max(0, node.confidence)),
      statusBonus: statusBonus(node, ctx),
      association: association.get(id) ?? 0
    }
    scored.push({ node, strength, trace, score: 0 })
  }
  // Strength and confidence say how far to trust a memory, not how relevant it is: they count in proportion
  // to its relevance relative to the best candidate, so a weakly related, well-used memory cannot outrank
  // an exact answer (measured on LoCoMo, bench/locomo.ts). The best candidate gets the reference's blend.
  let maxRelevance = 0
  for (const x of scored) maxRelevance = Math.max(maxRelevance, relevanceOf(x.trace, settings, semanticOn))
  for (const x of scored) {
    const gate = !settings.graph.gatePriors ? 1 : maxRelevance > 0 ? relevanceOf(x.trace, settings, semanticOn) / maxRelevance : 0
    // An entity node names a thing and says nothing about it: it anchors neighbour expansion, and as a
    // result it ranks at half its blend, below the statements about it.
    x.score = Math.min(1, blendScore(x.trace, settings, semanticOn, gate) * (x.node.entityType !== null ? settings.graph.entityFactor : 1))
  }
  scored.sort((a, b) => b.score - a.score || (a.node.id < b.node.id ? -1 : 1))
  const top = scored.slice(0, pool(req.k))
  const ranked: Array<Ranked> = top.map(({ node, trace, score }) => ({
    content: node.content,
    source: "graph" as const,
    score,
    nodeId: node.id,
    status: node.status,
    canonicalKey: node.canonicalKey,
    validFrom: node.validFrom,
    validTo: node.validTo,
    sourceRefs: node.sourceRefs,
    entity: node.entityType !== null,
    penalty: (1 - trace.statusBonus) * settings.contradictionPenalty,
    at: windowStart(node),
    said: node.entityType === null,
    ...(req.trace ? { trace } : {})
  }))
  return { ranked, nodes: new Map(top.map((s) => [s.node.id, { node: s.node, strength: s.strength }])) }
}

/** The index terms of the names of the people (metadata.speaker) who said the raw log's lexical hits, as the query names them. */
const speakerTerms = (query: string, raw: RawLogView, search: LexicalSearch): Set<string> => {
  const queryTerms = new Set(analyze(query))
  const out = new Set<string>()
  const seen = new Set<string>()
  for (const h of search.hits) {
    const author = raw.docs.get(h.key)?.author
    if (author === null || author === undefined || seen.has(author)) continue
    seen.add(author)
    for (const t of analyze(author)) if (queryTerms.has(t)) out.add(t)
  }
  return out
}

// A graph memory whose every source message is excluded would only echo those messages back.
const excludedNode = (node: MemoryNode, exclude: ReadonlySet<string>): boolean =>
  exclude.size > 0 &&
  node.sourceRefs.length > 0 &&
  node.sourceRefs.every((r) => exclude.has(refKey(r.sessionId, r.messageIndex)))

const rawLexical = (
  req: RankRequest,
  raw: RawLogView,
  graph: GraphCandidates | null,
  staleRefs: ReadonlySet<string>,
  memo: RankMemo
): LexicalSearch => {
  const moment = req.asOf ?? req.now
  // A line whose statement has been superseded (or whose window is not open at the moment asked about) is
  // history: it stays out unless history is asked for, so a stale value never comes back through the log.
  const stale = (key: string): boolean => {
    if (req.includeHistory) return false
    if (staleRefs.has(key)) return true
    if (graph === null) return false
    const statements = graph.statementsOf(key)
    if (statements === undefined) {
      graph.missing.add(key)
      return false
    }
    for (const node of statements) {
      const live = req.asOf !== null ? validAt(windowStart(node), node.validTo, moment) : isCurrent(node, req.now)
      if (!live) return true
    }
    return false
  }
  // Cheap checks first: stale() is only reached for lines some statement or buffer entry came from.
  const accept = (key: string): boolean => {
    const doc = raw.docs.get(key)
    return (
      doc !== undefined &&
      (req.asOf === null || doc.timestamp <= req.asOf) &&
      (req.scope === null || doc.scope === null || doc.scope === req.scope) &&
      !req.exclude.has(key) &&
      !stale(key)
    )
  }
  // Scored once per query: a second pass only refuses more lines.
  if (memo.raw === null || memo.raw.view !== raw) memo.raw = { view: raw, ranking: raw.lexical.ranking(req.query), inPeriod: periodFilter(req.query, raw) }
  const { ranking, inPeriod } = memo.raw
  const scoreOf = (key: string) => ranking.scoreOf(key)
  const hits = ranking.take(pool(req.k), accept)
  const taken = new Set(hits.map((h) => h.key))
  const more: Array<LexicalHit> = []
  const add = (extra: ReadonlyArray<LexicalHit>) => {
    for (const h of extra) {
      if (taken.has(h.key)) continue
      taken.add(h.key)
      more.push(h)
    }
  }
  // The assistant's long replies restate what the user said and can fill the pool: the user's own best lines
  // are looked at as deeply, so a short statement of theirs ("it's now 10 hours weekly") stays a candidate. A
  // request for a summary wants the conversation's breadth, as the lines rank.
  if (!(req.summary ?? isSummaryRequest(req.query))) add(ranking.take(pool(req.k), (key) => raw.docs.get(key)?.role === "user" && accept(key)))
  // A question that names a period ("what did Maria do in May 2023") looks as deeply at the lines said then.
  if (inPeriod === undefined) return { hits: merged(hits, more), accept, scoreOf }
  add(ranking.take(pool(req.k), (key) => inPeriod(key) && accept(key), PERIOD_EXAMINED * pool(req.k)))
  return { hits: merged(hits, more), accept, inPeriod, scoreOf }
}

/** The pool's best hits and the lines looked at more deeply, best first. */
const merged = (hits: ReadonlyArray<LexicalHit>, more: ReadonlyArray<LexicalHit>) =>
  more.length === 0 ? hits : [...hits, ...more].sort((a, b) => b.score - a.score)

/** Of the lines that match a period question's words, how many (times the pool) are looked at for its period's. */
const PERIOD_EXAMINED = 20

/** Whether a raw-log line (by key) was said in a period the question names. */
type InPeriod = (key: string) => boolean

/** The lines said in a period the query names (queryPeriod.ts), each looked up once; undefined when it names none. */
const periodFilter = (query: string, raw: RawLogView): InPeriod | undefined => {
  const periods = queryPeriods(query)
  if (periods.length === 0) return undefined
  const seen = new Map<string, boolean>()
  return (key) => {
    let yes = seen.get(key)
    if (yes === undefined) {
      const doc = raw.docs.get(key)
      const at = doc === undefined ? NaN : Date.parse(doc.timestamp)
      yes = !Number.isNaN(at) && periods.some((p) => withinPeriod(p, at))
      seen.set(key, yes)
    }
    return yes
  }
}

/** Whether a line ends in a question (a bracketed note after it aside: "…got any? [shares a photo of …]"). */
const asks = (content: string): boolean => withoutNote(content).endsWith("?")

/** A line without the bracketed note after it ("…got any? [shares a photo of …]" -> "…got any?"), trimmed. */
const withoutNote = (content: string): string => {
  const text = content.trim()
  if (!text.endsWith("]")) return text
  const open = text.lastIndexOf("[")
  return open >= 0 ? text.slice(0, open).trimEnd() : text
}

/**
 * Whether a line only asks: every sentence of it is a question or a word or three ("Wow! What made you try
 * pottery?"); a bracketed note after it aside.
 */
export const onlyAsks = (content: string): boolean => {
  const text = withoutNote(content)
  if (!text.endsWith("?")) return false
  for (const sentence of text.split(SENTENCE_END)) {
    const t = sentence.trim()
    if (t.length > 0 && !t.endsWith("?") && t.split(/\s+/).length > SHORT_SENTENCE_WORDS) return false
  }
  return true
}

/** Where one sentence ends and the next begins. */
const SENTENCE_END = /(?<=[.!?])\s+/
/** A sentence of at most this many words is an exclamation ("Wow!", "That's great!"), not a statement. */
const SHORT_SENTENCE_WORDS = 3

/** User lines one lookup returns at most, of at most this many best matches looked at. */
const DENIAL_LOOKUP_LINES = 5
const DENIAL_LOOKUP_EXAMINED = 50

/**
 * The user's own lines that best match a text (what a denial denies, or a statement whose value may have changed
 * since: the raw log's lexical index, one search), none of them a candidate already: admitted as the query's own
 * raw-log hits are (time, scope, exclusions, history). A line found comes back at the score of the candidate it
 * was looked up for.
 */
const ownLinesLookup = (
  req: RankRequest,
  raw: RawLogView,
  search: LexicalSearch,
  candidates: ReadonlyArray<Ranked>,
  memo: RankMemo
): OwnLinesLookup<Ranked> => (own, text, keep) => {
  const taken = new Set<string>()
  // An entity node names a thing and holds a reference to every mention of it: those lines are not candidates.
  for (const c of candidates) if (c.entity !== true) for (const r of c.sourceRefs) taken.add(refKey(r.sessionId, r.messageIndex))
  if (memo.denied === null || memo.denied.view !== raw || memo.denied.text !== text) {
    memo.denied = { view: raw, text, ranking: raw.lexical.ranking(text) }
  }
  // Not a match of the query's: no feature of its own.
  const trace: Trace | undefined = req.trace ? { semanticSim: 0, lexicalScore: 0, strength: 0, confidence: 0, statusBonus: 1, association: 0 } : undefined
  const found = new Map<string, Ranked>()
  memo.denied.ranking.take(
    DENIAL_LOOKUP_LINES,
    (key) => {
      if (taken.has(key) || raw.docs.get(key)?.role !== "user" || !search.accept(key)) return false
      const line = rawCandidate(raw.docs.get(key)!, own.score, trace)
      if (keep !== undefined && !keep(line)) return false
      found.set(key, line)
      return true
    },
    DENIAL_LOOKUP_EXAMINED
  )
  return [...found.values()]
}

/** A raw-log line as a candidate: the user's own lines are what was said. */
const rawCandidate = (doc: RawDoc, score: number, trace: Trace | undefined): Ranked => ({
  content: doc.content,
  source: "raw_log",
  score,
  sourceRefs: [{ sessionId: doc.sessionId, messageIndex: doc.index }],
  at: doc.timestamp,
  said: doc.role === "user",
  ...(trace !== undefined ? { trace } : {})
})

const rankRawLog = (
  req: RankRequest,
  settings: RankSettings,
  raw: RawLogView,
  search: LexicalSearch,
  best: number
): { readonly ranked: Array<Ranked>; readonly kindLines: Array<Ranked> } => {
  const n = pool(req.k)
  const accept = search.accept
  const lexical = new Map<string, number>()
  for (const h of search.hits) lexical.set(h.key, best > 0 ? h.score / best : 0)
  const q = req.queryVector
  const vectors = q !== null && raw.vectors !== null && raw.vectors.dim === q.length ? raw.vectors : null
  const semantic = new Map<string, number>()
  const inPeriod = search.inPeriod
  if (vectors !== null) {
    for (const h of vectors.search(q!, RAW_SEMANTIC_DEPTH * n, accept)) semantic.set(h.id, Math.max(0, h.score))
    if (inPeriod !== undefined) for (const h of vectors.search(q!, n, (key) => inPeriod(key) && accept(key))) semantic.set(h.id, Math.max(0, h.score))
  }
  const tuning = settings.raw
  const lexShare = vectors === null ? 1 : tuning.lexicalShare
  const own = new Map<string, { lex: number; sim: number; h: number }>()
  // "What did Caroline say about ..." asks about Caroline's own lines first.
  const queryWords = new Set(words(req.query))
  const assistantShare = FIRST_PERSON.test(req.query) ? tuning.assistantShare : 1
  const named = new Map<string, boolean>()
  const authorNamed = (author: string | null) => {
    if (author === null) return false
    let yes = named.get(author)
    if (yes === undefined) {
      const parts = words(author)
      yes = parts.length > 0 && parts.every((w) => queryWords.has(w))
      named.set(author, yes)
    }
    return yes
  }
  const score = (key: string) => {
    let s = own.get(key)
    if (s === undefined) {
      const doc = raw.docs.get(key)!
      // A line found by meaning below the lexical pool keeps the words it shares with the question.
      const lex = lexical.get(key) ?? (best > 0 && search.scoreOf !== undefined && semantic.has(key) ? search.scoreOf(key) / best : 0)
      const sim = vectors === null ? 0 : (semantic.get(key) ?? Math.max(0, vectors.score(key, q!) ?? 0))
      const h = (lexShare * lex + (1 - lexShare) * sim) * (doc.role === "assistant" ? assistantShare : 1)
      s = { lex, sim, h: h > 0 && tuning.authorWeight > 0 && authorNamed(doc.author) ? h + tuning.authorWeight : h }
      own.set(key, s)
    }
    return s
  }
  const hits = new Set<string>([...lexical.keys(), ...semantic.keys()])
  const candidates = new Set<string>(hits)
  for (const key of hits) {
    const doc = raw.docs.get(key)!
    if (doc.prev !== null && accept(doc.prev)) candidates.add(doc.prev)
    if (doc.next !== null && accept(doc.next)) candidates.add(doc.next)
  }
  // Session relevance: the mean of its best few message scores.
  const bySession = new Map<string, Array<number>>()
  for (const key of candidates) {
    const doc = raw.docs.get(key)!
    let list = bySession.get(doc.sessionId)
    if (list === undefined) bySession.set(doc.sessionId, (list = []))
    list.push(score(key).h)
  }
  const sessionScore = new Map<string, number>()
  for (const [sid, list] of bySession) {
    list.sort((a, b) => b - a)
    let sum = 0
    for (let i = 0; i < Math.min(RAW_SESSION_TOP, list.length); i++) sum += list[i]!
    sessionScore.set(sid, sum / RAW_SESSION_TOP)
  }
  const neighbour = (key: string | null) => (key !== null && candidates.has(key) ? score(key).h : 0)
  // A line that follows a question another person asked is its answer. People only (two authors of the same
  // role, metadata.speaker): an assistant's closing question ("Would you like…?") is an offer, not what the
  // user's next message answers (BEAM: the rule there lost a question on most abilities).
  const answers = (doc: RawDoc): boolean => {
    if (doc.prev === null || doc.author === null || !candidates.has(doc.prev)) return false
    const prev = raw.docs.get(doc.prev)!
    return prev.role === doc.role && prev.author !== null && prev.author !== doc.author && asks(prev.content)
  }
  const when = tuning.timeWeight > 0 && asksWhen(req.query)
  // The question names one person among those who said the candidates: another person's lines count for less.
  const authors = new Set<string>()
  for (const key of candidates) {
    const author = raw.docs.get(key)!.author
    if (author !== null) authors.add(author)
  }
  let namedAuthors = 0
  for (const a of authors) if (authorNamed(a)) namedAuthors++
  // A question asking where, who or which title: a line naming something other than the question's names and the speakers.
  const known = tuning.nameWeight > 0 && asksName(req.query) ? new Set([...queryWords, ...[...authors].flatMap((a) => words(a))]) : null
  const namesAsked = (doc: RawDoc) => known !== null && namesOne(doc.content, known)
  const otherShare = (doc: RawDoc) =>
    namedAuthors === 1 && doc.author !== null && !authorNamed(doc.author) ? tuning.otherAuthorShare : 1
  // A person's line that only asks says nothing; its answer, which borrows from it, does.
  const questionShare = (doc: RawDoc) => (tuning.questionShare < 1 && doc.author !== null && onlyAsks(doc.content) ? tuning.questionShare : 1)
  // A named person's line that says nothing of their own reacts to the other's things.
  const aboutThem = namedAuthors === 1 && tuning.reactionShare < 1 && !FIRST_PERSON.test(req.query)
  const reactionShare = (doc: RawDoc) =>
    aboutThem && doc.author !== null && authorNamed(doc.author) && !FIRST_PERSON.test(withoutNote(doc.content)) ? tuning.reactionShare : 1
  const hasQueryWord = (key: string | null) => key !== null && candidates.has(key) && score(key).lex > 0
  const scored: Array<{ doc: RawDoc; total: number; s: { lex: number; sim: number }; context: number }> = []
  let top = 0
  for (const key of candidates) {
    const doc = raw.docs.get(key)!
    const s = score(key)
    // Context only lifts a message that is evidence: it has a query word, or a semantic similarity at least
    // as high as a graph memory needs to be an anchor, or it is the turn next to one with a query word (the
    // answer to a question that matches, or the question a matching answer replies to). Its session alone
    // makes no line evidence.
    const evidence = s.lex > 0 || s.sim >= settings.embedThreshold || hasQueryWord(doc.prev) || hasQueryWord(doc.next)
    if (s.h <= 0 || !evidence) continue
    const context =
      Math.max(
        tuning.neighbourWeight * Math.max(neighbour(doc.prev), neighbour(doc.next)),
        answers(doc) ? tuning.answerWeight * neighbour(doc.prev) : 0
      ) +
      tuning.sessionWeight * sessionScore.get(doc.sessionId)!
    const total =
      (s.h + context + (inPeriod?.(key) === true ? tuning.periodWeight : 0) + (when && saysWhen(doc.content) ? tuning.timeWeight : 0) +
        (namesAsked(doc) ? tuning.nameWeight : 0)) *
      otherShare(doc) *
      questionShare(doc) *
      reactionShare(doc)
    if (total > top) top = total
    scored.push({ doc, total, s, context })
  }
  // Relative to the best line (as the reference), times raw_log_score_scale; but the best line reaches the
  // scale only when it is a full match on its own (total 1: the best lexical match, or lexical and semantic
  // together), so a weak best line scores low instead of always scoring raw_log_score_scale.
  const ranked = scored.map(({ doc, total, s, context }) => ({
    doc,
    score: (settings.rawLogScoreScale * total) / Math.max(top, RAW_FULL_MATCH),
    trace: { semanticSim: s.sim, lexicalScore: s.lex, strength: 0, confidence: 0, statusBonus: 1, association: context } satisfies Trace
  }))
  ranked.sort((a, b) => b.score - a.score || (a.doc.key < b.doc.key ? -1 : 1))
  // A question asking for a named person's things of one kind (kindsAsked.ts): the group lists things, a line of
  // theirs joining it (best first) when it mentions one that no line before it did.
  const kindGroup: Array<Ranked> = []
  const kind = tuning.kindGroup > 0 && namedAuthors > 0 ? kindAsked(req.query) : null
  if (kind !== null) {
    const listed = new Set<string>()
    for (const { doc, score, trace } of ranked) {
      if (kindGroup.length >= tuning.kindGroup) break
      const things = authorNamed(doc.author) ? kindWordsIn(doc.content, kind) : []
      if (things.every((t) => listed.has(t))) continue
      for (const t of things) listed.add(t)
      kindGroup.push(rawCandidate(doc, score, req.trace ? trace : undefined))
    }
  }
  return {
    ranked: ranked.slice(0, n).map(({ doc, score, trace }) => rawCandidate(doc, score, req.trace ? trace : undefined)),
    kindLines: kindGroup
  }
}
