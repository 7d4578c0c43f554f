import { Effect, Schema } from "effect"
import { parseTimestamp } from "../domain/time.js"
import {
  badRecord,
  type Corpus,
  corpusName,
  type CorpusMessage,
  type CorpusQuestion,
  type CorpusSession,
  decodeCorpus,
  IdLike,
  readJsonFile,
  toRole
} from "./corpus.js"

// One LongMemEval instance (extra fields such as has_answer or answer_session_ids are ignored).
const Turn = Schema.Struct({ role: Schema.String, content: Schema.String }).annotations({
  description: "a turn object {role, content}"
})
const Answer = Schema.Union(IdLike, Schema.Array(IdLike), Schema.Null)
const Instance = Schema.Struct({
  question_id: Schema.optional(IdLike),
  question_type: Schema.optional(Schema.NullOr(Schema.String)),
  question: Schema.optional(Schema.String),
  question_date: Schema.optional(Schema.NullOr(Schema.String)),
  answer: Schema.optional(Answer),
  haystack_session_ids: Schema.optional(Schema.NullOr(Schema.Array(IdLike))),
  haystack_dates: Schema.optional(Schema.NullOr(Schema.Array(Schema.String))),
  haystack_sessions: Schema.optional(Schema.NullOr(Schema.Array(Schema.Array(Turn))))
}).annotations({ description: "an instance object {question_id, question, answer, haystack_sessions, …}" })
const Instances = Schema.Array(Schema.Unknown).annotations({ description: "a list of instances" })

const LME_DATE = /^(\d{4})\/(\d{1,2})\/(\d{1,2})(?:\s*\([A-Za-z]+\))?(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?)?$/

/**
 * A LongMemEval date ("2023/05/20 (Sat) 02:21", taken as UTC) or an ISO one, as canonical UTC ISO;
 * null when it is neither.
 */
export const parseLongMemEvalDate = (value: string): string | null => {
  const m = LME_DATE.exec(value.trim())
  if (m === null) return parseTimestamp(value)
  const [, y, mo, d, h, mi, s] = m
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0))
  const date = new Date(ms)
  // Date.UTC rolls 2023/02/30 over to March: refuse instead.
  return Number.isNaN(ms) || date.getUTCDate() !== Number(d) || date.getUTCMonth() !== Number(mo) - 1
    ? null
    : date.toISOString()
}

const dateOf = (file: string, where: string, value: string | null | undefined) => {
  if (value === null || value === undefined || value.trim() === "") return Effect.succeed(null)
  const iso = parseLongMemEvalDate(value)
  return iso === null ? Effect.fail(badRecord(file, where, `not a date: ${JSON.stringify(value)}`)) : Effect.succeed(iso)
}

// A question dated to the minute is asked at the end of that minute, so a session logged in the same
// minute (just before the question) is part of what it may know.
const questionMoment = (file: string, where: string, value: string | null | undefined) =>
  Effect.map(dateOf(file, where, value), (iso) =>
    iso !== null && value !== null && value !== undefined && LME_DATE.test(value.trim()) && /\s\d{1,2}:\d{2}$/.test(value.trim())
      ? new Date(Date.parse(iso) + 59_999).toISOString()
      : iso
  )

/** Message i of a session dated `date`: one millisecond apart, so the replayed order is the logged order. */
const messageTime = (date: string | null, i: number): string | null =>
  date === null ? null : new Date(Date.parse(date) + i).toISOString()

/**
 * Loads LongMemEval (a list of instances, or `{"data"|"instances": [...]}`). Each instance's haystack
 * becomes its own sessions `"<question_id>/<haystack id>"` (so the replay isolates it); `haystack_dates`
 * are replayed as message timestamps (sessions in date order) and `question_date` becomes the question's
 * as_of. `limit` keeps the first N instances.
 */
export const loadLongMemEval = Effect.fn("loadLongMemEval")(function* (file: string, limit?: number) {
  const raw = yield* readJsonFile(file)
  let listKey: string | null = null
  let list: unknown = raw
  if (typeof raw === "object" && raw !== null && !Array.isArray(raw)) {
    listKey = "data" in raw ? "data" : "instances" in raw ? "instances" : null
    if (listKey === null) {
      return yield* badRecord(file, "top level", "expected a list of instances, or an object with \"data\" or \"instances\"")
    }
    list = (raw as Record<string, unknown>)[listKey]
  }
  const items = yield* decodeCorpus(Instances, file, list, listKey === null ? [] : [listKey])
  const chosen = limit !== undefined && limit > 0 ? items.slice(0, limit) : items
  const sessions: Array<CorpusSession> = []
  const questions: Array<CorpusQuestion> = []
  for (const [i, item] of chosen.entries()) {
    const at = listKey === null ? `[${i}]` : `${listKey}[${i}]`
    const inst = yield* decodeCorpus(Instance, file, item, listKey === null ? [i] : [listKey, i])
    const qid = String(inst.question_id ?? i)
    const ids = inst.haystack_session_ids ?? []
    const dates = inst.haystack_dates ?? []
    const dated: Array<{ readonly session: CorpusSession; readonly date: string | null }> = []
    for (const [j, turns] of (inst.haystack_sessions ?? []).entries()) {
      const date = yield* dateOf(file, `${at}.haystack_dates[${j}]`, dates[j])
      const messages: Array<CorpusMessage> = turns.map((t, n) => ({
        role: toRole(t.role),
        content: t.content,
        timestamp: messageTime(date, n)
      }))
      dated.push({ session: { id: `${qid}/${j < ids.length ? String(ids[j]) : j}`, messages }, date })
    }
    // Replay in time order (a stable sort: undated sessions keep their place relative to each other).
    if (dated.every((d) => d.date !== null)) dated.sort((a, b) => (a.date! < b.date! ? -1 : a.date! > b.date! ? 1 : 0))
    sessions.push(...dated.map((d) => d.session))
    const answers = inst.answer === null || inst.answer === undefined ? [] : Array.isArray(inst.answer) ? inst.answer : [inst.answer]
    questions.push({
      id: qid,
      question: inst.question ?? "",
      expected: answers.map(String).filter((a) => a !== ""),
      forbidden: [],
      asOf: yield* questionMoment(file, `${at}.question_date`, inst.question_date),
      category: inst.question_type ?? null
    })
  }
  return { name: corpusName(file), sessions, questions } satisfies Corpus
})
