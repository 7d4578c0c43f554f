import { tokenize } from "./tokenize.js"

/** Lower-case, collapse whitespace, strip leading/trailing `[\s,.:;!?-]`. */
export const normalizeText = (text: string): string =>
  text
    .toLowerCase()
    .replace(/\s+/g, " ")
    .replace(/^[\s,.:;!?-]+|[\s,.:;!?-]+$/g, "")

const CORRECTION_PREFIX =
  /^(?:actually|correction|i meant|no[,:]?\s+(?:it's|it is|that's|that is)|(?:that's|that is)\s+(?:wrong|incorrect|not right))(?=[\s,:-]|$)[,:-]?\s*/i

/** Removes an anchored leading correction marker; says whether there was one. */
export const stripCorrectionPrefix = (text: string): { readonly text: string; readonly wasCorrection: boolean } => {
  const m = CORRECTION_PREFIX.exec(text)
  return m === null ? { text, wasCorrection: false } : { text: text.slice(m[0].length), wasCorrection: true }
}

export const isCorrection = (text: string): boolean => stripCorrectionPrefix(normalizeText(text)).wasCorrection

/** normalize → strip correction prefix → normalize: two statements with the same key say the same thing. */
export const statementKey = (text: string): string => normalizeText(stripCorrectionPrefix(normalizeText(text)).text)

/** The slot a statement fills and the value it gives it ("fact:my city" = "berlin"). */
export interface CanonicalSlot {
  readonly key: string
  /** For a fact, what follows the slot; for a policy, always or never; for a preference, the preferred thing (its key). */
  readonly value: string
}

/**
 * The slot a statement fills (REFERENCE-BEHAVIOUR 4.2) and its value, or null when no rule applies
 * (additive, never supersedes anything).
 */
export const canonicalSlot = (content: string): CanonicalSlot | null => {
  if (content.trim() === "") return null
  const cleaned = statementKey(content)
  const lives = /^i(?: live| am based| ?'m based) in\s+(.+)$/.exec(cleaned)
  if (lives !== null) return { key: "fact:i live in", value: lives[1]! }
  const works = /^i work (?:at|for)\s+(.+)$/.exec(cleaned)
  if (works !== null) return { key: "fact:i work at", value: works[1]! }
  const pref = /^(?:i|we)\s+prefer\s+(?:to\s+(?:use|have)\s+)?(?:using\s+)?(.+)$/.exec(cleaned)
  if (pref !== null) {
    const head = tokenize(pref[1]!)[0]
    return head === undefined ? null : { key: `preference:${head}`, value: head }
  }
  const policy = /^(?:please\s+)?(always|never|don'?t(?:\s+ever)?|do not)\s+(use|do|make|keep|write)\s+(.+)$/.exec(cleaned)
  if (policy !== null) {
    const head = tokenize(policy[3]!)[0]
    return head === undefined ? null : { key: `policy:${policy[2]}:${head}`, value: policy[1] === "always" ? "always" : "never" }
  }
  // A question states nothing ("the inductive step is faulty?").
  const fact = /\?\s*$/.test(content) ? null : /^(.+?)\s+(?:is|was|are|were)\s+(.+)$/.exec(cleaned)
  if (fact !== null) {
    const left = normalizeText(fact[1]!)
    if (left !== "" && left.split(" ").length <= 8 && namesASlot(left) && statesAValue(fact[2]!)) return { key: `fact:${left}`, value: normalizeText(fact[2]!) }
  }
  return null
}

/** The slot a statement fills (REFERENCE-BEHAVIOUR 4.2), or null when no rule applies. */
export const canonicalKeyForContent = (content: string): string | null => canonicalSlot(content)?.key ?? null

const wordsOf = (value: string): string => value.replace(/[^\p{L}\p{N}\s]/gu, " ").trim().split(/\s+/).join(" ")

/** `short`'s words begin `long`'s, punctuation aside ("new york" of "new york city", "berlin" of "berlin, near the river"). */
const wordPrefix = (short: string, long: string): boolean => {
  const a = wordsOf(short)
  const b = wordsOf(long)
  return b === a || b.startsWith(a + " ")
}

/**
 * Whether the later statement says again what the earlier one said of the same slot, in other words: the
 * same value, or one value the other with more words ("berlin" / "berlin, near the river"), the same
 * policy either way ("always use tabs" / "always use tabs, please"), the same preferred thing (a
 * preference's key is what is preferred). A restatement supersedes nothing.
 */
export const restates = (earlier: CanonicalSlot | null, later: CanonicalSlot | null): boolean =>
  earlier !== null && later !== null && earlier.key === later.key &&
  (wordPrefix(earlier.value, later.value) || wordPrefix(later.value, earlier.value))

// A subject that is only a pronoun or a demonstrative names no slot: "it is…", "this is…" say anything.
const NO_SLOT = /^(?:it|this|that|these|those|there|here|which|what|everything|something|nothing|anything|everyone|someone|he|she|they|we|you|i)$/

// Nor does a clause standing where the subject would be ("i want to make sure my tests are…", "what i need
// is…", "how it works is…"): a slot's subject is a noun phrase, with no person doing anything in it.
const CLAUSE_IN_SUBJECT = /(?:^|\s)(?:i|i'm|i've|i'd|i'll|we|we're|we've|you|you're|he|she|they|they're|it|if|when|whether|because|how|why|what|who|do|does|did|can|could|would|should|will|want|need|think|hope|know|make sure)(?=\s|$)/

const namesASlot = (left: string): boolean => !NO_SLOT.test(left) && !CLAUSE_IN_SUBJECT.test(left)

// What follows "is" in a slot statement is a value ("Python", "8080", "down", "on Friday"), not a clause
// about the subject ("throwing an error when I submit", "not submitting"): those never supersede anything.
const MAX_VALUE_WORDS = 8
const CLAUSE_START = /^(?:not|no longer|still|also|just|being|getting|going|so|too|very|really|kind of|sort of|supposed|able|trying|starting|using|to|\w+ing)\b/

// How well or how much ("pretty straightforward", "much clearer", "properly optimized", "moderately elongated")
// is a judgement or a description, not a value; how often is a value ("weekly", "monthly").
const DEGREE = /^(?:pretty|much|quite|rather|fairly|extremely|super|somewhat|totally|fully|a bit|a little|kinda|well|(?!(?:hourly|daily|nightly|weekly|biweekly|monthly|quarterly|yearly|early|only|july|italy)\b)\w+ly)\b/

// Something done to the subject ("the token is stored securely", "removed from the collection", "optimized
// for performance") states no value, unless a number or a day says what ("scheduled for Friday", "set to 8080").
const DONE_TO = /^(?:\w+ed|done|made|set|kept|held|sent|put|built|written|taken|given|shown|known|seen)\b/
const SAYS_WHEN_OR_HOW_MUCH =
  /\d|\b(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|today|tomorrow|tonight|january|february|march|april|may|june|july|august|september|october|november|december)\b/

// A judgement ("my solution is correct", "the inductive step is clearer now") is no value of a slot.
const JUDGEMENT = /^(?:correct|incorrect|right|wrong|true|false|complete|done|fine|good|great|ok|okay|clear|clearer|unclear|sound|valid|invalid|faulty|straightforward|easy|hard|difficult|confusing|working|broken|better|worse|same|different|possible|impossible|important|necessary|enough|optimal|efficient|secure|robust|reliable|effective|comprehensive|accurate|helpful|useful|perfect|bad|nice|excellent|solid|reasonable|appropriate|ideal|simple|complex|complicated|tricky|challenging|interesting|consistent|sufficient|insufficient|adequate)\b/

// Nor is a quotation, a formula, a point or a sequence ("the error message is "jwt expired"", "the derivative
// is \( 3x^2 \)", "the vertex is (2, 5)", "the series is 3, 7, 11, ..."): what a chat quotes or works out differs from one problem to the
// next, and a later one is another problem, not a new value. A URL is a value ("the endpoint is https://…?v=2").
const NOTATION = /["“”]|[=^{}\\]|\(\s*-?\d|\d,\s+\d|\.\.\.|…/

const statesAValue = (rest: string): boolean => {
  const value = normalizeText(rest)
  return value !== "" && value.split(" ").length <= MAX_VALUE_WORDS && !CLAUSE_START.test(value) && !JUDGEMENT.test(value) && !DEGREE.test(value) &&
    !(DONE_TO.test(value) && !SAYS_WHEN_OR_HOW_MUCH.test(value)) && !NOTATION.test(value.replace(/\S+:\/\/\S+/g, ""))
}

const family = (key: string): string => key.split(":", 1)[0]!

/**
 * Whether a new statement supersedes an old one (REFERENCE-BEHAVIOUR 4.3): the same key always does;
 * otherwise only an explicit correction of a preference/policy of the same family, within `window`
 * messages after it (distance null: not in the same session → never).
 */
export const correctionSupersedes = (
  newKey: string | null,
  newIsCorrection: boolean,
  oldKey: string | null,
  distance: number | null,
  window = 3
): boolean => {
  if (newKey === null || oldKey === null) return false
  if (newKey === oldKey) return true
  if (!newIsCorrection || distance === null) return false
  const f = family(newKey)
  if (f !== family(oldKey) || (f !== "preference" && f !== "policy")) return false
  return distance > 0 && distance <= window
}
