// `awhm eval --format beam`: BEAM's long chats replayed as its README says (each chat into a fresh store,
// one session per batch, message times from the batch's date one minute apart, consolidate and end each
// session), every usable probing question asked, results mapped to BEAM message ids through their
// provenance, and per ability: the target turn in the top 5 / 10, MRR, the stale-first rate (knowledge
// updates), both statements in the top 10 (contradictions); the same for a plain BM25 over the raw turns.
import { Effect } from "effect"
import type { AwhmConfigShape } from "../domain/Config.js"
import type { MemoryNode } from "../domain/Node.js"
import type { RetrievalResult } from "../domain/Result.js"
import { refKey } from "../layers/retriever/rank.js"
import type { RetrieverOptions } from "../layers/retriever/service.js"
import { LexicalIndex } from "../search/LexicalIndex.js"
import { Embedder } from "../services/Embedder.js"
import { GraphStore } from "../services/GraphStore.js"
import { Retriever } from "../services/Retriever.js"
import { type BeamChat, type BeamQuestion, type BeamTargets, beamChatDirs, loadBeamChat } from "./beamCorpus.js"
import { corpusName } from "./corpus.js"
import { latencySummary, mean } from "./metrics.js"
import { inReplayStore, replaySessions, resultTurns } from "./replayStore.js"
import type { LatencyMs } from "./report.js"

/** The ranks the metrics look at: the README's top 10 (and 5). */
const TOP = 10
const MINUTE_MS = 60_000
/** Supersessions listed in the report, for a person to judge. */
const SAMPLE = 30
const CLIP = 240

export interface BeamEvalOptions {
  /** Results asked per question (at least 10 are always asked). */
  readonly k: number
  /** Only the first N chats. */
  readonly limit?: number
  readonly lexicalOnly?: boolean
  readonly onProgress?: (done: number, total: number) => void
  /** Passed to the retriever (ablations). */
  readonly retriever?: RetrieverOptions
}

/** How one ranking did on one question. */
export interface BeamOutcome {
  /** 1-based rank of the first result standing for a target turn (within the top 10), or null. */
  readonly targetRank: number | null
  /** The same for the stale turn of a knowledge update (null for other abilities). */
  readonly staleRank: number | null
  /** Contradictions: both statements within the top 10. */
  readonly both: boolean
}

export interface AbilityFigures {
  readonly questions: number
  readonly target_at_5: number
  readonly target_at_10: number
  readonly mrr: number
  /** Knowledge updates: the stale turn ranks above the target, or is in the top 10 without it. */
  readonly stale_first_rate?: number
  /** Contradictions: both statements in the top 10. */
  readonly both_at_10?: number
}

export interface BeamCase {
  readonly id: string
  readonly ability: string
  readonly question: string
  readonly target_rank: number | null
  readonly stale_rank: number | null
  readonly both_at_10: boolean
  readonly anchor_target_rank: number | null
  readonly anchor_stale_rank: number | null
  /** BEAM ids behind the top 3 results. */
  readonly top_results: ReadonlyArray<ReadonlyArray<number>>
  /** Contradictions: 1-based ranks of the first and the second statement among all k results (null: not there). */
  readonly statement_ranks?: readonly [number | null, number | null]
}

export interface Supersession {
  readonly chat: string
  readonly superseded: string
  readonly by: string
  readonly at: string | null
}

export interface BeamReport {
  readonly corpus: string
  readonly format: "beam"
  readonly embedder: string
  readonly lexical_only: boolean
  readonly chats: number
  readonly messages: number
  readonly questions: number
  readonly k: number
  readonly nodes: number
  readonly ingest_seconds: number
  readonly latency_ms: LatencyMs
  readonly abilities: Record<string, AbilityFigures>
  /** The anchor: plain BM25 (the shared tokenizer, k1 1.5, b 0.75) over every raw message. */
  readonly anchor: Record<string, AbilityFigures>
  /**
   * Stage 1's supersessions: how many, an even sample of them (oldest chat first), and of the knowledge-update
   * questions, how many have a node from an updated turn superseding one from its stale turn (Stage 1 reached it).
   */
  readonly supersessions: {
    readonly count: number
    readonly update_pairs: number
    readonly update_pairs_superseded: number
    readonly sample: ReadonlyArray<Supersession>
  }
  readonly cases: ReadonlyArray<BeamCase>
}

/** The turns a question is scored against: the current one, the later statement, or any source turn. */
const targetIds = (t: BeamTargets): ReadonlyArray<number> =>
  t.kind === "update" ? t.current : t.kind === "contradiction" ? (Math.max(...t.first) > Math.max(...t.second) ? t.first : t.second) : t.ids

const rankOf = (retrieved: ReadonlyArray<ReadonlyArray<number>>, wanted: ReadonlyArray<number>, within = TOP): number | null => {
  const set = new Set(wanted)
  const at = retrieved.slice(0, within).findIndex((ids) => ids.some((id) => set.has(id)))
  return at === -1 ? null : at + 1
}

/** Scores one ranking (BEAM ids per result, best first) against a question's targets. */
export const scoreBeam = (targets: BeamTargets, retrieved: ReadonlyArray<ReadonlyArray<number>>): BeamOutcome => ({
  targetRank: rankOf(retrieved, targetIds(targets)),
  staleRank: targets.kind === "update" ? rankOf(retrieved, targets.stale) : null,
  both: targets.kind === "contradiction" && rankOf(retrieved, targets.first) !== null && rankOf(retrieved, targets.second) !== null
})

const staleFirst = (o: BeamOutcome) => o.staleRank !== null && (o.targetRank === null || o.staleRank < o.targetRank)

/** Per-ability figures of scored questions. */
export const abilityFigures = (scored: ReadonlyArray<{ readonly ability: string; readonly kind: BeamTargets["kind"]; readonly outcome: BeamOutcome }>) => {
  const out: Record<string, AbilityFigures> = {}
  for (const ability of [...new Set(scored.map((s) => s.ability))].sort()) {
    const these = scored.filter((s) => s.ability === ability)
    const rate = (f: (o: BeamOutcome) => boolean) => mean(these.map((s) => (f(s.outcome) ? 1 : 0)))
    const kind = these[0]!.kind
    out[ability] = {
      questions: these.length,
      target_at_5: rate((o) => o.targetRank !== null && o.targetRank <= 5),
      target_at_10: rate((o) => o.targetRank !== null),
      mrr: mean(these.map((s) => (s.outcome.targetRank === null ? 0 : 1 / s.outcome.targetRank))),
      ...(kind === "update" ? { stale_first_rate: rate(staleFirst) } : {}),
      ...(kind === "contradiction" ? { both_at_10: rate((o) => o.both) } : {})
    }
  }
  return out
}

/** The anchor's ranking: plain BM25 over every message of the chat, BEAM ids best first. */
const anchorRankings = (chat: BeamChat): Map<string, Array<Array<number>>> => {
  const index = new LexicalIndex()
  for (const b of chat.batches) for (const m of b.messages) index.add(String(m.id), m.content)
  return new Map(chat.questions.map((q) => [q.id, index.search(q.question, TOP).map((h) => [Number(h.key)])]))
}

const clip = (s: string) => (s.length <= CLIP ? s : s.slice(0, CLIP) + "…")

interface ChatRun {
  readonly retrieved: Map<string, Array<Array<number>>>
  readonly latencies: Array<number>
  readonly messages: number
  readonly nodes: number
  readonly ingestSeconds: number
  readonly supersessions: Array<Supersession>
  /** The ids of the update questions whose stale node an updated node supersedes. */
  readonly updatesSuperseded: ReadonlySet<string>
}

const replayChat = (chat: BeamChat, options: BeamEvalOptions) =>
  Effect.gen(function* () {
    const retriever = yield* Retriever
    const store = yield* GraphStore
    const sessions = chat.batches.map((batch) => {
      const day = Date.parse(batch.date)
      return {
        id: `beam-${chat.name}/batch_${batch.number}`,
        turns: batch.messages.map((m, i) => ({
          turn: m.id,
          message: { role: m.role, content: m.content, timestamp: new Date(day + i * MINUTE_MS).toISOString(), metadata: { beam_id: m.id } }
        }))
      }
    })
    const lexical = options.lexicalOnly === true ? { lexicalOnly: true } : {}
    const { turns: beamIds, messages, ingestSeconds } = yield* replaySessions(sessions, lexical)
    const graph = yield* store.load({ withEmbeddings: false })
    const entities = new Set([...graph.nodes.values()].filter((n) => n.entityType !== null).map((n) => n.id))
    const retrieved = new Map<string, Array<Array<number>>>()
    const latencies: Array<number> = []
    for (const q of chat.questions) {
      const t0 = performance.now()
      const found: ReadonlyArray<RetrievalResult> = yield* retriever.retrieve(q.question, {
        k: Math.max(TOP, options.k),
        sessionId: "__eval__",
        ...lexical
      })
      latencies.push(performance.now() - t0)
      retrieved.set(q.id, resultTurns(found, beamIds, (id) => entities.has(id)))
    }
    const supersessions: Array<Supersession> = []
    // BEAM turn pairs (superseded, superseding) of every supersession.
    const turnPairs = new Set<string>()
    const turnsOf = (n: MemoryNode) => n.sourceRefs.flatMap((ref) => beamIds.get(refKey(ref.sessionId, ref.messageIndex)) ?? [])
    for (const n of graph.nodes.values()) {
      for (const old of n.supersedes) {
        const o = graph.nodes.get(old)
        if (o === undefined) continue
        supersessions.push({ chat: chat.name, superseded: clip(o.content), by: clip(n.content), at: n.validFrom })
        for (const a of turnsOf(o)) for (const b of turnsOf(n)) turnPairs.add(`${a}>${b}`)
      }
    }
    const reached = (t: BeamTargets) => t.kind === "update" && t.stale.some((a) => t.current.some((b) => turnPairs.has(`${a}>${b}`)))
    const updatesSuperseded = new Set(chat.questions.filter((q) => reached(q.targets)).map((q) => q.id))
    return { retrieved, latencies, messages, nodes: graph.nodes.size, ingestSeconds, supersessions, updatesSuperseded } satisfies ChatRun
  })

/** The length of the chat's longest message. */
const longestMessage = (chat: BeamChat): number => {
  let longest = 0
  for (const b of chat.batches) for (const m of b.messages) longest = Math.max(longest, m.content.length)
  return longest
}

/** An even sample of at most n items, in order. */
const evenSample = <A>(items: ReadonlyArray<A>, n: number): Array<A> =>
  items.length <= n ? [...items] : Array.from({ length: n }, (_, i) => items[Math.floor((i * items.length) / n)]!)

/**
 * Replays BEAM chats (a folder of chat folders, or one chat folder) and reports per ability, beside the
 * plain-BM25 anchor. Zero LLM calls. Needs an Embedder.
 */
export const runBeamEval = Effect.fn("runBeamEval")(function* (dir: string, config: AwhmConfigShape, options: BeamEvalOptions) {
  const embedder = yield* Embedder
  const all = yield* beamChatDirs(dir)
  const dirs = options.limit !== undefined ? all.slice(0, options.limit) : all
  const runs: Array<{ chat: BeamChat; run: ChatRun; anchor: Map<string, Array<Array<number>>> }> = []
  for (const [i, chatDir] of dirs.entries()) {
    const chat = yield* loadBeamChat(chatDir)
    const store = {
      name: "BEAM",
      // Every message of the chat is replayed whole, however long: the replay measures memory, not input limits.
      config: { ...config, maxMessageChars: Math.max(config.maxMessageChars, longestMessage(chat)) },
      embedder,
      retriever: options.retriever
    }
    const run = yield* inReplayStore(store, replayChat(chat, options))
    runs.push({ chat, run, anchor: anchorRankings(chat) })
    options.onProgress?.(i + 1, dirs.length)
  }
  const questions = runs.flatMap(({ chat, run, anchor }) =>
    chat.questions.map((q: BeamQuestion) => ({
      q,
      outcome: scoreBeam(q.targets, run.retrieved.get(q.id) ?? []),
      anchor: scoreBeam(q.targets, anchor.get(q.id) ?? []),
      top: (run.retrieved.get(q.id) ?? []).slice(0, 3),
      all: run.retrieved.get(q.id) ?? []
    }))
  )
  const supersessions = runs.flatMap((r) => r.run.supersessions)
  const report: BeamReport = {
    corpus: corpusName(dir),
    format: "beam",
    embedder: embedder.modelId,
    lexical_only: options.lexicalOnly === true,
    chats: runs.length,
    messages: runs.reduce((n, r) => n + r.run.messages, 0),
    questions: questions.length,
    k: options.k,
    nodes: runs.reduce((n, r) => n + r.run.nodes, 0),
    ingest_seconds: runs.reduce((n, r) => n + r.run.ingestSeconds, 0),
    latency_ms: latencySummary(runs.flatMap((r) => r.run.latencies)),
    abilities: abilityFigures(questions.map((x) => ({ ability: x.q.ability, kind: x.q.targets.kind, outcome: x.outcome }))),
    anchor: abilityFigures(questions.map((x) => ({ ability: x.q.ability, kind: x.q.targets.kind, outcome: x.anchor }))),
    supersessions: {
      count: supersessions.length,
      update_pairs: questions.filter((x) => x.q.targets.kind === "update").length,
      update_pairs_superseded: runs.reduce((n, r) => n + r.run.updatesSuperseded.size, 0),
      sample: evenSample(supersessions, SAMPLE)
    },
    cases: questions.map((x) => ({
      id: x.q.id,
      ability: x.q.ability,
      question: x.q.question,
      target_rank: x.outcome.targetRank,
      stale_rank: x.outcome.staleRank,
      both_at_10: x.outcome.both,
      anchor_target_rank: x.anchor.targetRank,
      anchor_stale_rank: x.anchor.staleRank,
      top_results: x.top,
      ...(x.q.targets.kind === "contradiction"
        ? { statement_ranks: [rankOf(x.all, x.q.targets.first, Infinity), rankOf(x.all, x.q.targets.second, Infinity)] as const }
        : {})
    }))
  }
  return { report, summary: summarizeBeam(report) }
})

const f3 = (x: number | undefined) => (x === undefined ? "    -" : x.toFixed(3))

/** The human summary: one line per ability, awhm beside the anchor. */
export const summarizeBeam = (r: BeamReport): string => {
  const names = Object.keys(r.abilities)
  const width = Math.max(8, ...names.map((n) => n.length))
  const row = (f: AbilityFigures) =>
    `@5 ${f3(f.target_at_5)}  @10 ${f3(f.target_at_10)}  MRR ${f3(f.mrr)}  stale-first ${f3(f.stale_first_rate)}  both@10 ${f3(f.both_at_10)}`
  return [
    `AWHM BEAM replay: ${r.corpus} (embedder ${r.embedder}${r.lexical_only ? ", lexical-only queries" : ""})`,
    `  chats ${r.chats}, messages ${r.messages}, questions ${r.questions}, nodes ${r.nodes}, ingest ${r.ingest_seconds.toFixed(1)}s, query p50/p95 ${r.latency_ms.p50.toFixed(1)} / ${r.latency_ms.p95.toFixed(1)} ms`,
    `  Stage 1 supersessions: ${r.supersessions.count}; knowledge-update pairs it superseded: ${r.supersessions.update_pairs_superseded} of ${r.supersessions.update_pairs}`,
    "  By ability (awhm, then plain BM25 over the raw turns):",
    ...names.flatMap((n) => [
      `    ${n.padEnd(width)}  n ${String(r.abilities[n]!.questions).padStart(3)}  awhm  ${row(r.abilities[n]!)}`,
      `    ${"".padEnd(width)}         bm25  ${row(r.anchor[n]!)}`
    ])
  ].join("\n")
}
