// Newer wins across sources, at retrieval: among one query's candidates (graph memories, buffer entries
// and raw-log lines alike), the statements that give the value the query asks about are ordered newest
// first, in the places they held; the older ones stay, marked with the newer statement and its time.
// Contradictions that are not updates ("I've never used X" beside "I set up X") come back together,
// flagged, so the agent can ask. No stored state: the candidates and their own words decide.
import type { SourceRef } from "../../domain/Message.js"
import type { ConflictsWith, SupersededBy, Updated } from "../../domain/Result.js"
import { analyze } from "../../search/IndexAnalyzer.js"
import { type AttributeMention, aimedAt, askedAttribute, attributeMentions, isAimed, isThreshold, namesThing, sameAttribute, sameMeasure, saysMeasure, valuesIn } from "../../text/attributes.js"
import { NUMBER_WORD } from "../../text/numberWords.js"
import { splitSentences } from "../../text/sentences.js"
import { words as wordsIn } from "../../text/tokenize.js"

/** What newerWins needs of a candidate besides its content. */
export interface Said {
  readonly content: string
  readonly sourceRefs: ReadonlyArray<SourceRef>
  readonly nodeId?: string | undefined
  /** When it was said (canonical ISO); undefined: unknown, never reordered. */
  readonly at?: string | undefined
  /** The user's own statement (assistant text restates, it does not update). */
  readonly said?: boolean | undefined
}

/** The marks a candidate may come back with (the result's fields, domain/Result.ts). */
export interface Marks {
  readonly supersededBy?: SupersededBy
  readonly updated?: Updated
  readonly conflictsWith?: ConflictsWith
}

// A question about what used to be ("at the start"), or about the change itself, wants the old value where it ranked. "First"
// only as when something began ("when I first set", "at first"): "my first portfolio review" asks for its current date.
const ASKS_HISTORY =
  /\b(?:originally|initially|at first|at the (?:start|beginning|outset)|in the beginning|to begin with|(?:i|we|you|he|she|they)\s+first|previous(?:ly)?|used to|earlier|before|old|former(?:ly)?|history|change[sd]?|progress(?:ed)?)\b/i
// A question about when something was said ("When did I mention the signing bonus…?") asks for that statement.
const ASKS_WHEN_SAID =
  /\bwhen\s+(?:did|have|had)\s+(?:i|we)\s+(?:\w+\s+)?(?:mention(?:ed)?|say|said|tell|told|talk(?:ed)?\s+about|br(?:ing|ought)\s+up|ask(?:ed)?)\b/i
/** Whether the question wants the statements of a value where they ranked, not the current one first. */
const keepsRank = (query: string): boolean => ASKS_HISTORY.test(query) || ASKS_WHEN_SAID.test(query)

// A question whether something ever happened ("Have I ever rejected…?", "Did Ronald ever…?"): any time counts, no value is current.
const EVER = /^\s*(?:have|has|had|did|do|does|was|were)\b[^?.!]*\bever\b/i

// A question whether something happened ("Have I attended the interview before…?", "Did I…?", "Was it ever…?"): a
// denial of it and what affirms it are the answer.
const WHETHER = new RegExp(`^\\s*(?:have|has|had|did)\\b|${EVER.source}`, "i")

// A question of what the assistant did ("Did you recommend …?") is answered by its lines.
const ASKS_ASSISTANT = /^\s*\w+\s+you\b/i

// The value kinds a question asks for, when its wording says so.
const EXPECTED: ReadonlyArray<readonly [RegExp, ReadonlySet<AttributeMention["kind"]>]> = [
  [/\bhow many\b/i, new Set(["count", "quantity", "score"])],
  [/\bhow much\b/i, new Set(["money", "quantity", "percent"])],
  [/\bhow long\b/i, new Set(["quantity", "count", "time"])],
  [/\bwhen\b|\bwhat (?:date|day|time)\b|\bdeadline\b/i, new Set(["date", "time"])]
]

// A question for a sum of values ("How many total hours…", "…combined?") asks for every one of them, none is current.
const AGGREGATE = /\b(?:total|combined|altogether|in all|sum)\b/i

// A question about a goal or a limit asks for the threshold itself ("What is my target weight?", "the limit below which …").
const THRESHOLD_QUERY = /\b(?:goals?|targets?|aim(?:s|ing)?|limits?|below|under|above|at least|at most|less than|more than)\b/i

/** A candidate's sentence stating a value counts when it covers at least this share of the query's terms. */
const MIN_COVERAGE = 0.4
/** ... or this share, when it is of the kind the question asks for and its attribute names the thing asked about. */
const MIN_NAMED_COVERAGE = 0.25
/** Other statements of the value must cover at least this share of what the best-ranked one covers. */
const COVERAGE_RATIO = 0.6
/** ... or this share, when their attribute is what the question asks the value of, word for word. */
const NAMED_COVERAGE_RATIO = 0.5
/** Only the best candidates are compared (they are what the agent sees, and what it costs to look). */
export const NEWER_WINS_POOL = 30

interface Stated {
  readonly mention: AttributeMention
  readonly coverage: number
  readonly words: ReadonlyArray<string>
  /** The index terms of the sentence that states it. */
  readonly sentence: ReadonlySet<string>
  /** A limit set on the value ("keeping it to 10 people"), not a value that holds: never current, it comes after those that hold. */
  readonly cap?: boolean
}

interface AnalyzedSentence {
  readonly text: string
  /** Its index terms (stemmed, stopwords dropped). */
  readonly terms: ReadonlySet<string>
  /** The same, in the order said (repeats kept). */
  readonly sequence: ReadonlyArray<string>
  /** Read on first use: a sentence sharing no word with the query never needs them. */
  mentions: ReadonlyArray<AttributeMention> | null
}

/** A candidate's sentences, each analyzed once per query (values and denials both read them). */
type SentencesOf = (content: string) => ReadonlyArray<AnalyzedSentence>

const sentenceCache = (): SentencesOf => {
  const analyzed = new Map<string, ReadonlyArray<AnalyzedSentence>>()
  return (content) => {
    let out = analyzed.get(content)
    if (out === undefined) {
      out = splitSentences(content).map((s): AnalyzedSentence => {
        const sequence = analyze(s.text)
        return { text: s.text, terms: new Set(sequence), sequence, mentions: null }
      })
      analyzed.set(content, out)
    }
    return out
  }
}

const mentionsOf = (s: AnalyzedSentence) => (s.mentions ??= attributeMentions(s.text))

// Units recur ("MB", "commits"); a long-lived server meets new ones forever, so the cache starts over past a bound.
const UNIT_CACHE_MAX = 10_000
const unitCache = new Map<string, ReadonlyArray<string>>()
/** A unit's index terms ("requests/minute": request, minut). */
const unitWords = (unit: string): ReadonlyArray<string> => {
  let out = unitCache.get(unit)
  if (out === undefined) {
    if (unitCache.size >= UNIT_CACHE_MAX) unitCache.clear()
    unitCache.set(unit, (out = /[a-z]{2,}/i.test(unit) ? analyze(unit.replace(/\//g, " ")) : []))
  }
  return out
}

// A value said of a pronoun: "set it to", "it's now at", "moved that to".
const PRONOUN_BEFORE =
  /\b(?:it|that|this)(?:['’]s)?\s+(?:(?:is|was|has|had|been|now|currently|already|just|finally|set|increased|decreased|raised|lowered|reduced|dropped|moved|changed|bumped|pushed|extended|shortened|adjusted|updated|upgraded|up|down|at|to|from)\s+)*$/i

/** The query terms a sentence has. */
const coveredTerms = (s: AnalyzedSentence, query: ReadonlySet<string>): Array<string> => [...query].filter((t) => s.terms.has(t))

// What a value is for ("$120 per week at Whole Foods for 5 gluten-free dinners"; "How much do I spend … for my
// gluten-free dinners?"): the words after "for", past determiners and numbers, to the end of the phrase.
const PURPOSE = /\bfor\s+(?:(?:my|our|your|the|his|her|their|a|an|this|that|these|those|some|all|\d+)\s+)*([a-z][\w-]*(?:\s+[a-z][\w-]*){0,3})/i
// Where the phrase after a value ends: the clause.
const CLAUSE_BREAK = /[,;:.!?\n]|\b(?:and|but|so|because|which|while|since|though|although|if|when|is|are|was|were)\b/i

/** The index terms of what the text's first "for" phrase says something is for, or null. */
const purposeIn = (text: string): ReadonlySet<string> | null => {
  const m = PURPOSE.exec(text)
  if (m === null) return null
  const terms = analyze(m[1]!)
  return terms.length > 0 ? new Set(terms) : null
}

/**
 * Whether a value is said to be for something other than what the question asks it for: "$200 weekly at Whole Foods
 * for holiday specialty items" when asked what is spent there "for my gluten-free dinners" (no word of either
 * purpose in the other, nor in the question).
 */
const forOtherPurpose = (m: AttributeMention, text: string, asked: ReadonlySet<string> | null, query: ReadonlySet<string>): boolean => {
  if (asked === null) return false
  const rest = text.slice(m.end)
  const brk = CLAUSE_BREAK.exec(rest)
  const own = purposeIn(brk === null ? rest : rest.slice(0, brk.index))
  return own !== null && [...own].every((t) => !asked.has(t) && !query.has(t))
}

/**
 * The candidate's best sentence stating a value of an expected kind whose attribute the query names (of its values,
 * the one the query names most, by attribute and unit). A value of a kind and unit the query gives itself is what
 * it asks with, not for ("the sum of the first 15 terms"), one aimed for or supposed does not hold ("I want 7
 * hours", "it was supposed to be 15 guests"), and a verb read as the attribute names no slot ("I have $3,000 saved").
 */
const statedValue = (
  sentences: ReadonlyArray<AnalyzedSentence>,
  query: ReadonlySet<string>,
  kinds: ReadonlySet<string> | null,
  given: ReadonlyArray<AttributeMention>,
  asked: ReadonlyArray<string> | null,
  asksThreshold: boolean,
  purpose: ReadonlySet<string> | null
): Stated | null => {
  let best: Stated | null = null
  // The best sentence that states only a limit set on such a value; a value that holds comes first.
  let capped: Stated | null = null
  for (const s of sentences) {
    const covered = coveredTerms(s, query).length
    // A statement sharing no word with the query is never compared.
    if (covered === 0) continue
    const coverage = covered / query.size
    if (best !== null && coverage <= best.coverage) continue
    // Of its values, the one whose attribute and unit the query names most ("per minute" asks for requests/minute, not a version).
    let chosen: Stated | null = null
    let named = -1
    let cap: Stated | null = null
    let capNamed = -1
    // Most dates mark events: a date is of what the question asks about only where the sentence names it
    // (the series' deadline, not the day its views passed 50,000).
    const namesAsked = asked === null || asked.some((w) => s.terms.has(w))
    for (const m of mentionsOf(s)) {
      if (kinds !== null && !kinds.has(m.kind)) continue
      if (!namesAsked && (m.kind === "date" || m.kind === "time")) continue
      if (!namesThing(m) || given.some((g) => g.kind === m.kind && g.unit === m.unit) || isAimed(m, s.text) || forOtherPurpose(m, s.text, purpose, query)) continue
      const limit = !asksThreshold && isThreshold(m, s.text)
      // "I've set it to 100 requests/minute": the value is of what "it" stands for, which the words read before
      // it are not; the sentence's words of what the question asks about name it, when it says them.
      const pronoun = PRONOUN_BEFORE.test(s.text.slice(Math.max(0, m.start - 40), m.start))
      const said = pronoun && asked !== null ? asked.filter((w) => s.terms.has(w)) : []
      const words = said.length > 0 ? said : analyze(m.attribute)
      const shared = words.filter((w) => query.has(w)).length
      if (shared === 0) continue
      const score = shared + unitWords(m.unit).filter((w) => query.has(w)).length
      if (limit) {
        if (score > capNamed) [cap, capNamed] = [{ mention: m, coverage, words, sentence: s.terms, cap: true }, score]
      } else if (score > named) [chosen, named] = [{ mention: m, coverage, words, sentence: s.terms }, score]
    }
    if (chosen !== null) best = chosen
    else if (cap !== null && (capped === null || coverage > capped.coverage)) capped = cap
  }
  return best ?? capped
}

/**
 * Whether a statement gives the value the anchor gives: same kind and measure (512MB and 1GB, 3 hours and 90
 * minutes); it covers the query nearly as well, or half as well when its attribute is what the question asks the value of ("a safety inspection coming up on
 * March 25" beside "a safety inspection for the preferred apartment on March 23"); and its attribute says
 * nothing the query, the anchor's attribute and the anchor's own sentence do not ("my monthly travel budget" is
 * not the "monthly book budget" asked about; "enough budget for my photography gear, I've allocated $300"
 * speaks of a budget).
 */
const sameValueAs = (s: Stated, anchor: Stated, query: ReadonlySet<string>, asked: ReadonlyArray<string> | null): boolean => {
  if (s.mention.kind !== anchor.mention.kind || !sameMeasure(s.mention.unit, anchor.mention.unit)) return false
  if (!s.words.every((w) => query.has(w) || anchor.words.includes(w) || anchor.sentence.has(w))) return false
  const named = asked !== null && asked.length > 0 && asked.every((w) => s.words.includes(w))
  // A value said to have changed, of the very attribute the anchor gives ("the weekly spending at Whole Foods has
  // adjusted to $115" beside "spending $120 per week at Whole Foods on Main Street for 5 gluten-free dinners"), is
  // one of its values in fewer of the question's words.
  const changed = s.mention.cue && sameAttribute(s.mention, anchor.mention)
  return s.coverage >= (named || changed ? NAMED_COVERAGE_RATIO : COVERAGE_RATIO) * anchor.coverage
}

// What is denied ends with its clause ("I have never upgraded any furniture in my living room, which seems weird"),
// or where another clause begins ("…these problems before and I need help").
const NEVER =
  /\b(?:i|we|he|she|they)(?:['’](?:ve|s)|\s+have|\s+has|\s+had)?(?:\s+(?:also|actually|really|just))?\s+never\s+([^.;:!?,\n]+)|\b(?:i|we|he|she|they)\s+(?:have|has|had)n['’]t\s+ever\s+([^.;:!?,\n]+)/gi
const CLAUSE_END = /\b(?:and|but|so|because|since|which|while|though|although|yet|when|if|until|unless|considering|given)\b/i
// "Never X or Y" denies X and denies Y: either said elsewhere is the opposite ("…the USCIS interview or submitted any forms").
const ALTERNATIVES = /\b(?:or|nor)\b/i
// Words that only stress the denial ("never actually completed").
const EMPHASIS = /\b(?:actually|really|even|ever|truly|once|personally)\b/gi
// A contraction's "n't" ends its word ("won't", "can't", "isn't"): no word break before it, one after.
const NEGATED = /\b(?:never|not|no|cannot)\b|n['’]t\b/i
// A hedge is not a denial of what the sentence states ("I attended the workshop, but I'm not sure what I need").
const HEDGE = /\b(?:not\s+(?:quite\s+|really\s+|entirely\s+)?(?:sure|certain|clear)|(?:do|did)(?:n['’]t|\s+not)\s+(?:really\s+)?(?:know|understand)|no\s+idea)\b/gi
/** Share of a denial's words another sentence must share to say the opposite. */
const CONFLICT_SHARE = 0.6

/** One thing a user said they never did. */
interface Denial {
  /** What is denied, without the negation ("synchronized my server time with any NTP service"). */
  readonly text: string
  /** Its index terms. */
  readonly words: ReadonlyArray<string>
  /** Its index terms in the order said ("tangent or normal line problems": tangent, normal, line, problem). */
  readonly sequence: ReadonlyArray<string>
  /** The things it denies, each at least two index terms ("never X or Y": X and Y). */
  readonly parts: ReadonlyArray<ReadonlyArray<string>>
  /** Each index term's word as the denial says it ("deliv": "delivered"). */
  readonly said: ReadonlyMap<string, string>
}

/** The denials ("I've never written integration tests") of a text. */
const denialsOf = (content: string): Array<Denial> => {
  const out: Array<Denial> = []
  for (const m of content.matchAll(NEVER)) {
    const clause = (m[1] ?? m[2] ?? "").split(CLAUSE_END)[0]!.replace(EMPHASIS, " ").split(/\s+/).filter((w) => w !== "").slice(0, 10).join(" ")
    const sequence = analyze(clause)
    const words = [...new Set(sequence)]
    if (words.length < 2) continue
    const parts = clause.split(ALTERNATIVES).map((p) => [...new Set(analyze(p))]).filter((p) => p.length >= 2)
    const said = new Map<string, string>()
    for (const w of wordsIn(clause)) {
      const term = analyze(w)[0]
      if (term !== undefined && !said.has(term)) said.set(term, w)
    }
    out.push({ text: clause, words, sequence, parts: parts.length > 0 ? parts : [words], said })
  }
  return out
}

/** The denial most about the query (sharing most of its terms; at least one) and how many it shares, or undefined. */
const denialAbout = (content: string, query: ReadonlySet<string>): { readonly denial: Denial; readonly shared: number } | undefined => {
  let best: { denial: Denial; shared: number } | undefined
  for (const denial of denialsOf(content)) {
    const shared = denial.words.filter((w) => query.has(w)).length
    if (shared > (best?.shared ?? 0)) best = { denial, shared }
  }
  return best
}

/** A denial is what the query asks about when it shares at least two of its terms and this share of them. */
const DENIAL_COVERAGE = 0.4
const asksAbout = (shared: number, query: ReadonlySet<string>) => shared >= 2 && shared >= DENIAL_COVERAGE * query.size

/**
 * How well the best sentence affirming a denial says it (0: no sentence affirms it): the denial's words it shares,
 * half a word more when it says what was done, the first word of the thing denied ("upgraded" of "never upgraded
 * any furniture in my living room": "after the sofa upgrade" says it, "the furniture layout in my living room" does
 * not), a whole word when it says it as the denial does ("I upgraded the sofa"), and more when it names the thing
 * denied in the denial's own words, in a row (PHRASE_MIN). A sentence affirms a denial when it says, without a negation
 * and not as a request (INSTRUCTION), most of one thing it denies.
 */
const affirms = (sentences: ReadonlyArray<AnalyzedSentence>, denial: Denial): number => {
  let best = 0
  for (const s of sentences) {
    if (NEGATED.test(s.text.replace(HEDGE, " ")) || INSTRUCTION.test(s.text)) continue
    const part = denial.parts.find((p) => p.filter((w) => s.terms.has(w)).length >= Math.max(2, Math.ceil(CONFLICT_SHARE * p.length)))
    if (part === undefined) continue
    const doneSaid = !s.terms.has(part[0]!) ? 0 : saysAsDenied(s, denial.said.get(part[0]!)) ? 1 : 0.5
    const phrase = Math.max(0, longestRun(s.sequence, denial.sequence) - PHRASE_MIN + 1) * PHRASE_WEIGHT
    best = Math.max(best, denial.words.filter((w) => s.terms.has(w)).length + doneSaid + phrase)
  }
  return best
}

/**
 * Whether a sentence has the word as the denial says it: "I just delivered 50 event photos" says what "never delivered
 * any photos" denies was done; "I need to deliver to James" and "ensure I deliver the best quality" do not.
 */
const saysAsDenied = (s: AnalyzedSentence, word: string | undefined): boolean => word !== undefined && wordsIn(s.text).includes(word)

/**
 * A sentence saying at least this many of the denial's words one after another, in its order, names the very thing
 * denied ("I completed 6 tangent and normal line problems" of "never solved any tangent or normal line problems"),
 * where others only share its words ("6 tangent line problems and 5 normal line problems", "working on tangent and
 * normal lines to conics"): each word of the run from this one on counts this much more.
 */
const PHRASE_MIN = 3
const PHRASE_WEIGHT = 1.5

/** The length of the longest run of index terms two sequences share, one after another in both. */
export const longestRun = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): number => {
  let best = 0
  let prev = new Array<number>(b.length + 1).fill(0)
  for (let i = 0; i < a.length; i++) {
    const row = new Array<number>(b.length + 1).fill(0)
    for (let j = 0; j < b.length; j++) if (a[i] === b[j]) best = Math.max(best, (row[j + 1] = prev[j]! + 1))
    prev = row
  }
  return best
}

// A request for what to do from now on ("Always provide stepwise solutions when I ask about tangent line problems") says
// nothing about what was done.
const INSTRUCTION = /^\W*(?:always|never|please|(?:do\s+not|don['’]t)\s+\w+|make\s+sure|remember\s+to|be\s+sure)\b/i

/**
 * "I've never done X" contradicts what the user said before it; a statement of X said after it may be what they have
 * done since. A question whether X happened, answered by the denial, wants what it contradicts: of the statements
 * affirming it (by how well they affirm it, `affirms`), one said before it is its opposite before any said after.
 * Other questions keep the best affirming one, whenever said (it may hold the value or the date asked for).
 */
const opposes = (affirmed: number, x: Said, denier: Said, whether: boolean): number =>
  whether && affirmed > 0 && x.at !== undefined && denier.at !== undefined && x.at < denier.at ? affirmed + SAID_BEFORE : affirmed
/** More than any sentence's affirming weight. */
const SAID_BEFORE = 1000

/** Whether any sentence says a date or a time of day. */
const saysDate = (sentences: ReadonlyArray<AnalyzedSentence>): boolean =>
  sentences.some((s) => [...valuesIn(s.text)].some((v) => v.startsWith("date:") || v.startsWith("time:")))

/** The best share of the query's terms one sentence covers. */
const coverageOf = (sentences: ReadonlyArray<AnalyzedSentence>, query: ReadonlySet<string>): number => {
  let best = 0
  for (const s of sentences) best = Math.max(best, coveredTerms(s, query).length / query.size)
  return best
}

const refOf = (x: Said) => ({ sourceRefs: x.sourceRefs, ...(x.nodeId !== undefined ? { nodeId: x.nodeId } : {}) })

/** Deniers among this many best candidates may have their opposite looked up (OwnLinesLookup). */
export const DENIAL_LOOKUP_TOP = 10

/**
 * Finds what the user said, past the candidates, that best matches a text: what may affirm a denial no candidate
 * affirms, or a later change to a value a candidate states. At most a few of their own lines, best match first, none
 * of them a candidate (the raw log's lexical index, searched for the text; engine.ts).
 */
export type OwnLinesLookup<A> = (own: A, text: string, keep?: (line: A) => boolean) => ReadonlyArray<A>

/**
 * Applies newer-wins to one query's candidates (best first): the statements of the value the query asks
 * about move newest first into the places they held (in time order with `includeHistory`), the older
 * ones marked; a denial and a statement affirming it are put next to each other and flagged. When a denial
 * among the best candidates has no opposite among them, `lookup` (once per query) may find it. Returns
 * the candidates in their new order, each with its marks.
 */
export const newerWins = <A extends Said>(
  candidates: ReadonlyArray<A>,
  query: string,
  includeHistory: boolean,
  lookup?: OwnLinesLookup<A>
): Array<A & Marks> => {
  const items: Array<A & Marks> = candidates.map((c) => ({ ...c }))
  const out = [...items]
  const terms = new Set(analyze(query))
  if (out.length < 2 || terms.size === 0) return out
  const sentencesOf = sentenceCache()

  // 1. Contradictions: a denial the query is about, and a candidate affirming it, come back together.
  const whether = WHETHER.test(query)
  // The value kinds a question for a value asks ("how many"), when it is not whether something happened.
  const asksValue = whether ? null : (EXPECTED.find(([re]) => re.test(query))?.[1] ?? null)
  const valuesOf = (x: Said, kinds: ReadonlySet<string>) => sentencesOf(x.content).flatMap((s) => mentionsOf(s).filter((m) => kinds.has(m.kind)))
  // Two values of one measure, of a kind asked for ("6/7" and "7/7"), not "two junior writers" beside "a 7-page guide".
  const twoValues = (a: Said, b: Said, kinds: ReadonlySet<string>) => {
    const others = valuesOf(b, kinds)
    return valuesOf(a, kinds).some((m) => others.some((o) => o.kind === m.kind && sameMeasure(o.unit, m.unit) && o.value !== m.value))
  }
  const paired = new Set<A & Marks>()
  const partner = new Map<A & Marks, A & Marks>()
  let lookedUp = false
  // The pair whose denial the query asks about most (a question whether it happened moves it first).
  let answer: { readonly pair: readonly [A & Marks, A & Marks]; readonly shared: number } | null = null
  for (let i = 0; i < Math.min(out.length, NEWER_WINS_POOL); i++) {
    const denier = out[i]!
    if (denier.said !== true || paired.has(denier)) continue
    const about = denialAbout(denier.content, terms)
    if (about === undefined) continue
    const denial = about.denial
    // The candidate affirming most of what is denied; of equals, the best-ranked.
    let j = -1
    let most = 0
    for (let at = 0; at < Math.min(out.length, NEWER_WINS_POOL); at++) {
      const x = out[at]!
      if (at === i || x.said !== true || paired.has(x)) continue
      const shared = opposes(affirms(sentencesOf(x.content), denial), x, denier, whether)
      if (shared > most) [j, most] = [at, shared]
    }
    const asked = asksAbout(about.shared, terms)
    if (j < 0 && lookup !== undefined && !lookedUp && i < DENIAL_LOOKUP_TOP && asked) {
      // Only one side is among the candidates: what the user said elsewhere may be the other, right beside it.
      lookedUp = true
      let found: A & Marks | undefined
      // Lines that share the denied words without affirming them ("how do normal lines relate to tangent lines?") use
      // up none of the lines it returns.
      const affirming = (x: A) => x.said === true && affirms(sentencesOf(x.content), denial) > 0
      for (const x of lookup(denier, denial.text, affirming)) {
        if (x.said !== true) continue
        const shared = opposes(affirms(sentencesOf(x.content), denial), x, denier, whether)
        if (shared > most) [found, most] = [{ ...x }, shared]
      }
      if (found !== undefined) {
        out.splice(i + 1, 0, found)
        j = i + 1
      }
    }
    if (j < 0) continue
    const other = out[j]!
    paired.add(denier).add(other)
    partner.set(denier, other).set(other, denier)
    if (asked && about.shared > (answer?.shared ?? 0)) answer = { pair: i < j ? [denier, other] : [other, denier], shared: about.shared }
    Object.assign(denier, { conflictsWith: { at: other.at ?? null, ...refOf(other) } })
    Object.assign(other, { conflictsWith: { at: denier.at ?? null, ...refOf(denier) } })
    // The lower-ranked one moves up next to the other; when they state two values of one measure, of the kind asked
    // for ("How many … have I …?": "scored 6/7", later "scored 7/7 … but I have never completed any"), the later said
    // comes first, as a newer value does.
    const [hi, lo] = i < j ? [i, j] : [j, i]
    const moved = out.splice(lo, 1)[0]!
    out.splice(hi + 1, 0, moved)
    const [a, b] = [out[hi]!, out[hi + 1]!]
    if (asksValue !== null && a.at !== undefined && b.at !== undefined && b.at > a.at && twoValues(a, b, asksValue)) {
      ;[out[hi], out[hi + 1]] = [b, a]
    }
  }
  if (answer !== null && whether) {
    for (const x of answer.pair) out.splice(out.indexOf(x), 1)
    out.unshift(...answer.pair)
  }
  const n = Math.min(out.length, NEWER_WINS_POOL)
  if (whether && !ASKS_ASSISTANT.test(query)) {
    // Whether it happened is told by what was said: the replies to it, and the names of things, however close in
    // words ("It's a good idea to consider how Ronald's comfort level …"), come after the statements, each as ranked.
    const head = out.slice(0, n)
    out.splice(0, n, ...head.filter((x) => x.said === true), ...head.filter((x) => x.said !== true))
  }
  // 2. Updates: the best-ranked user statement of a value the query names sets the slot. A question whether
  // something ever happened asks for no value: the amounts beside it are of many things (proposals of $5,000 and $6,000).
  if (EVER.test(query)) return out
  const ranked = [...out]
  const asRanked = keepsRank(query)
  const kinds = EXPECTED.find(([re]) => re.test(query))?.[1] ?? null
  const given = attributeMentions(query)
  const askedWords = askedAttribute(query)
  const asked = askedWords === null ? null : analyze(askedWords.join(" "))
  const asksThreshold = THRESHOLD_QUERY.test(query)
  const purpose = purposeIn(query)
  const stated = ranked
    .slice(0, n)
    .map((c) => (c.said === true && c.at !== undefined ? statedValue(sentencesOf(c.content), terms, kinds, given, asked, asksThreshold, purpose) : null))
  // A value of the kind the question asks for, of the thing it asks about by name ("the pegboard installation that
  // was completed on September 18" for "When was the wall-mounted pegboard … installed …?"), sets the slot on less.
  const thing = asked === null ? null : asked[asked.length - 1]!
  let reordered = false
  const anchorAt = stated.findIndex(
    (s) => s !== null && s.cap !== true && (s.coverage >= MIN_COVERAGE || (kinds !== null && thing !== null && s.words.includes(thing) && s.coverage >= MIN_NAMED_COVERAGE))
  )
  if (anchorAt >= 0) {
    const anchor = stated[anchorAt]!
    const members = stated.flatMap((s, i) => (s !== null && (i === anchorAt || sameValueAs(s, anchor, terms, asked)) ? [i] : []))
    // A limit set on the value ("keeping it to 10 people") is no value of it: the values that hold come first, then the limits, each as ranked.
    const held = members.filter((i) => stated[i]!.cap !== true)
    const caps = members.filter((i) => stated[i]!.cap === true)
    if (new Set(held.map((i) => stated[i]!.mention.value)).size >= 2) {
      reordered = true
      const at = (i: number) => ranked[i]!.at!
      const value = (i: number) => stated[i]!.mention.value
      const byTime = [...held].sort((a, b) => (at(b) < at(a) ? -1 : at(b) > at(a) ? 1 : a - b))
      // A value holds from its latest statement: the statements of the current value (its first one and its
      // restatements alike) come first, as they ranked; then each older value, the most recently said first.
      const latest = new Map<string, string>()
      for (const i of byTime) if (!latest.has(value(i))) latest.set(value(i), at(i))
      const byValue = [...held].sort((a, b) => {
        const [la, lb] = [latest.get(value(a))!, latest.get(value(b))!]
        return la !== lb ? (lb < la ? -1 : 1) : value(a) === value(b) ? a - b : at(b) < at(a) ? -1 : at(b) > at(a) ? 1 : a - b
      })
      const current = value(byValue[0]!)
      const newest = byTime.find((i) => value(i) === current)!
      const older = byTime.find((i) => value(i) !== current)!
      // Current value first; in time order when history is asked for; where they ranked when the question is about the past.
      const order = includeHistory ? [...[...byTime].reverse(), ...caps] : asRanked ? members : [...byValue, ...caps]
      members.forEach((pos, j) => (out[pos] = ranked[order[j]!]!))
      const now = ranked[newest]!
      Object.assign(ranked[byValue[0]!]!, { updated: { at: now.at!, before: value(older), beforeAt: at(older) } })
      for (const i of held) if (value(i) !== current) Object.assign(ranked[i]!, { supersededBy: { at: now.at!, ...refOf(now) } })
    } else if (caps.length > 0 && !asRanked && !includeHistory) {
      const order = [...held, ...caps]
      members.forEach((pos, j) => (out[pos] = ranked[order[j]!]!))
    }
    if (!asRanked && !includeHistory) {
      // The answer states a value: a statement of the user's about the same thing that states none, or an assistant
      // line, covering the question no better, does not stand above the user's statement of it.
      const first = members[0]!
      const wantsDate = kinds !== null && kinds.has("date")
      const above = ranked.slice(0, first).findIndex((c, i) => {
        // A statement it contradicts stays where the pair was put (the later said first when a value is asked for).
        if (partner.get(c) === ranked[first]) return false
        // An assistant line covering no more is at best a restatement of what the user said.
        if (c.said === true && stated[i] !== null) return false
        const coverage = coverageOf(sentencesOf(c.content), terms)
        if (coverage === 0) return false
        // A question when something is asks for a date: the user's words about it that say none cannot answer it,
        // however many of the question's words they have ("now that I've added a wall-mounted pegboard").
        return coverage <= anchor.coverage || (wantsDate && c.said === true && !saysDate(sentencesOf(c.content)))
      })
      if (above >= 0) out.splice(above, 0, out.splice(first, 1)[0]!)
    }
  }
  // 3. No two values of the slot among them: a later statement that says it changed, or that names the attribute
  // an earlier one gives a value of, may still be the update, when
  // the question asks for a value (by its wording, or by naming what one is of that a candidate states).
  if (!reordered && (kinds !== null || (asked !== null && anchorAt >= 0)) && !AGGREGATE.test(query) && !asRanked && !includeHistory) {
    cuedUpdate(out, terms, sentencesOf, anchorAt >= 0 ? stated[anchorAt]!.mention : null, kinds, purpose, lookedUp ? undefined : lookup)
  }
  return out
}

// An update said in other words than the value's ("I extended my rest day to two full days", "it's been adjusted to
// $350 monthly", "it's now 10 hours weekly", "a slight improvement to 135/82 mmHg"): a cue of change beside a number.
const CHANGE_CUE = new RegExp(
  `\\b(?:changed|moved|increased|decreased|raised|lowered|extended|shortened|adjusted|updated|bumped|reduced|rescheduled|postponed|pushed back|no longer|(?:improvement|improved|dropped|rose|fell|went (?:up|down)) to|(?:now|has reached|have reached)\\s+(?:at\\s+|up to\\s+|down to\\s+)?(?=[$€£\\d]|${NUMBER_WORD}\\b))`,
  "i"
)
const NUMBER = new RegExp(`[$€£]?\\d|\\b${NUMBER_WORD}\\b`, "gi")
/** Whether a sentence says a number that is not only wished for or supposed ("It was supposed to be 30 guests"). */
const saysNumber = (text: string): boolean => [...text.matchAll(NUMBER)].some((m) => !aimedAt(text, m.index))
/** Only a cued statement among this many best candidates moves (it is about the question nearly as much). */
const CUE_TOP = 10
/**
 * A cued statement must cover at least this share of the query terms the earlier statement covers (half: "my
 * photography budget … adjusted to $350 monthly" of "allocate monthly for my photography gear…").
 */
const CUE_SHARE = 0.5
/** A later statement naming the earlier one's attribute must still share this many of the query's terms. */
const RESTATE_MIN_TERMS = 2

/**
 * The query terms a candidate's best sentence covers, and those its sentences saying a change cover (a change to a
 * value of the kind and unit of `like`, when the candidates state one: a deadline moved is no change of a budget).
 */
const coveredBy = (
  sentences: ReadonlyArray<AnalyzedSentence>,
  query: ReadonlySet<string>,
  like: AttributeMention | null,
  kinds: ReadonlySet<string> | null,
  purpose: ReadonlySet<string> | null
) => {
  let best: Array<string> = []
  let sentence = ""
  const cued = new Set<string>()
  const named: Array<AttributeMention> = []
  for (const s of sentences) {
    const covered = coveredTerms(s, query)
    if (covered.length > best.length) [best, sentence] = [covered, s.text]
    if (covered.length === 0) continue
    for (const m of mentionsOf(s)) if (namedValue(m, s.text, like, kinds) && !forOtherPurpose(m, s.text, purpose, query)) named.push(m)
    if (!CHANGE_CUE.test(s.text) || !saysNumber(s.text)) continue
    if (like !== null && !mentionsOf(s).some((m) => m.kind === like.kind && sameMeasure(m.unit, like.unit)) && !saysMeasure(s.text, like)) continue
    for (const t of covered) cued.add(t)
  }
  return { best, sentence, cued, named }
}

type Covered = ReturnType<typeof coveredBy>

/**
 * A value whose attribute is named in two words or more ("emergency fund", "study time"), of the kind asked for and
 * held (not aimed for): two statements of it with different values are one value said twice, however else they differ.
 */
const namedValue = (m: AttributeMention, text: string, like: AttributeMention | null, kinds: ReadonlySet<string> | null): boolean =>
  m.modifiers.length >= 1 &&
  namesThing(m) &&
  (kinds === null || kinds.has(m.kind)) &&
  (like === null || (m.kind === like.kind && m.unit === like.unit)) &&
  !isAimed(m, text) &&
  !isThreshold(m, text)

/**
 * Whether a later statement gives another value of an attribute an earlier one names ("my $200 emergency fund" after
 * "$150 as an emergency fund"). Most dates and times mark events ("I celebrated the article series on July 1"): a
 * later one replaces another only when said to ("moved to").
 */
const restates = (earlier: ReadonlyArray<AttributeMention>, later: ReadonlyArray<AttributeMention>): boolean =>
  later.some((b) => (b.cue || (b.kind !== "date" && b.kind !== "time")) && earlier.some((a) => sameAttribute(a, b) && a.value !== b.value))

/**
 * A later statement of the user's saying that something changed, about what an earlier statement of theirs ranked
 * above it says of the question (most of the same question words), or giving another value of an attribute the
 * earlier one names ("I'm considering using my $200 emergency fund for …" after "I set aside $150 as an emergency
 * fund for unexpected rehearsal or costume costs"), moves above it, which is marked with it; once per query, among
 * the best candidates.
 */
const cuedUpdate = <A extends Said>(
  out: Array<A & Marks>,
  query: ReadonlySet<string>,
  sentencesOf: SentencesOf,
  like: AttributeMention | null,
  kinds: ReadonlySet<string> | null,
  purpose: ReadonlySet<string> | null,
  lookup: OwnLinesLookup<A> | undefined
): void => {
  const n = Math.min(out.length, CUE_TOP)
  const covered = out.slice(0, n).map((c) => (c.said === true && c.at !== undefined ? coveredBy(sentencesOf(c.content), query, like, kinds, purpose) : null))
  const updates = (earlier: Covered, later: Covered) =>
    earlier.best.filter((t) => later.cued.has(t)).length >= CUE_SHARE * earlier.best.length ||
    // Said in other words, but of the attribute the earlier statement names, with another value.
    (later.best.length >= RESTATE_MIN_TERMS && restates(earlier.named, later.named))
  for (let j = 1; j < n; j++) {
    const later = covered[j]
    if (later === null || later === undefined || (later.cued.size === 0 && later.named.length === 0)) continue
    const i = covered.findIndex((earlier, at) => at < j && earlier !== null && earlier.best.length >= 2 && out[at]!.at! < out[j]!.at! && updates(earlier, later))
    if (i < 0) continue
    const now = out[j]!
    Object.assign(out[i]!, { supersededBy: { at: now.at!, ...refOf(now) } })
    out.splice(i, 0, out.splice(j, 1)[0]!)
    return
  }
  // None among them: the user's statement about the question may have been changed since in a line of theirs that
  // ranks lower, said in other words ("…the extended batch cooking sessions on March 24 and March 31, since they
  // were extended by 30 minutes"): a candidate below the best few, or else a line the lookup finds (it leaves out
  // the candidates). Of their statements covering the question best, the oldest has had the most time to change;
  // its own sentence finds the lines about it.
  let i = -1
  for (const [at, c] of covered.entries()) {
    if (c === null || c.best.length < Math.max(2, MIN_COVERAGE * query.size)) continue
    const best = i < 0 ? null : covered[i]!
    if (best === null || c.best.length > best.best.length || (c.best.length === best.best.length && out[at]!.at! < out[i]!.at!)) i = at
  }
  if (i < 0) return
  const earlier = covered[i]!
  const changes = (x: A) => {
    if (x.said !== true || x.at === undefined || x.at <= out[i]!.at!) return false
    const later = coveredBy(sentencesOf(x.content), query, like, kinds, purpose)
    return (later.cued.size > 0 || later.named.length > 0) && updates(earlier, later)
  }
  const below = out.findIndex((x, at) => at >= n && changes(x))
  const found = below >= 0 ? out.splice(below, 1)[0]! : lookup?.(out[i]!, earlier.sentence).find(changes)
  if (found === undefined) return
  Object.assign(out[i]!, { supersededBy: { at: found.at!, ...refOf(found) } })
  out.splice(i, 0, { ...found })
}
