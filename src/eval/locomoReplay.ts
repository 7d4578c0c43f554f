// LoCoMo evidence recall (the data set README's protocol): each conversation is replayed into a fresh
// data directory (log, consolidate, end each session), then every question of categories 1-4 is asked;
// results map to dialogue ids through their provenance (source refs -> the message's metadata.dia_id).
import * as fs from "node:fs"
import { Effect, Schema } from "effect"
import type { AwhmConfigShape } from "../domain/Config.js"
import { InvalidInput } from "../domain/errors.js"
import type { RetrievalResult } from "../domain/Result.js"
import type { RetrieverOptions } from "../layers/retriever/service.js"
import type { EmbedderShape } from "../services/Embedder.js"
import { GraphStore } from "../services/GraphStore.js"
import { Retriever } from "../services/Retriever.js"
import { inReplayStore, replaySessions, resultTurns } from "./replayStore.js"
import { monthIndex } from "../text/months.js"

export interface LocomoTurn {
  readonly diaId: string
  readonly speaker: string
  readonly text: string
  /** The BLIP caption of a shared image, if any. */
  readonly caption: string | null
}

export interface LocomoSession {
  /** "<sample id>/session_<n>" */
  readonly id: string
  /** The session's date as canonical UTC ISO (every message of the session carries it). */
  readonly timestamp: string
  readonly turns: ReadonlyArray<LocomoTurn>
}

export interface LocomoQuestion {
  /** "locomo_<conversation index>_qa<question index>", the audit file's key. */
  readonly id: string
  readonly question: string
  readonly category: number
  readonly evidence: ReadonlyArray<string>
}

export interface LocomoConversation {
  readonly sampleId: string
  readonly sessions: ReadonlyArray<LocomoSession>
  /** Questions of categories 1-4 that cite evidence (category 5 is adversarial: no answer to find). */
  readonly questions: ReadonlyArray<LocomoQuestion>
}


/** "1:56 pm on 8 May, 2023" -> "2023-05-08T13:56:00.000Z" (null when it is not of that form). */
export const parseLocomoDate = (text: string): string | null => {
  const m = /^\s*(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$/i.exec(text)
  if (m === null) return null
  const month = monthIndex(m[5]!)
  if (month < 0) return null
  let hour = Number(m[1]) % 12
  if (m[3]!.toLowerCase() === "pm") hour += 12
  const d = new Date(Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2])))
  return Number.isNaN(d.getTime()) ? null : d.toISOString()
}

/** The text a turn is logged with: "Speaker: text", plus the shared image's caption (as the README's anchor). */
export const turnContent = (turn: LocomoTurn): string =>
  `${turn.speaker}: ${turn.text}${turn.caption !== null ? ` [shares ${turn.caption}]` : ""}`

const Turn = Schema.Struct({
  speaker: Schema.String,
  dia_id: Schema.String,
  text: Schema.String,
  blip_caption: Schema.optional(Schema.NullOr(Schema.String))
})
const Qa = Schema.Struct({
  question: Schema.String,
  category: Schema.Number,
  evidence: Schema.optional(Schema.Array(Schema.String))
})
const Sample = Schema.Struct({
  sample_id: Schema.optional(Schema.String),
  conversation: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  qa: Schema.Array(Qa)
})
const decodeSample = Schema.decodeUnknownEither(Sample)
const decodeTurns = Schema.decodeUnknownEither(Schema.Array(Turn))

// Evidence ids are sometimes written "D8:6; D9:17" in one string.
const splitEvidence = (ids: ReadonlyArray<string>): Array<string> =>
  ids.flatMap((e) => e.split(/[;,]\s*/)).map((e) => e.trim()).filter((e) => e !== "")

/** Reads locomo10.json (the file is only read, never copied). */
export const loadLocomo = (file: string): Effect.Effect<Array<LocomoConversation>, InvalidInput> =>
  Effect.gen(function* () {
    const bad = (what: string) => new InvalidInput({ message: `${file}: ${what}` })
    const data = yield* Effect.try({
      try: () => JSON.parse(fs.readFileSync(file, "utf8")) as unknown,
      catch: (e) => bad(`cannot be read as JSON (${e instanceof Error ? e.message.split("\n")[0] : "error"})`)
    })
    if (!Array.isArray(data)) return yield* bad("expected a list of conversations")
    const out: Array<LocomoConversation> = []
    for (const [ci, raw] of data.entries()) {
      const sample = decodeSample(raw)
      if (sample._tag === "Left") return yield* bad(`conversation ${ci} is not in the LoCoMo format`)
      const conv = sample.right.conversation
      const sampleId = sample.right.sample_id ?? `conv-${ci}`
      const sessions: Array<LocomoSession> = []
      for (let n = 1; conv[`session_${n}`] !== undefined; n++) {
        const turns = decodeTurns(conv[`session_${n}`])
        if (turns._tag === "Left") return yield* bad(`conversation ${ci} session ${n} has malformed turns`)
        const date = conv[`session_${n}_date_time`]
        const timestamp = typeof date === "string" ? parseLocomoDate(date) : null
        if (timestamp === null) return yield* bad(`conversation ${ci} session ${n} has no readable date`)
        sessions.push({
          id: `${sampleId}/session_${n}`,
          timestamp,
          turns: turns.right.map((t) => ({
            diaId: t.dia_id,
            speaker: t.speaker,
            text: t.text,
            caption: t.blip_caption !== undefined && t.blip_caption !== null && t.blip_caption !== "" ? t.blip_caption : null
          }))
        })
      }
      const questions = sample.right.qa.flatMap((q, qi) => {
        const evidence = splitEvidence(q.evidence ?? [])
        return q.category >= 1 && q.category <= 4 && evidence.length > 0
          ? [{ id: `locomo_${ci}_qa${qi}`, question: q.question, category: q.category, evidence }]
          : []
      })
      out.push({ sampleId, sessions, questions })
    }
    return out
  })

/** Corrected evidence by question id from locomo_audit_errors.json (WRONG_CITATION entries). */
export const loadLocomoAudit = (file: string): Map<string, ReadonlyArray<string>> => {
  const out = new Map<string, ReadonlyArray<string>>()
  try {
    const data = JSON.parse(fs.readFileSync(file, "utf8")) as unknown
    if (!Array.isArray(data)) return out
    for (const e of data as Array<Record<string, unknown>>) {
      if (typeof e.question_id === "string" && Array.isArray(e.correct_evidence)) {
        out.set(e.question_id, splitEvidence(e.correct_evidence.filter((x): x is string => typeof x === "string")))
      }
    }
  } catch {
    // No audit file: original evidence only.
  }
  return out
}

/** One question's outcome: the dialogue ids of each returned result, best first. */
export interface LocomoCase {
  readonly id: string
  readonly category: number
  readonly evidence: ReadonlyArray<string>
  readonly retrieved: ReadonlyArray<ReadonlyArray<string>>
  readonly latencyMs: number
}

export interface LocomoReplayOptions {
  /** The configuration the stores start from (dataDir is replaced by a temp dir per conversation). */
  readonly config: AwhmConfigShape
  readonly embedder: EmbedderShape
  /** Results asked per question (default 10). */
  readonly k?: number
  /** Run Stage 1 consolidation after each session (default true). */
  readonly consolidate?: boolean
  /** Ask questions lexical-only. */
  readonly lexicalOnly?: boolean
  readonly onProgress?: (conversationsDone: number, total: number) => void
  /** Passed to the retriever (ablations). */
  readonly retriever?: RetrieverOptions
}

export interface LocomoReplay {
  readonly cases: ReadonlyArray<LocomoCase>
  readonly messages: number
  readonly nodes: number
  readonly ingestSeconds: number
  /** Mean number of dialogue ids a returned result stands for. */
  readonly idsPerResult: number
}

const replayConversation = (conv: LocomoConversation, options: LocomoReplayOptions) =>
  Effect.gen(function* () {
    const retriever = yield* Retriever
    const store = yield* GraphStore
    const sessions = conv.sessions.map((session) => ({
      id: session.id,
      turns: session.turns.map((turn) => ({
        turn: turn.diaId,
        message: {
          role: "user" as const,
          content: turnContent(turn),
          timestamp: session.timestamp,
          metadata: { dia_id: turn.diaId, speaker: turn.speaker }
        }
      }))
    }))
    const { turns: diaIds, messages, ingestSeconds } = yield* replaySessions(sessions, options)
    const nodes = (yield* store.counts).nodes
    const cases: Array<LocomoCase> = []
    let ids = 0
    let results = 0
    for (const q of conv.questions) {
      const t0 = performance.now()
      const found: ReadonlyArray<RetrievalResult> = yield* retriever.retrieve(q.question, {
        k: options.k ?? 10,
        sessionId: "__eval__",
        ...(options.lexicalOnly === true ? { lexicalOnly: true } : {})
      })
      const latencyMs = performance.now() - t0
      const entities = new Set(
        (yield* store.getNodes(found.flatMap((r) => (r.nodeId === undefined ? [] : [r.nodeId]))))
          .filter((n) => n.entityType !== null)
          .map((n) => n.id)
      )
      const retrieved = resultTurns(found, diaIds, (id) => entities.has(id))
      for (const r of retrieved) ids += r.length
      results += retrieved.length
      cases.push({ id: q.id, category: q.category, evidence: q.evidence, retrieved, latencyMs })
    }
    return { cases, messages, nodes, ingestSeconds, ids, results }
  })

/** Replays every conversation into its own temporary store and asks its questions. */
export const replayLocomo = (conversations: ReadonlyArray<LocomoConversation>, options: LocomoReplayOptions) =>
  Effect.gen(function* () {
    const cases: Array<LocomoCase> = []
    let messages = 0
    let nodes = 0
    let ingestSeconds = 0
    let ids = 0
    let results = 0
    const store = { name: "LoCoMo", config: options.config, embedder: options.embedder, retriever: options.retriever }
    for (const [i, conv] of conversations.entries()) {
      const r = yield* inReplayStore(store, replayConversation(conv, options))
      cases.push(...r.cases)
      messages += r.messages
      nodes += r.nodes
      ingestSeconds += r.ingestSeconds
      ids += r.ids
      results += r.results
      options.onProgress?.(i + 1, conversations.length)
    }
    return { cases, messages, nodes, ingestSeconds, idsPerResult: results === 0 ? 0 : ids / results } satisfies LocomoReplay
  })

export interface RecallFigures {
  readonly questions: number
  readonly recallAnyAt5: number
  readonly recallAnyAt10: number
  readonly recallAllAt10: number
}

const figures = (cases: ReadonlyArray<LocomoCase>, evidenceOf: (c: LocomoCase) => ReadonlyArray<string>): RecallFigures => {
  const hitAny = (c: LocomoCase, k: number) => {
    const top = new Set(c.retrieved.slice(0, k).flat())
    return evidenceOf(c).some((e) => top.has(e))
  }
  const hitAll = (c: LocomoCase, k: number) => {
    const top = new Set(c.retrieved.slice(0, k).flat())
    return evidenceOf(c).every((e) => top.has(e))
  }
  const rate = (f: (c: LocomoCase) => boolean) => (cases.length === 0 ? 0 : cases.filter(f).length / cases.length)
  return {
    questions: cases.length,
    recallAnyAt5: rate((c) => hitAny(c, 5)),
    recallAnyAt10: rate((c) => hitAny(c, 10)),
    recallAllAt10: rate((c) => hitAll(c, 10))
  }
}

/** LoCoMo's category names (README numbering). */
export const LOCOMO_CATEGORIES: Readonly<Record<number, string>> = {
  1: "multi-hop",
  2: "temporal",
  3: "open-domain",
  4: "single-hop"
}

/** Recall overall and per category; with an audit map, the corrected evidence replaces the cited one. */
export const locomoRecall = (cases: ReadonlyArray<LocomoCase>, audit?: ReadonlyMap<string, ReadonlyArray<string>>) => {
  const evidenceOf = (c: LocomoCase) => audit?.get(c.id) ?? c.evidence
  const byCategory: Record<string, RecallFigures> = {}
  for (const cat of [1, 2, 3, 4]) byCategory[cat] = figures(cases.filter((c) => c.category === cat), evidenceOf)
  return { overall: figures(cases, evidenceOf), byCategory }
}
