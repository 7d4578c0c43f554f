// Attribute slots without an LLM: the values people update (money, percentages, quantities with units,
// counts of things, scores, dates, times of day, versions) and what each is the value of ("monthly book
// budget", "login api response time", "commits"), read from the words around the value. Two statements of
// one attribute with different values are an update; update cues ("now", "increased to") are evidence only.
import { NUMBER_WORD, numberWordValue } from "./numberWords.js"

/** What kind of value a mention is: statements of one attribute compare values of one kind. */
export type ValueKind = "money" | "percent" | "quantity" | "count" | "score" | "date" | "time" | "version"

export interface AttributeMention {
  /** What the value is of, as words: "monthly book budget". */
  readonly attribute: string
  /** The attribute's last word, singular: "budget". */
  readonly head: string
  /** Its other words, singular and sorted: ["book", "monthly"]. */
  readonly modifiers: ReadonlyArray<string>
  /** The word just before the attribute's words, when it is one more name word ("strong" of "strong induction quiz score"). */
  readonly qualifier: string | null
  /** Whose it is when the text says ("scott", "repo", the "Stove" of "- **Stove**: 30 inches wide"); null: the speaker's or unsaid. */
  readonly holder: string | null
  readonly kind: ValueKind
  /** The unit the value is in ("ms", "mb", "$", "commit"), so 150 MB and 150 ms never meet. */
  readonly unit: string
  /** The value, normalised: "120ms" -> "120 ms", "$1,250" -> "$ 1250". */
  readonly value: string
  /** The value it changed from, normalised, when the text says ("from 75% to 88%": "75%"); else null. */
  readonly from: string | null
  /** An update cue stands next to it ("has reached", "increased to", "now"). */
  readonly cue: boolean
  /**
   * The text states the value as the attribute's ("my budget is $50", "a budget of $50", "my $50 budget",
   * "has reached 165 commits"), rather than mentioning it in passing ("paid $300 for a course").
   */
  readonly stated: boolean
  /** Where the value is in the text. */
  readonly start: number
  readonly end: number
}

// Words that are never part of an attribute's name.
const FUNCTION_WORDS = new Set(
  ("a an the and or but if then so than that this these those is am are was were be been being do does did " +
    "have has had having will would shall should can could may might must i me my mine we us our you your he him his " +
    "she her it its they them their what which who whom whose when where why how of at by for with about against " +
    "between into through during before after above below to from up down in out on off over under again once here " +
    "there all any both each few more most other some such no nor not only own same too very s t just also as per " +
    "ve m re ll d around approximately roughly nearly almost about currently now recently already still even yet " +
    "new old latest current recent total average averaging averaged overall initial original final full extra another " +
    "like got get gets getting spent spend spending spends set sets setting made make making reached reach reaches " +
    "hit hits increased increase increases decreased decrease decreases dropped drop drops rose rise rises risen grew grow grown " +
    "improved improve improves improving changed change changes moved move moves adjusted adjust extended extend " +
    "shortened shorten updated update raised raise lowered lower bumped cut reduced reduce boosted boost upgraded upgrade " +
    "doubled tripled expanded expand went go goes stands stand sits sit rated rate measured measure measures recorded " +
    "showed shows show scored achieved achieve earned earn earning allocated allocate budgeted paying pay " +
    "costs cost costing priced uses using used running runs run taking takes took completed complete finished " +
    "uploaded upload attended attend invited invite planned plan planning scheduled schedule booked " +
    "starting since until due coming including included includes confirmed expected remaining left going checked " +
    "i've i'm i'd i'll we've we're it's that's there's he's she's they're you've aside well " +
    "help trying try want wanted need needed think thought wondering know knew considering seems seem able " +
    "really kinda pretty quite much many lot lots bit little one ones something thing things way " +
    // How a score went, not what it is of ("scored 4/5 correct on ...").
    "correct correctly incorrect wrong scoring").split(" ")
)

// Update cues, as evidence that a statement replaces an earlier one.
const CUE = /\b(now|changed|moved|increased|decreased|raised|lowered|dropped|rose|risen|grew|grown|improved|adjusted|extended|shortened|updated|upgraded|reached|has reached|no longer|instead|switched|bumped|boosted|reduced|doubled|expanded|new)\b/i

const MONTH = "(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
const MEASURE_UNITS =
  "times (?:a|per|each) (?:day|week|month|year)|times (?:daily|weekly|monthly|yearly)|ms|milliseconds?|secs?|seconds?|s|minutes?|mins?|hours?|hrs?|h|days?|weeks?|months?|years?|yrs?|" +
  "kb|mb|gb|tb|kib|mib|gib|kbps|mbps|gbps|kcal|calories|lbs?|pounds|kg|g|mg|mg/dl|mmhg|km|miles?|mi|m|cm|mm|" +
  "inches|inch|ft|feet|sq ft|fps|rpm|qps|rps|units|cores?|vcpus?|requests/minute|requests per minute|req/s|" +
  "requests/second|requests per second|words|pages?|points?|steps?|reps?|sets|laps|bpm|°f|°c|degrees"

// A rate after a measure: "a week", "per day", "weekly".
const RATE = "\\s+(?:a|an|per|each|every)\\s+(?:day|night|week|month|year)(?![a-z])|\\s+(?:daily|nightly|weekly|monthly|yearly)(?![a-z])"

// Money in a currency code ("USD 40", "40 eur"), and a version named as one ("v2.1").
const CURRENCY_CODE = "(?:usd|cad|eur|gbp|aud)"
const VERSION_LEAD = "v\\d"

// One pattern per kind, tried in this order at each position, with what a match that starts at a letter starts with
// (null: none does). The type asks each pattern for it, so a letter-led pattern cannot be added without its start.
const VALUE_PATTERNS: ReadonlyArray<readonly [ValueKind, RegExp, string | null]> = [
  ["date", new RegExp(`\\b${MONTH}\\.?\\s+\\d{1,2}(?:st|nd|rd|th)?(?:,?\\s+\\d{4})?\\b|\\b\\d{1,2}(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH}(?:,?\\s+\\d{4})?\\b|\\b\\d{4}-\\d{2}-\\d{2}\\b`, "iy"), MONTH],
  ["money", new RegExp(`(?:[$€£]\\s?|\\b${CURRENCY_CODE}\\s?)\\d[\\d,]*(?:\\.\\d+)?(?![\\d^_{}\\\\])(?:\\s?(?:k|m|million|billion)\\b)?(?:\\s?${CURRENCY_CODE}\\b)?|\\b\\d[\\d,]*(?:\\.\\d+)?\\s?(?:dollars|euros|bucks)\\b`, "iy"), CURRENCY_CODE],
  ["percent", /\b\d+(?:\.\d+)?\s?(?:%|percent\b)/iy, null],
  ["version", new RegExp(`\\b${VERSION_LEAD}+(?:\\.\\d+)+\\b|\\b\\d+\\.\\d+\\.\\d+\\b`, "iy"), VERSION_LEAD],
  ["time", /\b\d{1,2}(?::\d{2})?\s?(?:am|pm|a\.m\.|p\.m\.)(?![a-z])/iy, null],
  // "4/5 correct", "19/20 on the quiz"; not a pair with a unit ("138/85 mmHg"), a fraction of a measure, or "24/7".
  ["score", new RegExp(`\\b(?!24\\/7\\b)\\d+\\s?\\/\\s?\\d+\\b(?!\\s?\\d)(?!\\s?(?:${MEASURE_UNITS}|cups?|tbsp|tsp|tablespoons?|teaspoons?)(?![a-z0-9]))`, "iy"), null],
  // "5.5 hours", "138/85 mmHg", "twenty minutes", "three times a week".
  // How often is part of the unit: "10 hours weekly" and "2 hours daily" are not one value.
  ["quantity", new RegExp(`\\b(?:\\d[\\d,]*(?:\\.\\d+)?(?:\\/\\d+)?\\s?|${NUMBER_WORD}\\s+)(?:${MEASURE_UNITS})(?![a-z0-9])(?:${RATE})?`, "iy"), NUMBER_WORD],
  // A year ("2024 Q1") counts nothing.
  ["count", new RegExp(`\\b(?!(?:19|20)\\d{2}\\b)(?:\\d[\\d,]*(?:\\.\\d+)?|${NUMBER_WORD})(?:-[a-z]+)?(?=\\s+[a-z])`, "iy"), NUMBER_WORD]
]

const UNIT_ALIASES: Record<string, string> = {
  milliseconds: "ms", millisecond: "ms", seconds: "s", second: "s", sec: "s", secs: "s", minutes: "min", minute: "min",
  mins: "min", hours: "h", hour: "h", hrs: "h", hr: "h", days: "day", weeks: "week", months: "month", years: "year",
  yrs: "year", yr: "year", lbs: "lb", pounds: "lb", calories: "kcal", miles: "mi", mile: "mi", inches: "in", inch: "in",
  feet: "ft", "requests per minute": "requests/minute", "requests per second": "requests/second", "req/s": "requests/second",
  pages: "page", points: "point", steps: "step", reps: "rep", cores: "core", vcpus: "vcpu", degrees: "°"
}

/** A plain English singular: "commits" -> "commit", "budgets" -> "budget", "boxes" -> "box". */
export const singular = (word: string): string => {
  if (word.length <= 3 || word.endsWith("ss") || word.endsWith("us") || word.endsWith("is")) return word
  if (word.endsWith("ies")) return word.slice(0, -3) + "y"
  if (/(?:ches|shes|xes|sses|zes)$/.test(word)) return word.slice(0, -2)
  if (word.endsWith("s")) return word.slice(0, -1)
  return word
}

const WORD = /\p{L}[\p{L}\p{N}'’-]*/gu

interface Token {
  readonly text: string
  readonly start: number
  readonly end: number
}

/** A word as attributes compare it: lower case, without accents ("Hôtel" meets "hotel"), no possessive 's. */
const foldWord = (word: string): string =>
  word.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase().replace(/’/g, "'").replace(/'s$/, "")

const tokensOf = (text: string): Array<Token> => [...text.matchAll(WORD)].map((m) => ({ text: foldWord(m[0]), start: m.index, end: m.index + m[0].length }))

// Adverbs are never part of an attribute, except how often it applies ("monthly budget", "daily limit").
const FREQUENCY = /^(?:hourly|daily|nightly|weekly|biweekly|monthly|quarterly|yearly|annually)$/
const contentWord = (w: string): boolean =>
  w.length > 1 && !FUNCTION_WORDS.has(w) && !/^\d/.test(w) && (!w.endsWith("ly") || FREQUENCY.test(w)) && !isFunctionVerbIng(w)

/** The -ing form of a verb that names no attribute ("adjusting", "increasing", "dropping" beside "adjust", "increase", "drop"). */
const isFunctionVerbIng = (w: string): boolean => {
  if (!w.endsWith("ing") || w.length < 6) return false
  const stem = w.slice(0, -3)
  return FUNCTION_WORDS.has(stem) || FUNCTION_WORDS.has(stem + "e") || (/(.)\1$/.test(stem) && FUNCTION_WORDS.has(stem.slice(0, -1)))
}

// A clause break between two positions: punctuation that ends a phrase.
const BREAK = /[.;:!?()[\]{}"“”]|,\s|\s[-–—]\s|\n/

/**
 * Up to three content words right after the value (its unit-like noun: "$700 budget ceiling", "90% accuracy").
 * How often is no noun: a trailing "monthly" is left out ("$450 monthly" names nothing).
 */
const wordsAfter = (text: string, tokens: ReadonlyArray<Token>, end: number): Array<Token> => {
  const out: Array<Token> = []
  let last = end
  for (const t of tokens) {
    if (t.start < end) continue
    if (BREAK.test(text.slice(last, t.start))) break
    if (!contentWord(t.text)) break
    out.push(t)
    last = t.end
    if (out.length === 3) break
  }
  while (out.length > 0 && FREQUENCY.test(out[out.length - 1]!.text)) out.pop()
  return out
}

// "5.5 hours of sleep", "$150 as an emergency fund": the thing a measure or an amount is of, or is.
const OF_OR_AS = /^\s+(?:of|as)\s+(?:(?:a|an|the|my|our|his|her|their|your)\s+)?/i

// "1GB as mentioned in the update", "$50, as we discussed": the value was said before, "as" names no thing.
const AS_SAID =
  /^,?\s+as\s+(?:(?:i|we|you)\s+)?(?:(?:previously|already|just|earlier|recently)\s+)?(?:mentioned|discussed|noted|said|stated|agreed|decided|updated|announced|confirmed|told|shared)\b/i

/** Whether the words right after a value say it was said before ("to 1GB as mentioned"). */
const saidBefore = (text: string, end: number): boolean => AS_SAID.test(text.slice(end, end + 40))

/** The words naming what the value measures or is, after "of" / "as" (none when no such phrase follows). */
const wordsNamed = (text: string, tokens: ReadonlyArray<Token>, end: number): Array<Token> => {
  const m = saidBefore(text, end) ? null : OF_OR_AS.exec(text.slice(end, end + 24))
  return m === null ? [] : wordsAfter(text, tokens, end + m[0].length)
}

// "$120 per week at Whole Foods", "$40 a month on streaming": where or on what an amount goes, after how often.
const AT_OR_ON = /^(?:\s+(?:per|a|an|each|every)\s+(?:day|night|week|month|year|session|visit|trip)|\s+(?:daily|nightly|weekly|monthly|yearly))?\s+(?:at|on|for)\s+(?:(?:a|an|the|this|that|my|our|his|her|their|your)\s+)?/i

/** The words naming where or on what an amount goes, after "at" / "on" / "for" (none when no such phrase follows). */
const wordsSpentOn = (text: string, tokens: ReadonlyArray<Token>, end: number, purposeOnly = false): Array<Token> => {
  const m = AT_OR_ON.exec(text.slice(end, end + 40))
  return m === null || (purposeOnly && !/\bfor\s/i.test(m[0])) ? [] : wordsAfter(text, tokens, end + m[0].length)
}

// Past participles between an attribute and its value are verbs ("checked on", "adjusted to").
const PARTICIPLE = /^[a-z]{2,}[^e]ed$/

// How many function words may stand between the attribute and its value ("… time, which has decreased to 120ms").
const MAX_GAP = 6

/** Up to three content words before the value, across at most MAX_GAP function words ("monthly book budget is $50"). */
const wordsBefore = (text: string, tokens: ReadonlyArray<Token>, start: number): Array<Token> => {
  const out: Array<Token> = []
  let gap = 0
  let next = start
  for (let i = tokens.length - 1; i >= 0; i--) {
    const t = tokens[i]!
    if (t.end > start) continue
    const between = text.slice(t.end, next)
    // A phrase break ends the attribute once it has begun; before that, only a comma may be crossed.
    if (out.length > 0 ? BREAK.test(between) : /[.;:!?()[\]{}\n]/.test(between)) break
    if (/\d/.test(between) || /\d\s?$/.test(text.slice(Math.max(0, t.start - 2), t.start))) break
    next = t.start
    if (contentWord(t.text) && !(out.length === 0 && PARTICIPLE.test(t.text))) {
      out.unshift(t)
      if (out.length === 3) break
    } else if (out.length > 0) {
      break
    } else if (++gap > MAX_GAP) {
      break
    }
  }
  return out
}

// A quantity's number (digits, a pair "138/85", or words) and its unit; a count's number and the "-page" it may carry.
const QUANTITY_PARTS = new RegExp(`^(?:(\\d[\\d,]*(?:\\.\\d+)?(?:\\/\\d+)?)\\s?|(${NUMBER_WORD})\\s+)(.+)$`)
const COUNT_PARTS = new RegExp(`^(\\d[\\d,]*(?:\\.\\d+)?|${NUMBER_WORD})(?:-([a-z]+))?$`)

// How often: "three times a week" and "3 times weekly" are both in "times/week".
const TIMES = /^times (?:(?:a|per|each) (day|week|month|year)|(daily|weekly|monthly|yearly))$/
const PERIOD_OF: Record<string, string> = { daily: "day", nightly: "night", weekly: "week", monthly: "month", yearly: "year" }
const RATE_PARTS = /^(.+?)\s+(?:(?:a|an|per|each|every)\s+(day|night|week|month|year)|(daily|nightly|weekly|monthly|yearly))$/

/** "1,250" -> "1250", "twenty-five" -> "25". */
const numberOf = (said: string): string => String(numberWordValue(said) ?? said.replace(/,/g, ""))

const normalizeValue = (kind: ValueKind, raw: string): { value: string; unit: string } => {
  const text = raw.toLowerCase().replace(/\s+/g, " ").trim()
  switch (kind) {
    case "money": {
      const symbol = /[€£]|eur|gbp/.test(text) ? (/€|eur/.test(text) ? "€" : "£") : "$"
      const n = text.match(/\d[\d,]*(?:\.\d+)?/)![0].replace(/,/g, "")
      const scale = /\bk\b|\d\s?k$/.test(text) ? "k" : /\bm\b|million/.test(text) ? "m" : ""
      return { value: `${symbol}${n}${scale}`, unit: symbol }
    }
    case "percent":
      return { value: `${text.match(/\d+(?:\.\d+)?/)![0]}%`, unit: "%" }
    case "quantity": {
      const m = QUANTITY_PARTS.exec(text)!
      const times = TIMES.exec(m[3]!)
      const rate = times === null ? RATE_PARTS.exec(m[3]!) : null
      const base = rate !== null ? rate[1]! : m[3]!
      const per = rate === null ? "" : `/${rate[2] ?? PERIOD_OF[rate[3]!]!}`
      const unit = times !== null ? `times/${times[1] ?? PERIOD_OF[times[2]!]!}` : (UNIT_ALIASES[base] ?? base) + per
      return { value: `${numberOf(m[1] ?? m[2]!)} ${unit}`, unit }
    }
    case "count": {
      const m = COUNT_PARTS.exec(text)!
      return { value: numberOf(m[1]!), unit: m[2] !== undefined ? singular(m[2]) : "" }
    }
    case "score":
      return { value: text.replace(/\s/g, ""), unit: `/${text.split("/")[1]!.trim()}` }
    case "date":
      return { value: text.replace(/(\d)(?:st|nd|rd|th)\b/, "$1").replace(/,/g, ""), unit: "date" }
    case "time":
      return { value: text.replace(/\./g, "").replace(/\s/g, ""), unit: "time" }
    case "version":
      return { value: text.replace(/^v/, ""), unit: "version" }
  }
}

const describe = (words: ReadonlyArray<Token>) => {
  const names = words.map((t) => t.text)
  const stems = names.map(singular)
  const head = stems[stems.length - 1]!
  return { attribute: names.join(" "), head, modifiers: [...new Set(stems.slice(0, -1))].sort() }
}

// The words between an attribute and its value that make the value the attribute's.
const LINK = /^[\s,]*(?:which|that)?\s*(?:(?:is|are|was|were|has|have|had|been|be|now|currently|still|just|finally|recently|already|officially|also|only|up|down|being|got|gotten|rated|measured|estimated|sitting|standing|running|holding|averaging|set)\s+)*(?:(?:at|of|to|now|reached|hit|hits|reaches|stands at|sits at|totals?|totaling|averaging|around|about|approximately|roughly|nearly|=|:|(?:increased|decreased|raised|lowered|dropped|rose|grown|grew|improved|adjusted|extended|shortened|updated|moved|changed|bumped|boosted|reduced|cut|set|upgraded|expanded|pushed|postponed|rescheduled|fell|climbed|jumped|went up|went down)(?:\s+(?:to|by|at|for))?)\s*)*[\s,]*(?:from\s+)?$|^\s*(?:is|are|was|were)\s*$|^\s*:\s*$/i
// Before a value that comes first: a possessive or article ("my $700 budget", "a 5-page guide", "the 90% accuracy").
const POSSESSIVE_BEFORE = /\b(?:my|our|his|her|their|its|the|new|current|[\p{L}]+['’]s)\s+(?:new\s+|current\s+|updated\s+|total\s+|monthly\s+|weekly\s+|annual\s+|daily\s+)?$/iu
// Counts that say what something has: "has reached 165 commits", "I have 28 people coming".
const HAVE_BEFORE = /\b(?:has|have|had|now|reached|hit|totals?|up to|down to|increased to|decreased to|grown to|dropped to)\s+(?:now\s+|reached\s+|about\s+|around\s+|nearly\s+|over\s+)?$/i

const ANY_NUMBER_WORD = new RegExp(`\\b${NUMBER_WORD}\\b`, "i")

const HOLDER = /\b([A-Z][a-z]+)'s\s+$|\bthe\s+([a-z]+)'s\s+$/
// A list item or a bold heading that opens with a label ("- **Stove**: 30 inches wide", "* Fridge: 36 inches")
// speaks of it ("Good news: …" is no label: no list, no heading).
const LABEL = /^\s*(?:[-*•]\s+(?:\*\*)?(\p{L}[\p{L}\p{N}' -]{0,30}?)(?:\*\*)?|\*\*(\p{L}[\p{L}\p{N}' -]{0,30}?)\*\*)\s*:\s/u

// The loops below look at every character of every text they get: by code, not through one-character
// strings and regular expressions (/[$€£a-z]/i and /[a-z0-9.,/]/i, which these say exactly).
const isLetter = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90)
const isDigit = (c: number): boolean => c >= 48 && c <= 57
/** Where a value can start: a digit, a letter or a currency sign ($, €, £). */
const valueStart = (c: number): boolean => isDigit(c) || isLetter(c) || c === 36 || c === 0x20ac || c === 0xa3
/** A character a value may not follow: inside a word or a number, or after "/" ("1/2 cup"). */
const joinsValue = (c: number): boolean => isLetter(c) || isDigit(c) || c === 46 || c === 44 || c === 47
// Whether a value of VALUE_PATTERNS may start at a letter, in one test of what those starting at a letter start with
// (a month, a currency code, "v" and a digit, a number word). Most words start none, and one test spares the eight.
const LETTER_VALUE = new RegExp(`\\b(?:${[...new Set(VALUE_PATTERNS.flatMap(([, , lead]) => lead ?? []))].join("|")})`, "iy")
/** Whether a value of VALUE_PATTERNS may start at text[i] (its code `c`), at the start of a word. */
const mayStartValue = (text: string, i: number, c: number): boolean => {
  if (!isLetter(c)) return true
  LETTER_VALUE.lastIndex = i
  return LETTER_VALUE.test(text)
}

/** The attribute mentions of a text, in order (a value whose attribute cannot be read is left out). */
export const attributeMentions = (text: string): Array<AttributeMention> => {
  if (!/\d/.test(text) && !ANY_NUMBER_WORD.test(text)) return []
  const tokens = tokensOf(text)
  const out: Array<AttributeMention> = []
  let previousEnd = -1
  // Where a "from X to Y" began: Y's attribute is read before it; and X, normalised.
  let anchor = -1
  let fromValue: string | null = null
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (!valueStart(c)) continue
    // A value starts a word: never inside one, nor after "/" ("1/2 cup" is no count of 2).
    if ((i > 0 && joinsValue(text.charCodeAt(i - 1))) || !mayStartValue(text, i, c)) continue
    for (const [kind, pattern] of VALUE_PATTERNS) {
      pattern.lastIndex = i
      const m = pattern.exec(text)
      if (m === null || m[0] === "") continue
      const start = i
      const end = i + m[0].length
      if (start < previousEnd) break
      // "from 75% to 88%": the earlier value is what it was; the later one is the statement.
      const after = text.slice(end, end + 40)
      const from = /\bfrom\s+$/i.exec(text.slice(Math.max(0, start - 8), start))
      if (from !== null && new RegExp(`^\\s+to\\s+(?:[$€£]|\\d|${MONTH}\\b)`, "i").test(after)) {
        anchor = start - 8 + Math.max(0, 8 - start) + from.index
        fromValue = normalizeValue(kind, m[0]).value
        previousEnd = end
        break
      }
      const { value, unit } = normalizeValue(kind, m[0])
      let words = wordsAfter(text, tokens, end)
      const named = kind === "money" || kind === "quantity" ? wordsNamed(text, tokens, end) : []
      let countUnit = unit
      if (kind === "count") {
        // The counted thing is the attribute: "165 commits", "28 people", "a 5-page mentoring guide".
        if (words.length === 0) break
        if (countUnit === "") {
          words = words.slice(0, 2)
          // "150 commits merged", "12 players attending": the counted thing, not what happened to it.
          if (words.length === 2 && /(?:ed|ing)$/.test(words[1]!.text)) words = words.slice(0, 1)
          countUnit = singular(words[words.length - 1]!.text)
        }
      } else if (named.length > 0) {
        words = named
      } else if (words.length === 0 || kind === "date" || kind === "time" || kind === "version" || kind === "quantity") {
        const before = wordsBefore(text, tokens, anchor >= 0 && start - anchor < 40 ? anchor : start)
        if (before.length > 0) words = before
        else if (kind === "date" || kind === "time" || kind === "version") words = []
        // Nothing names the amount itself ("I'm spending $120 per week at Whole Foods"): where it goes does; what a
        // measure is for ("8 hours weekly for this training"), not where it is spent ("3 hours a week at the gym").
        else if (kind === "money" || kind === "quantity") words = wordsSpentOn(text, tokens, end, kind === "quantity")
      }
      if (words.length === 0) {
        previousEnd = end
        break
      }
      const prefix = text.slice(Math.max(0, words[0]!.start - 30), words[0]!.start)
      const holder = HOLDER.exec(prefix)
      const label = holder === null ? LABEL.exec(text) : null
      // The attribute read before its value may have one more name word before it, beyond the three kept.
      const previous = words[0]!.start < start ? tokens.filter((t) => t.end <= words[0]!.start).pop() : undefined
      const qualifier =
        previous !== undefined && /^[\s-]*$/.test(text.slice(previous.end, words[0]!.start)) && contentWord(previous.text) && !PARTICIPLE.test(previous.text)
          ? singular(previous.text)
          : null
      const gapText = words[0]!.start >= end ? text.slice(end, words[0]!.start) : text.slice(words[words.length - 1]!.end, anchor >= 0 && start - anchor < 40 ? anchor : start)
      const before = text.slice(Math.max(0, (words[0]!.start >= end ? start : words[0]!.start) - 12), words[0]!.start >= end ? start : words[0]!.start)
      const stated =
        words[0]!.start >= end
          ? // value first: "my $700 budget", "a 5-page guide", "has reached 165 commits"
            POSSESSIVE_BEFORE.test(before) || (kind === "count" && HAVE_BEFORE.test(text.slice(Math.max(0, start - 30), start)))
          : // attribute first: "budget is $50", "budget of $50", "time has decreased to 120ms"
            LINK.test(gapText)
      out.push({
        ...describe(words),
        stated,
        qualifier,
        holder: holder !== null ? (holder[1] ?? holder[2]!).toLowerCase() : label !== null && label.index + label[0].length <= start ? foldWord((label[1] ?? label[2]!).trim()) : null,
        kind,
        unit: countUnit,
        value,
        from: anchor >= 0 ? fromValue : null,
        cue: CUE.test(words[0]!.start >= end ? text.slice(Math.max(0, start - 30), start) : gapText),
        start,
        end
      })
      previousEnd = end
      anchor = -1
      fromValue = null
      break
    }
  }
  return out
}

/** The slot key of a mention: kind, unit, head and modifiers (and the holder when the text names one). */
export const slotKey = (m: AttributeMention): string =>
  `attr:${m.kind}:${m.unit}:${[...m.modifiers, m.head].join(" ")}${m.holder !== null ? `@${m.holder}` : ""}`

/** Same attribute: same kind and unit, same head, and the modifiers of one are among the other's. */
export const sameAttribute = (a: AttributeMention, b: AttributeMention): boolean => {
  if (a.kind !== b.kind || a.unit !== b.unit || a.head !== b.head) return false
  if (a.holder !== null && b.holder !== null && a.holder !== b.holder) return false
  const [small, large] = a.modifiers.length <= b.modifiers.length ? [a, b] : [b, a]
  return small.modifiers.every((w) => large.modifiers.includes(w))
}

// The units of duration, as UNIT_ALIASES writes them.
const DURATION_UNITS = new Set(["ms", "s", "min", "h", "day", "week", "month", "year"])

// The units of data size: "512MB" raised to "1GB" is one setting's value.
const SIZE_UNITS = new Set(["kb", "mb", "gb", "tb", "kib", "mib", "gib"])

/**
 * Whether two units measure one thing: the same unit, two of duration (3.5 hours "extended by 30 minutes"), or two of
 * data size (a maxmemory of 512MB, then of 1GB).
 */
export const sameMeasure = (a: string, b: string): boolean =>
  a === b || (DURATION_UNITS.has(a) && DURATION_UNITS.has(b)) || (SIZE_UNITS.has(a) && SIZE_UNITS.has(b))

/** Whether a text says a quantity in a unit of the measure of `like`, whatever it is of ("extended by 30 minutes"). */
export const saysMeasure = (text: string, like: AttributeMention): boolean =>
  like.kind === "quantity" && [...valuesIn(text)].some((v) => v.startsWith("quantity:") && sameMeasure(v.slice(v.indexOf(" ") + 1), like.unit))

// Verb forms that are read as an attribute's head ("paid $300", "limiting crypto to 5%"): never a slot.
const VERB_HEAD = /^(?:[a-z]+[^e]ed|paid|sent|spent|save|saving|missing|every|made|got|gave|left|took|bought|sold|lost|won|kept|held)$/

/** Whether the attribute is a thing, not a verb read as one ("paid $300", "I have $3,000 saved", "saving"). */
export const namesThing = (m: AttributeMention): boolean => !VERB_HEAD.test(m.head) && !(m.head.endsWith("ing") && m.modifiers.length === 0)

/** Whether a mention can name a slot: its value is stated as the attribute's, and the attribute is a thing. */
export const isSlot = (m: AttributeMention): boolean => m.stated && namesThing(m)

const contextWords = (sentence: string, m: AttributeMention): Set<string> => {
  const own = new Set([m.head, ...m.modifiers])
  const out = new Set<string>()
  for (const t of tokensOf(sentence)) {
    const w = singular(t.text)
    if (contentWord(t.text) && !own.has(w)) out.add(w)
  }
  return out
}

/** Share of the smaller context's words the other one has too. */
const overlap = (a: Set<string>, b: Set<string>): number => {
  if (a.size === 0 || b.size === 0) return 0
  let shared = 0
  for (const w of a) if (b.has(w)) shared++
  return shared / Math.min(a.size, b.size)
}

/** Context overlap from which two statements of one attribute are about the same thing, with an update cue. */
export const CONTEXT_OVERLAP = 0.3
/** ... and without one. */
export const CONTEXT_OVERLAP_NO_CUE = 0.6

// A value someone aims for is not the attribute's value ("reduce it to under 200ms", "my goal is 95%").
// Nor is one supposed ("if I have a formula with 3 connectives", "what if it were $80").
const GOAL = /\b(?:goals?|targets?|aim(?:ing)?|want(?:ing)?|hop(?:e|ing)|plan(?:ning)?|trying|reduce|reach|under|below|above|at least|at most|up to|over|more than|less than|if|suppose|assume|say|example|e\.g)\b[^.;!?]{0,60}$/i

/** Whether the value is one someone aims for, not one that holds. */
export const isGoal = (m: AttributeMention, text: string): boolean => GOAL.test(text.slice(Math.max(0, m.start - 60), m.start))

// The narrow reading, within the value's own clause: only words that make it wished for or supposed ("but I want
// to increase it to 7 hours", "it was supposed to be 15 guests"). "Trying to" and "up to" open many values said
// in passing ("I'm trying to speed up the API, which is now at 120ms").
// A question how to set it asks for the value, it does not state it ("How can I set the max memory to 2GB?"),
// unless the clause says it already holds ("how can I keep it up now that I've increased it to 25 minutes").
const AIMED =
  /\b(?:want(?:ed|ing)?|would like|i'd like|we'd like|aim(?:ed|ing)?|supposed to|meant to)\b[^,;:.!?]*$|\bhow (?:(?:can|do|should|could|would) (?:i|we)|to) (?:set|change|increase|decrease|raise|lower|reduce|push|improve|boost|adjust|configure|reach|cut|move|extend|update|upgrade)\b(?:(?!\b(?:now|since|after|given|because|as|already)\b)[^,;:.!?])*\b(?:to|at)\s+$/i

/** Whether the clause before `start` makes what is said there wished for or supposed ("but I want to increase it to 7 hours"). */
export const aimedAt = (text: string, start: number): boolean => AIMED.test(text.slice(Math.max(0, start - 60), start))

/**
 * Whether the value's own clause says it is wished for or supposed ("but I want to increase it to 7 hours"); a value
 * said to have been given before is not, however it is asked about ("how to adjust it to 1GB as mentioned").
 */
export const isAimed = (m: AttributeMention, text: string): boolean => aimedAt(text, m.start) && !saidBefore(text, m.end)

/** The number a normalised value starts with ("$171200" -> 171200, "$2.5k" -> 2500, "20 min" -> 20), or null. */
const amountOf = (value: string): number | null => {
  const m = /(\d+(?:\.\d+)?)(k|m)?/.exec(value)
  return m === null ? null : Number(m[1]) * (m[2] === "k" ? 1e3 : m[2] === "m" ? 1e6 : 1)
}

/**
 * Whether a later change "from A to B" can follow the earlier value V: A is V, or lies past V on the way to B
 * (a rise from 181,000 after 171,200). A rise from 78% after 93% is another series (another quiz, another
 * account), not this one's next value. A later value said without "from" always can.
 */
const continues = (earlier: AttributeMention, later: AttributeMention): boolean => {
  if (later.from === null) return true
  const v = amountOf(earlier.value)
  const a = amountOf(later.from)
  const b = amountOf(later.value)
  if (v === null || a === null || b === null || later.kind === "date" || later.kind === "time" || later.kind === "version") return true
  return b >= a ? a >= v : a <= v
}

/** Whether a text says every name word of a mention (its modifiers and qualifier), in any form ("test" of "tests"). */
const saysNameOf = (m: AttributeMention, text: string): boolean => {
  const words = m.qualifier === null ? m.modifiers : [...m.modifiers, m.qualifier]
  if (words.length === 0) return true
  const said = new Set(tokensOf(text).map((t) => singular(t.text)))
  return words.every((w) => said.has(w))
}

/** Every value a text says (kind and normalised value), whether or not anything names what it is of. */
export const valuesIn = (text: string): Set<string> => {
  const out = new Set<string>()
  for (let i = 0; i < text.length; i++) {
    // Every pattern's match starts with a digit, a letter or a currency sign, at the start of a word.
    const c = text.charCodeAt(i)
    if (!valueStart(c) || (i > 0 && joinsValue(text.charCodeAt(i - 1))) || !mayStartValue(text, i, c)) continue
    for (const [kind, pattern] of VALUE_PATTERNS) {
      if (kind === "count") continue
      pattern.lastIndex = i
      const m = pattern.exec(text)
      if (m === null || m[0] === "") continue
      out.add(`${kind}:${normalizeValue(kind, m[0]).value}`)
      i += m[0].length - 1
      break
    }
  }
  return out
}

/**
 * Whether `later` (said in `laterText`) updates `earlier` (said in `earlierText`): one slot, different
 * values, both stated as the attribute's (not aimed for), and evidence that both speak of the same thing:
 * the rest of what they say overlaps well, or overlaps and the later one carries an update cue.
 */
export const updates = (earlier: AttributeMention, earlierText: string, later: AttributeMention, laterText: string): boolean => {
  if (!isSlot(later) || !isSlot(earlier) || !sameAttribute(earlier, later) || earlier.value === later.value) return false
  if (isGoal(earlier, earlierText) || isGoal(later, laterText) || isAimed(earlier, earlierText) || isAimed(later, laterText)) return false
  // The later value was said already in the earlier statement ("I adjusted it to $1,300" before "my budget is
  // now $1,300"): a restatement. Counts are left out: their number alone says nothing of what is counted.
  if (later.kind !== "count" && valuesIn(earlierText).has(`${later.kind}:${later.value}`)) return false
  // A version is of one named thing ("Express v4.18.2"): another name, or none ("version 4.6.2"), is another thing.
  if (later.kind === "version" && (later.attribute !== earlier.attribute || later.modifiers.length === 0 && later.head === "version")) return false
  if (!continues(earlier, later)) return false
  // Each names the attribute in full: "my quiz score" after "my strong induction quiz score" may be another quiz's.
  if (!saysNameOf(earlier, laterText) || !saysNameOf(later, earlierText)) return false
  // Most dates and times mark events ("met Jessica at 2 PM"): one replaces another only when said to ("moved to").
  if ((later.kind === "date" || later.kind === "time") && !later.cue) return false
  const a = contextWords(earlierText, earlier)
  const b = contextWords(laterText, later)
  // Nothing said besides the slot and its value ("My monthly book budget is $50."): the same context.
  const same = a.size === 0 && b.size === 0 ? 1 : overlap(a, b)
  return same >= CONTEXT_OVERLAP_NO_CUE || (later.cue && same >= CONTEXT_OVERLAP)
}

// What a question asks the value of, when it names it: "What is the deadline for …", "What score did Scott
// achieve …", "When is my scheduled safety inspection …", "How many people …". The words run up to the first
// word that cannot be part of a name: a preposition, a pronoun, a verb.
const ASKED = [
  /^\s*(?:what|which)(?:\s+(?:is|was|are|were)|['’]s)\s+(.+)$/iu,
  /^\s*(?:what|which)\s+(.+?)\s+(?:did|do|does|have|has|had|am|is|are|was|were|will|should|can|could)\b/iu,
  /^\s*when\s+(?:is|was|are|were|will|did|does|do)\s+(.+)$/iu,
  /^\s*how\s+many\s+(.+)$/iu
]
// Words that end the name asked about; and words before it that say which value, not of what ("my current …").
const ASKED_END = new Set(
  ("a an the and or but of at by for with about to from in on into as than that which who whom whose when where why how " +
    "is am are was were be been do does did have has had will would shall should can could may might must " +
    "i me my we us our you your he him his she her it its they them their this these those there here " +
    "per based set so if").split(" ")
)
const ASKED_SKIP = /^(?:the|my|our|his|her|their|your|current|currently|latest|most|recent|recently|new|newest|updated|total|overall|\p{L}+['’]s)$/u

/**
 * The words of what a question asks the value of ("deadline", "safety inspection", "nightly rate"), or null
 * when its wording names none ("How much do I spend at …").
 */
export const askedAttribute = (query: string): ReadonlyArray<string> | null => {
  for (const re of ASKED) {
    const m = re.exec(query)
    if (m === null) continue
    const words: Array<string> = []
    for (const t of tokensOf(m[1]!)) {
      if (words.length === 0 && (ASKED_SKIP.test(t.text) || PARTICIPLE.test(t.text))) continue
      if (ASKED_END.has(t.text) || /^\d/.test(t.text)) break
      words.push(t.text)
      if (words.length === 4) break
    }
    if (words.length > 0) return words
  }
  return null
}

// A threshold is no value that holds: "to reduce my LDL cholesterol to below 100 mg/dL", "keep it under 200ms", and nor is
// a cap set on it ("keeping it to 10 people", "limit the guest list to 12").
const THRESHOLD =
  /\b(?:to|reach|get|stay|keep|bring|be|goal|target)\s+(?:it\s+)?(?:below|under|above|over|at least|at most|less than|more than|no more than)\s+$|\b(?:(?:keep(?:s|ing)?|kept)\s+(?:it|that|this|them|the\s+\w+(?:\s+\w+)?)\s+to|(?:limit(?:s|ing|ed)?|cap(?:s|ping|ped)?)\s+(?:it|that|this|them|the\s+\w+(?:\s+\w+)?)\s+(?:to|at))\s+$/i

/** Whether the value is a threshold aimed at, not one that holds. */
export const isThreshold = (m: AttributeMention, text: string): boolean => THRESHOLD.test(text.slice(Math.max(0, m.start - 40), m.start))
