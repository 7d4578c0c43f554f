import { Either, JSONSchema, ParseResult, Schema } from "effect"
import { NodeType } from "./Node.js"

// The Stage 2 contract: what the LLM is asked for (JSON Schema generated from these Schemas) and the one
// decoder that checks every answer, whatever client produced it.

/** Proposals whose content is longer than this are dropped (a memory is one statement). */
export const MAX_CONTENT_CHARS = 1_000
/** Proposals past this many in one chunk's answer are trimmed. */
export const MAX_PROPOSALS_PER_CHUNK = 200
/** A longer slot is ignored (the rules pick the key): a slot is "a few lowercase words". */
export const MAX_SLOT_CHARS = 100
/** A text answer longer than this is rejected before parsing. */
export const MAX_ANSWER_CHARS = 2_000_000

const isNodeType = (s: string): s is NodeType => (NodeType.literals as ReadonlyArray<string>).includes(s)

/** Any string decodes; a type the model made up becomes "semantic" (as the reference). */
const MemoryType = Schema.transform(Schema.String, NodeType, {
  strict: true,
  decode: (s) => (isNodeType(s) ? s : "semantic"),
  encode: (t) => t
}).annotations({
  jsonSchema: { enum: ["semantic", "procedural", "episodic"] },
  description: "semantic for facts, procedural for preferences and standing rules, episodic for events and outcomes"
})

const NullableString = (description: string) =>
  Schema.NullOr(Schema.String).annotations({ description })

/** One proposed memory, with the field names the model sees. */
export const Stage2Memory = Schema.Struct({
  content: Schema.String.annotations({
    description: "One self-contained statement in the third person, keeping qualifiers (time, negation, scope)"
  }),
  type: MemoryType,
  slot: NullableString("For a fact with a single current value: the slot in a few lowercase words, else null"),
  valid_from: NullableString("ISO 8601 date when the transcript says when it became true, else null"),
  valid_to: NullableString("ISO 8601 date when the transcript says when it stops being true, else null"),
  confidence: Schema.Number.annotations({ description: "0 to 1: how sure you are it is correct and durable" }),
  sources: Schema.Array(Schema.Int).annotations({
    description: "Numbers of the transcript messages it comes from (at least one)"
  }),
  supersedes_previous: Schema.Boolean.annotations({
    description: "True only when the message explicitly corrects earlier information"
  })
})
export type Stage2Memory = typeof Stage2Memory.Type

/** What one Stage 2 call returns: the memories the rules missed in one chunk of transcript. */
export class Stage2ProposalBatch extends Schema.Class<Stage2ProposalBatch>("Stage2ProposalBatch")(
  { memories: Schema.Array(Stage2Memory) },
  { description: "Long-term memories proposed from a transcript" }
) {}

/**
 * The strict JSON Schema sent to the model: every field required, no additional properties, inlined
 * (no $ref, no $schema) so both the Claude Code CLI and the Messages API accept it.
 */
export const STAGE2_JSON_SCHEMA: object = JSONSchema.fromAST(Stage2ProposalBatch.ast, {
  definitions: {},
  topLevelReferenceStrategy: "skip"
})

/** A decoded answer: the valid proposals, and why anything was trimmed or dropped (no content). */
export interface DecodedAnswer {
  readonly batch: Stage2ProposalBatch
  readonly notes: ReadonlyArray<string>
}

// Reference-compatible: prose around the object is tolerated by taking the first "{" to the last "}".
const OBJECT_BLOCK = /\{[\s\S]*\}/

const parseText = (text: string): Either.Either<unknown, string> => {
  if (text.length > MAX_ANSWER_CHARS) return Either.left(`answer too large (${text.length} characters)`)
  try {
    return Either.right(JSON.parse(text))
  } catch {
    const block = OBJECT_BLOCK.exec(text)
    if (block === null) return Either.left("answer is not JSON")
    try {
      return Either.right(JSON.parse(block[0]))
    } catch {
      return Either.left("answer is not JSON")
    }
  }
}

const Envelope = Schema.Struct({ memories: Schema.Array(Schema.Unknown) })
const decodeEnvelope = Schema.decodeUnknownEither(Envelope)
const decodeMemory = Schema.decodeUnknownEither(Stage2Memory)

/** Where and what kind of mismatch, never the offending value (it may be memory content). */
const describeIssue = (error: ParseResult.ParseError): string => {
  const first = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
  if (first === undefined) return "invalid"
  const where = first.path.length === 0 ? "" : ` at ${first.path.join(".")}`
  const what = first._tag === "Type" ? "wrong type" : first._tag === "Missing" ? "missing field" : "invalid value"
  return `${what}${where}`
}

/**
 * Decodes one client answer (parsed JSON or raw text). Left: the whole answer is rejected (with a reason
 * fit for a log line). Right: the well-formed proposals, at most MAX_PROPOSALS_PER_CHUNK; malformed ones
 * are dropped and noted.
 */
export const decodeStage2Answer = (answer: unknown): Either.Either<DecodedAnswer, string> => {
  const parsed = typeof answer === "string" ? parseText(answer) : Either.right(answer)
  if (Either.isLeft(parsed)) return Either.left(parsed.left)
  const envelope = decodeEnvelope(parsed.right)
  if (Either.isLeft(envelope)) return Either.left(`answer has the wrong shape (${describeIssue(envelope.left)})`)
  const notes: Array<string> = []
  let items = envelope.right.memories
  if (items.length > MAX_PROPOSALS_PER_CHUNK) {
    notes.push(`trimmed ${items.length - MAX_PROPOSALS_PER_CHUNK} proposals past the first ${MAX_PROPOSALS_PER_CHUNK}`)
    items = items.slice(0, MAX_PROPOSALS_PER_CHUNK)
  }
  const memories: Array<Stage2Memory> = []
  let malformed = 0
  let firstIssue = ""
  items.forEach((item, i) => {
    const decoded = decodeMemory(item)
    if (Either.isRight(decoded)) return void memories.push(decoded.right)
    if (malformed++ === 0) firstIssue = `proposal ${i}: ${describeIssue(decoded.left)}`
  })
  if (malformed > 0) notes.push(`dropped ${malformed} malformed proposal${malformed === 1 ? "" : "s"} (first: ${firstIssue})`)
  return Either.right({ batch: new Stage2ProposalBatch({ memories }, { disableValidation: true }), notes })
}
