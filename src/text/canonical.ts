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

/**
 * The slot a statement fills (REFERENCE-BEHAVIOUR 4.2), or null when no rule applies (additive, never
 * supersedes anything).
 */
export const canonicalKeyForContent = (content: string): string | null => {
  if (content.trim() === "") return null
  const cleaned = statementKey(content)
  if (/^i(?: live| am based| ?'m based) in\s+/.test(cleaned)) return "fact:i live in"
  if (/^i work (?:at|for)\s+/.test(cleaned)) return "fact:i work at"
  const pref = /^(?:i|we)\s+prefer\s+(?:to\s+(?:use|have)\s+)?(?:using\s+)?(.+)$/.exec(cleaned)
  if (pref !== null) {
    const head = tokenize(pref[1]!)[0]
    return head === undefined ? null : `preference:${head}`
  }
  const policy = /^(?:please\s+)?(?:always|never|don'?t(?:\s+ever)?|do not)\s+(use|do|make|keep|write)\s+(.+)$/.exec(cleaned)
  if (policy !== null) {
    const head = tokenize(policy[2]!)[0]
    return head === undefined ? null : `policy:${policy[1]}:${head}`
  }
  // A question states nothing ("the inductive step is faulty?").
  const fact = /\?\s*$/.test(content) ? null : /^(.+?)\s+(?:is|was|are|were)\s+(.+)$/.exec(cleaned)
  if (fact !== null) {
    const left = normalizeText(fact[1]!)
    if (left !== "" && left.split(" ").length <= 8 && namesASlot(left) && statesAValue(fact[2]!)) return `fact:${left}`
  }
  return null
}

// A subject that is only a pronoun or a demonstrative names no slot: "it is…", "this is…" say anything.
const NO_SLOT = /^(?:it|this|that|these|those|there|here|which|what|everything|something|nothing|anything|everyone|someone|he|she|they|we|you|i)$/

const namesASlot = (left: string): boolean => !NO_SLOT.test(left)

// What follows "is" in a slot statement is a value ("Python", "8080", "down", "on Friday"), not a clause
// about the subject ("throwing an error when I submit", "not submitting"): those never supersede anything.
const MAX_VALUE_WORDS = 8
const CLAUSE_START = /^(?:not|no longer|still|also|just|being|getting|going|so|too|very|really|kind of|sort of|supposed|able|trying|starting|using|\w+ing)\b/

// A judgement ("my solution is correct", "the inductive step is clearer now") is no value of a slot.
const JUDGEMENT = /^(?:correct|incorrect|right|wrong|true|false|complete|done|fine|good|great|ok|okay|clear|clearer|unclear|sound|valid|invalid|faulty|straightforward|easy|hard|difficult|confusing|working|broken|better|worse|same|different|possible|impossible|important|necessary|enough)\b/

const statesAValue = (rest: string): boolean => {
  const value = normalizeText(rest)
  return value !== "" && value.split(" ").length <= MAX_VALUE_WORDS && !CLAUSE_START.test(value) && !JUDGEMENT.test(value)
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
