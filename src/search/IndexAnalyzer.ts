// The analyzer of the retrieval indexes: the shared BM25 tokens (tokenize.ts, the reference's stopwords),
// each reduced by the Porter (1980) stemmer, so "camping", "camped" and "camp" meet. Measured on LoCoMo
// (bench/locomo.ts) before it was adopted.
import { tokenize } from "../text/tokenize.js"

const isConsonant = (w: string, i: number): boolean => {
  const c = w[i]
  if (c === "a" || c === "e" || c === "i" || c === "o" || c === "u") return false
  if (c === "y") return i === 0 ? true : !isConsonant(w, i - 1)
  return true
}

// m: the number of VC sequences in w[0, end).
const measure = (w: string, end: number): number => {
  let n = 0
  let i = 0
  while (i < end && isConsonant(w, i)) i++
  while (i < end) {
    while (i < end && !isConsonant(w, i)) i++
    if (i >= end) break
    n++
    while (i < end && isConsonant(w, i)) i++
  }
  return n
}

const hasVowel = (w: string, end: number): boolean => {
  for (let i = 0; i < end; i++) if (!isConsonant(w, i)) return true
  return false
}

const doubleConsonant = (w: string, end: number): boolean =>
  end >= 2 && w[end - 1] === w[end - 2] && isConsonant(w, end - 1)

// cvc: consonant-vowel-consonant ending, the last not w, x or y.
const cvc = (w: string, end: number): boolean => {
  if (end < 3 || !isConsonant(w, end - 1) || isConsonant(w, end - 2) || !isConsonant(w, end - 3)) return false
  const c = w[end - 1]
  return c !== "w" && c !== "x" && c !== "y"
}

// Replaces suffix by replacement when the stem before it has measure > min.
const replaceIf = (w: string, suffix: string, replacement: string, min: number): string | null => {
  if (!w.endsWith(suffix)) return null
  const stem = w.length - suffix.length
  return measure(w, stem) > min ? w.slice(0, stem) + replacement : w
}

const STEP2: ReadonlyArray<readonly [string, string]> = [
  ["ational", "ate"], ["tional", "tion"], ["enci", "ence"], ["anci", "ance"], ["izer", "ize"], ["bli", "ble"],
  ["alli", "al"], ["entli", "ent"], ["eli", "e"], ["ousli", "ous"], ["ization", "ize"], ["ation", "ate"],
  ["ator", "ate"], ["alism", "al"], ["iveness", "ive"], ["fulness", "ful"], ["ousness", "ous"], ["aliti", "al"],
  ["iviti", "ive"], ["biliti", "ble"], ["logi", "log"]
]
const STEP3: ReadonlyArray<readonly [string, string]> = [
  ["icate", "ic"], ["ative", ""], ["alize", "al"], ["iciti", "ic"], ["ical", "ic"], ["ful", ""], ["ness", ""]
]
const STEP4 = [
  "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou", "ism", "ate",
  "iti", "ous", "ive", "ize"
]

/** The Porter stemmer (M.F. Porter, 1980) on a lower-cased word. Words of 1-2 letters and numbers stay. */
export const porterStem = (word: string): string => {
  if (word.length <= 2 || /[^a-z]/.test(word)) return word
  let w = word
  // Step 1a
  if (w.endsWith("sses")) w = w.slice(0, -2)
  else if (w.endsWith("ies")) w = w.slice(0, -2)
  else if (!w.endsWith("ss") && w.endsWith("s")) w = w.slice(0, -1)
  // Step 1b
  let again = false
  if (w.endsWith("eed")) {
    if (measure(w, w.length - 3) > 0) w = w.slice(0, -1)
  } else if (w.endsWith("ed") && hasVowel(w, w.length - 2)) {
    w = w.slice(0, -2)
    again = true
  } else if (w.endsWith("ing") && hasVowel(w, w.length - 3)) {
    w = w.slice(0, -3)
    again = true
  }
  if (again) {
    if (w.endsWith("at") || w.endsWith("bl") || w.endsWith("iz")) w += "e"
    else if (doubleConsonant(w, w.length) && !/[lsz]$/.test(w)) w = w.slice(0, -1)
    else if (measure(w, w.length) === 1 && cvc(w, w.length)) w += "e"
  }
  // Step 1c
  if (w.endsWith("y") && hasVowel(w, w.length - 1)) w = w.slice(0, -1) + "i"
  // Step 2
  for (const [s, r] of STEP2) {
    const out = replaceIf(w, s, r, 0)
    if (out !== null) {
      w = out
      break
    }
  }
  // Step 3
  for (const [s, r] of STEP3) {
    const out = replaceIf(w, s, r, 0)
    if (out !== null) {
      w = out
      break
    }
  }
  // Step 4
  for (const s of STEP4) {
    if (!w.endsWith(s)) continue
    const stem = w.length - s.length
    if (measure(w, stem) > 1 && (s !== "ion" || /[st]$/.test(w.slice(0, stem)))) w = w.slice(0, stem)
    break
  }
  // Step 5a
  if (w.endsWith("e")) {
    const m = measure(w, w.length - 1)
    if (m > 1 || (m === 1 && !cvc(w, w.length - 1))) w = w.slice(0, -1)
  }
  // Step 5b
  if (measure(w, w.length) > 1 && doubleConsonant(w, w.length) && w.endsWith("l")) w = w.slice(0, -1)
  return w
}

const cache = new Map<string, string>()

/** Index terms of a text: the BM25 tokens (stopwords dropped), stemmed. */
export const analyze = (text: string): Array<string> =>
  tokenize(text).map((t) => {
    let s = cache.get(t)
    if (s === undefined) {
      s = porterStem(t)
      if (cache.size < 200_000) cache.set(t, s)
    }
    return s
  })
