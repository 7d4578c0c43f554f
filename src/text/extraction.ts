import type { BufferEntryType } from "../domain/BufferEntry.js"
import type { Candidate } from "../domain/Candidate.js"
import type { RawLogEntry, SourceRef } from "../domain/Message.js"
import type { NodeType } from "../domain/Node.js"
import { attributeMentions, isSlot } from "./attributes.js"
import { matchMessage } from "./bufferPatterns.js"
import { isCorrection, statementKey } from "./canonical.js"
import { type DateMention, extractDates, validityWindow } from "./dates.js"
import { normalizeEntity } from "./entities.js"
import { type KnownNames, recognizeEntities } from "./ner.js"
import { type Sentence, splitSentences } from "./sentences.js"
import { parseTimestamp } from "../domain/time.js"

// Stage 1 candidate extraction: the buffer's patterns, sentence by sentence, on the user's own words
// (tool output only for outcomes); named entities from user messages; and dated events.

const RULE_TYPES: Record<BufferEntryType, { readonly type: NodeType; readonly confidence: number }> = {
  correction: { type: "semantic", confidence: 0.9 },
  fact: { type: "semantic", confidence: 0.8 },
  preference: { type: "procedural", confidence: 0.75 },
  outcome: { type: "episodic", confidence: 0.65 }
}
const ENTITY_CONFIDENCE = 0.75
const EVENT_CONFIDENCE = 0.6
const VALUE_CONFIDENCE = 0.7
/** Longer statements are cut at a word boundary: a memory is a sentence, not a pasted file. */
export const MAX_STATEMENT_CHARS = 1_000
/** A dated sentence needs this many words to be an event worth remembering ("Yesterday." is not). */
const MIN_EVENT_WORDS = 4

/** Where fenced code blocks (```) are: pasted code states no values of the user's. */
const codeSpans = (text: string): Array<readonly [number, number]> => {
  const out: Array<readonly [number, number]> = []
  for (const m of text.matchAll(/```[\s\S]*?(?:```|$)/g)) out.push([m.index, m.index + m[0].length])
  return out
}

const cut = (text: string): string => {
  if (text.length <= MAX_STATEMENT_CHARS) return text
  const head = text.slice(0, MAX_STATEMENT_CHARS)
  const space = head.lastIndexOf(" ")
  return (space > MAX_STATEMENT_CHARS / 2 ? head.slice(0, space) : head).trimEnd()
}

/**
 * Whether a pattern's match (from its trigger word to the end of the sentence) leaves out a value the sentence
 * states before it: "I've uploaded 25 supporting documents, is that enough or do I need to upload more?" matches
 * "I need ...", and the memory would lose the 25.
 */
const dropsValue = (sentence: string, match: string): boolean => {
  const from = sentence.lastIndexOf(match)
  return from > 0 && attributeMentions(sentence).some((a) => a.end <= from)
}

// "If the match score is below 40%, …", "I want to make sure my code is secure": a fact pattern's match inside a
// condition or a wish states nothing as so. The sentence is kept whole, so its slot rule sees the clause (canonical.ts).
const SUBORDINATE = /\b(?:if|when|whenever|whether|unless|once|until|in case|make sure|making sure|ensure|ensuring)\s+(?:that\s+)?$/i

/** Whether a pattern's match begins right after words `before` ends on ("if", "make sure that"; "never"). */
const rightAfter = (before: RegExp, sentence: string, match: string): boolean => {
  const from = sentence.lastIndexOf(match)
  return from > 0 && before.test(sentence.slice(0, from))
}

// "I've never actually delivered any photos to James": a match that begins right after a negation (the correction
// pattern's "actually") would state the opposite of what was said ("actually delivered any photos to James"). The
// sentence is kept whole, its denial with it.
const NEGATION_BEFORE = /\b(?:never|not|n['’]t)\s*$/i

export interface ExtractOptions {
  /** The config's ner_labels; empty turns NER off. */
  readonly nerLabels: ReadonlySet<string>
  /** Entity names the graph already holds, so NER also finds them. */
  readonly known?: KnownNames
}

const baseCandidate = (entry: RawLogEntry, timestamp: string) => ({
  isCorrection: false,
  keyOverride: null,
  sessionId: entry.session_id,
  messageIndex: entry.index,
  sourceRefs: [{ sessionId: entry.session_id, messageIndex: entry.index }] as ReadonlyArray<SourceRef>,
  timestamp,
  entityType: null,
  origin: "rule" as const
})

const datesIn = (mentions: ReadonlyArray<DateMention>, s: Sentence) =>
  mentions.filter((m) => m.start >= s.start && m.start < s.end)

const uniqueIsos = (mentions: ReadonlyArray<DateMention>) => [...new Set(mentions.map((m) => m.iso))]

/** The candidates of one message, in order: entities first, then its sentences' statements. */
export const extractFromMessage = (entry: RawLogEntry, options: ExtractOptions): Array<Candidate> => {
  if (entry.role !== "user" && entry.role !== "tool_result") return []
  const timestamp = parseTimestamp(entry.timestamp) ?? entry.timestamp
  const base = baseCandidate(entry, timestamp)
  const out: Array<Candidate> = []
  const user = entry.role === "user"
  if (user && options.nerLabels.size > 0) {
    const seen = new Set<string>()
    for (const e of recognizeEntities(entry.content, { labels: options.nerLabels, ...(options.known ? { known: options.known } : {}) })) {
      const key = `${e.label}|${normalizeEntity(e.text)}`
      if (seen.has(key)) continue
      seen.add(key)
      out.push({
        ...base,
        content: `${e.label}: ${e.text}`,
        type: "semantic",
        confidence: ENTITY_CONFIDENCE,
        validFrom: null,
        validTo: null,
        mentionedDates: [],
        entityType: e.label,
        origin: "ner"
      })
    }
  }
  const dates = user ? extractDates(entry.content, new Date(timestamp)) : []
  const code = codeSpans(entry.content)
  for (const sentence of splitSentences(entry.content)) {
    const own = datesIn(dates, sentence)
    const window = validityWindow(own)
    const dated = { validFrom: window.validFrom, validTo: window.validTo, mentionedDates: uniqueIsos(own) }
    let matched = false
    for (const m of matchMessage(sentence.text)) {
      // The user's words for everything; tool output only says how things went.
      if (!user && m.type !== "outcome") continue
      const whole =
        user &&
        (dropsValue(sentence.text, m.content) ||
          rightAfter(NEGATION_BEFORE, sentence.text, m.content) ||
          (m.type === "fact" && rightAfter(SUBORDINATE, sentence.text, m.content)))
      const content = cut(whole ? sentence.text : m.content)
      const { type, confidence } = RULE_TYPES[m.type]
      out.push({ ...base, ...dated, content, type, confidence, isCorrection: m.type === "correction" || isCorrection(content) })
      matched = true
    }
    // A sentence no rule caught that states the value of an attribute ("the repo has now reached 165
    // commits") is a statement of that slot: kept so a later value can supersede it (attributes.ts).
    if (user && !matched && !code.some(([a, b]) => sentence.start >= a && sentence.start < b) && attributeMentions(sentence.text).some(isSlot)) {
      out.push({ ...base, ...dated, content: cut(sentence.text), type: "semantic", confidence: VALUE_CONFIDENCE })
      continue
    }
    // A dated sentence no rule caught is an event: kept so "when did ..." questions have an answer.
    if (user && !matched && own.length > 0 && !sentence.text.endsWith("?") && sentence.text.split(/\s+/).length >= MIN_EVENT_WORDS) {
      out.push({ ...base, ...dated, content: cut(sentence.text), type: "episodic", confidence: EVENT_CONFIDENCE })
    }
  }
  return out
}

const mergeRefs = (a: ReadonlyArray<SourceRef>, b: ReadonlyArray<SourceRef>): Array<SourceRef> => {
  const out = [...a]
  for (const r of b) if (!out.some((x) => x.sessionId === r.sessionId && x.messageIndex === r.messageIndex)) out.push(r)
  return out
}

/**
 * Batch dedup: statements by statement key (the first wording wins; later repetitions add their
 * messages to its provenance and dates), entities by label and normalised name (the first mention).
 */
export const dedupeCandidates = (candidates: ReadonlyArray<Candidate>): Array<Candidate> => {
  const out: Array<Candidate> = []
  const byKey = new Map<string, number>()
  for (const c of candidates) {
    const key = c.entityType !== null ? `entity|${c.entityType}|${normalizeEntity(c.content.slice(c.entityType.length + 2))}` : `statement|${statementKey(c.content)}`
    const at = byKey.get(key)
    if (at === undefined) {
      byKey.set(key, out.length)
      out.push(c)
    } else if (c.entityType === null) {
      const first = out[at]!
      out[at] = {
        ...first,
        sourceRefs: mergeRefs(first.sourceRefs, c.sourceRefs),
        mentionedDates: [...new Set([...first.mentionedDates, ...c.mentionedDates])]
      }
    }
  }
  return out
}

/** Every candidate of a batch of messages (in order), de-duplicated. */
export const extractCandidates = (entries: ReadonlyArray<RawLogEntry>, options: ExtractOptions): Array<Candidate> =>
  dedupeCandidates(entries.flatMap((e) => extractFromMessage(e, options)))
