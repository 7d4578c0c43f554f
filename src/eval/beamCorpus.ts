// The BEAM chats format (the data README, shared/data/beam/README.md): a folder per chat holding chat.json (batches of
// turns of messages with BEAM ids, one date per batch) and probing_questions.json (questions per ability,
// each citing the BEAM ids of its source messages). Read in place, never copied.
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Schema } from "effect"
import type { Role } from "../domain/Message.js"
import { monthIndex } from "../text/months.js"
import { decodeCorpus, readJsonFile } from "./corpus.js"
import { CorpusError } from "./errors.js"

export interface BeamMessage {
  /** The BEAM id (0..N−1 over the whole chat, in order). */
  readonly id: number
  readonly role: Role
  /** The text, without the generator's trailing plan marker (" ->-> 1,2"). */
  readonly content: string
}

export interface BeamBatch {
  readonly number: number
  /** Midnight UTC of the batch's date (canonical ISO). */
  readonly date: string
  readonly messages: ReadonlyArray<BeamMessage>
}

/** Which source turns a question is about, by ability. */
export type BeamTargets =
  | { readonly kind: "update"; readonly stale: ReadonlyArray<number>; readonly current: ReadonlyArray<number> }
  | { readonly kind: "contradiction"; readonly first: ReadonlyArray<number>; readonly second: ReadonlyArray<number> }
  | { readonly kind: "any"; readonly ids: ReadonlyArray<number> }

export interface BeamQuestion {
  /** "<chat>/<ability>/<n>" */
  readonly id: string
  readonly ability: string
  readonly question: string
  readonly targets: BeamTargets
}

export interface BeamChat {
  /** The chat folder's name ("1" … "35"). */
  readonly name: string
  readonly batches: ReadonlyArray<BeamBatch>
  /** Usable questions: with source ids, and two distinct sides where the ability has two. */
  readonly questions: ReadonlyArray<BeamQuestion>
}

const Message = Schema.Struct({
  role: Schema.Literal("user", "assistant"),
  id: Schema.Number,
  content: Schema.String,
  time_anchor: Schema.optional(Schema.NullOr(Schema.String))
})
const Batch = Schema.Struct({
  batch_number: Schema.Number,
  turns: Schema.Array(Schema.Array(Message))
})
const Chat = Schema.Array(Batch)
const Question = Schema.Struct({
  question: Schema.String,
  source_chat_ids: Schema.optional(Schema.Unknown)
})
const Questions = Schema.Record({ key: Schema.String, value: Schema.Array(Question) })

const PLAN_MARKER = /\s*->->\s*[\d,\s]+$/

/** "January-05-2024" → "2024-01-05T00:00:00.000Z" (null when it is not of that form). */
export const parseTimeAnchor = (text: string): string | null => {
  const m = /^([A-Za-z]+)-(\d{1,2})-(\d{4})$/.exec(text.trim())
  const month = m === null ? -1 : monthIndex(m[1]!)
  if (m === null || month < 0) return null
  const d = new Date(Date.UTC(Number(m[3]), month, Number(m[2])))
  return Number.isNaN(d.getTime()) ? null : d.toISOString()
}

const ids = (value: unknown): Array<number> =>
  Array.isArray(value) ? value.flatMap(ids) : typeof value === "number" ? [value] : value !== null && typeof value === "object" ? Object.values(value).flatMap(ids) : []

const sameSet = (a: ReadonlyArray<number>, b: ReadonlyArray<number>) => {
  const s = new Set(a)
  return s.size === new Set(b).size && b.every((x) => s.has(x))
}

/** The targets of one question, or null when it cannot be scored (no ids, or the same ids on both sides). */
export const beamTargets = (ability: string, source: unknown): BeamTargets | null => {
  const side = (key: string) => (source !== null && typeof source === "object" ? ids((source as Record<string, unknown>)[key]) : [])
  if (ability === "knowledge_update") {
    const stale = side("original_info")
    const current = side("updated_info")
    return stale.length === 0 || current.length === 0 || sameSet(stale, current) ? null : { kind: "update", stale, current }
  }
  if (ability === "contradiction_resolution") {
    const first = side("first_statement")
    const second = side("second_statement")
    return first.length === 0 || second.length === 0 || sameSet(first, second) ? null : { kind: "contradiction", first, second }
  }
  if (ability === "temporal_reasoning") {
    const a = side("first_event")
    const b = side("second_event")
    if (a.length === 0 || b.length === 0 || sameSet(a, b)) return null
  }
  const all = [...new Set(ids(source))]
  return all.length === 0 ? null : { kind: "any", ids: all }
}

/** One chat folder (chat.json and probing_questions.json, or probing_questions/probing_questions.json). */
export const loadBeamChat = (dir: string) =>
  Effect.gen(function* () {
    const chatFile = path.join(dir, "chat.json")
    const chat = yield* decodeCorpus(Chat, chatFile, yield* readJsonFile(chatFile))
    const nested = path.join(dir, "probing_questions", "probing_questions.json")
    const questionFile = fs.existsSync(nested) ? nested : path.join(dir, "probing_questions.json")
    const probing = yield* decodeCorpus(Questions, questionFile, yield* readJsonFile(questionFile))
    const batches: Array<BeamBatch> = []
    let date: string | null = null
    for (const [bi, b] of chat.entries()) {
      const messages = b.turns.flat()
      const anchor = messages.find((m) => typeof m.time_anchor === "string")?.time_anchor
      const at: string | null = typeof anchor === "string" ? parseTimeAnchor(anchor) : date
      if (at === null) return yield* new CorpusError({ path: chatFile, message: `malformed BEAM chat ${chatFile}: batch ${bi} has no readable time_anchor` })
      date = at
      batches.push({
        number: b.batch_number,
        date: at,
        messages: messages.map((m) => ({ id: m.id, role: m.role, content: m.content.replace(PLAN_MARKER, "") }))
      })
    }
    const name = path.basename(dir)
    const questions: Array<BeamQuestion> = []
    for (const ability of Object.keys(probing).sort()) {
      probing[ability]!.forEach((q, i) => {
        const targets = beamTargets(ability, q.source_chat_ids)
        if (targets !== null) questions.push({ id: `${name}/${ability}/${i}`, ability, question: q.question, targets })
      })
    }
    return { name, batches, questions } satisfies BeamChat
  })

/** The chat folders under `dir` (numerically ordered), or `dir` itself when it is one chat. */
export const beamChatDirs = (dir: string): Effect.Effect<Array<string>, CorpusError> =>
  Effect.try({
    try: () => {
      if (fs.existsSync(path.join(dir, "chat.json"))) return [dir]
      const subdirs = fs
        .readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isDirectory() && fs.existsSync(path.join(dir, e.name, "chat.json")))
        .map((e) => e.name)
        .sort((a, b) => Number(a) - Number(b) || (a < b ? -1 : a > b ? 1 : 0))
      return subdirs.map((s) => path.join(dir, s))
    },
    catch: (e) =>
      new CorpusError({ path: dir, message: `cannot read BEAM folder ${dir}: ${(e as NodeJS.ErrnoException).code ?? String(e)}` })
  }).pipe(
    Effect.filterOrFail(
      (dirs) => dirs.length > 0,
      () => new CorpusError({ path: dir, message: `${dir} holds no BEAM chat (a folder with chat.json, or folders of them)` })
    )
  )
