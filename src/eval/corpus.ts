import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Either, ParseResult, Schema } from "effect"
import type { Role } from "../domain/Message.js"
import { parseTimestamp } from "../domain/time.js"
import { CorpusError } from "./errors.js"

/** One message to replay; `timestamp` (canonical UTC ISO) replays a historical time, null means "now". */
export interface CorpusMessage {
  readonly role: Role
  readonly content: string
  readonly timestamp: string | null
}

export interface CorpusSession {
  readonly id: string
  readonly messages: ReadonlyArray<CorpusMessage>
}

/** A question with the substrings that count as a hit (expected) or a contradiction (forbidden). */
export interface CorpusQuestion {
  readonly id: string
  readonly question: string
  readonly expected: ReadonlyArray<string>
  readonly forbidden: ReadonlyArray<string>
  /** Canonical UTC ISO: ask what was valid at that moment. */
  readonly asOf: string | null
  readonly category: string | null
}

/** Sessions to replay and questions to ask, whatever the source format. */
export interface Corpus {
  readonly name: string
  readonly sessions: ReadonlyArray<CorpusSession>
  readonly questions: ReadonlyArray<CorpusQuestion>
}

/** The reference's role mapping: the four roles as they are, "assist…" → assistant, anything else → user. */
export const toRole = (value: string): Role => {
  const v = value.trim().toLowerCase()
  if (v === "user" || v === "assistant" || v === "tool_call" || v === "tool_result") return v
  return v.startsWith("assist") ? "assistant" : "user"
}

/** The corpus name shown in reports: the file name without its extension (as the reference). */
export const corpusName = (file: string): string => path.basename(file, path.extname(file))

/** Reads and parses a JSON file; an unreadable or unparsable file is one CorpusError naming it. */
export const readJsonFile = (file: string): Effect.Effect<unknown, CorpusError> =>
  Effect.try({
    try: () => fs.readFileSync(file, "utf8"),
    catch: (e) =>
      new CorpusError({
        path: file,
        message: `cannot read corpus ${file}: ${(e as NodeJS.ErrnoException).code ?? (e instanceof Error ? e.message : String(e))}`
      })
  }).pipe(
    Effect.flatMap((text) =>
      Effect.try({
        try: () => JSON.parse(text) as unknown,
        catch: (e) =>
          new CorpusError({
            path: file,
            message: `corpus ${file} is not valid JSON (${e instanceof Error ? e.message : String(e)})`
          })
      })
    )
  )

const formatPath = (p: ReadonlyArray<PropertyKey>): string =>
  p.map((k, i) => (typeof k === "number" ? `[${k}]` : i === 0 ? String(k) : `.${String(k)}`)).join("")

const clip = (s: string, n = 160) => (s.length <= n ? s : s.slice(0, n) + "…")

/** The error for a bad record: the file, where in it (e.g. `questions[2].question`) and what is wrong. */
export const badRecord = (file: string, where: string, problem: string) =>
  new CorpusError({ path: file, message: `malformed corpus ${file}: ${where || "top level"}: ${clip(problem)}` })

/** Decodes `data` with `schema`; the first problem becomes a CorpusError naming the file and the record. */
export const decodeCorpus = <A, I>(schema: Schema.Schema<A, I>, file: string, data: unknown, prefix: ReadonlyArray<PropertyKey> = []) => {
  const result = Schema.decodeUnknownEither(schema, { errors: "first", onExcessProperty: "ignore" })(data)
  if (Either.isRight(result)) return Effect.succeed(result.right)
  const issue = ParseResult.ArrayFormatter.formatErrorSync(result.left)[0]
  return Effect.fail(badRecord(file, formatPath([...prefix, ...(issue?.path ?? [])]), issue?.message ?? "invalid"))
}

/** Ids may be strings or numbers in the wild; both become strings. */
export const IdLike = Schema.Union(Schema.String, Schema.Number)

// Native format, as the reference's load_corpus (ids default to the index; expected/forbidden optional).
// `timestamp` on a message is an addition: replay a historical time.
const NativeMessage = Schema.Struct({
  role: Schema.optional(Schema.String),
  content: Schema.String,
  timestamp: Schema.optional(Schema.NullOr(Schema.String))
}).annotations({ description: "a message object {role, content}" })
const NativeSession = Schema.Struct({
  id: Schema.optional(IdLike),
  messages: Schema.optional(Schema.Array(NativeMessage).annotations({ description: "a list of messages" }))
}).annotations({ description: "a session object {id, messages}" })
// One string is taken as a list of one.
const Strings = Schema.optional(Schema.NullOr(Schema.Union(IdLike, Schema.Array(IdLike))))
const NativeQuestion = Schema.Struct({
  id: Schema.optional(IdLike),
  question: Schema.String,
  expected: Strings,
  forbidden: Strings,
  as_of: Schema.optional(Schema.NullOr(Schema.String)),
  category: Schema.optional(Schema.NullOr(IdLike))
}).annotations({ description: "a question object {id, question, expected, forbidden, as_of, category}" })
const NativeCorpus = Schema.Struct({
  sessions: Schema.optional(Schema.Array(NativeSession).annotations({ description: "a list of sessions" })),
  questions: Schema.optional(Schema.Array(NativeQuestion).annotations({ description: "a list of questions" }))
}).annotations({ description: "an object {sessions, questions}" })

/** A timestamp field of a corpus record, canonicalised, or the error naming the record. */
export const corpusTimestamp = (file: string, where: string, value: string | null | undefined) => {
  if (value === null || value === undefined) return Effect.succeed(null)
  const iso = parseTimestamp(value)
  return iso === null ? Effect.fail(badRecord(file, where, `not a date: ${JSON.stringify(value)}`)) : Effect.succeed(iso)
}

const list = (v: string | number | ReadonlyArray<string | number> | null | undefined): Array<string> =>
  v === null || v === undefined ? [] : Array.isArray(v) ? v.map(String) : [String(v)]

/** Loads the native corpus format `{"sessions":[{"id","messages":[{"role","content"}]}],"questions":[…]}`. */
export const loadNativeCorpus = Effect.fn("loadNativeCorpus")(function* (file: string) {
  const raw = yield* readJsonFile(file)
  const data = yield* decodeCorpus(NativeCorpus, file, raw)
  const sessions: Array<CorpusSession> = []
  for (const [i, s] of (data.sessions ?? []).entries()) {
    const messages: Array<CorpusMessage> = []
    for (const [j, m] of (s.messages ?? []).entries()) {
      const timestamp = yield* corpusTimestamp(file, `sessions[${i}].messages[${j}].timestamp`, m.timestamp)
      messages.push({ role: toRole(m.role ?? "user"), content: m.content, timestamp })
    }
    sessions.push({ id: String(s.id ?? i), messages })
  }
  const questions: Array<CorpusQuestion> = []
  for (const [i, q] of (data.questions ?? []).entries()) {
    const asOf = yield* corpusTimestamp(file, `questions[${i}].as_of`, q.as_of)
    questions.push({
      id: String(q.id ?? i),
      question: q.question,
      expected: list(q.expected),
      forbidden: list(q.forbidden),
      asOf,
      category: q.category === null || q.category === undefined ? null : String(q.category)
    })
  }
  return { name: corpusName(file), sessions, questions } satisfies Corpus
})
