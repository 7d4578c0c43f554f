import type * as chrono from "chrono-node"
import { dateParser } from "./dateParser.js"

/** One date a message mentions, resolved against the message's own time. */
export interface DateMention {
  /** Canonical UTC ISO. A date without a time of day is midnight UTC of that day. */
  readonly iso: string
  /** Where the mention starts and ends in the text (characters). */
  readonly start: number
  readonly end: number
  /** The part of a window this mention marks, from the words just before it (or the range it belongs to). */
  readonly role: "from" | "to" | null
}

export interface ValidityWindow {
  readonly validFrom: string | null
  readonly validTo: string | null
}

// The reference's window markers, looked for in the 24 characters before a date.
const CONTEXT_CHARS = 24
const FROM_MARKER = /\b(from|since|starting|as of|effective|beginning)\s*(on|in)?\s*$/i
const TO_MARKER = /\b(until|till|through|up to|ending)\s*(on|in)?\s*$/i
// "through June 30" includes June 30: the window ends when that day does.
const INCLUSIVE_TO = /\bthrough\s*(on|in)?\s*$/i
const RANGE_JOINER = /\b(until|till|through|to|up to)\b|\s[-–]\s?|[-–]/i
// Markers that look forward ("effective April 1", "until June"), and words that put a sentence in the
// future: dates near them keep chrono's nearest reading instead of the past one.
const FORWARD_MARKER = /\b(from|starting|as of|effective|beginning|until|till|through|up to|ending|by)\s*(on|in)?\s*$/i
const FUTURE_TENSE = /\b(will|won't|shall|going to|gonna|next|upcoming|soon|tomorrow|plan(s|ned|ning)? to|about to)\b|'ll\b/i
// A bare year after a preposition ("since 2019", "in 2021"), which chrono does not read.
const YEAR = /\b(in|since|from|until|till|through|by|during|before|after|of|starting|effective|as of|early|late|mid)\s+((?:19|20)\d{2})\b(?![-/.]\d)/gi

const DAY_MS = 86_400_000

const midnight = (d: Date): Date => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()))

const hasDatePart = (c: chrono.ParsedComponents): boolean =>
  c.isCertain("day") || c.isCertain("month") || c.isCertain("year") || c.isCertain("weekday")

/**
 * Resolves one chrono component, biased to the past: chat about "March 5" or "Friday" usually means
 * the last one, so an implied year or week that lands after the message moves back, unless the
 * sentence looks forward. "last March" is the March before the message's month.
 */
const resolve = (c: chrono.ParsedComponents, prefix: string, reference: Date, forward: boolean): Date => {
  let d = c.date()
  const lastMonth = /\blast\s+$/i.test(prefix) && c.isCertain("month") && !c.isCertain("year") && !c.isCertain("day")
  if (lastMonth) {
    const month = d.getUTCMonth()
    const year = month >= reference.getUTCMonth() ? reference.getUTCFullYear() - 1 : reference.getUTCFullYear()
    d = new Date(Date.UTC(year, month, 1, d.getUTCHours(), d.getUTCMinutes()))
  } else if (!forward && d.getTime() > reference.getTime()) {
    if (c.isCertain("month") && !c.isCertain("year")) {
      d = new Date(Date.UTC(d.getUTCFullYear() - 1, d.getUTCMonth(), d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes()))
    } else if (c.isCertain("weekday") && !c.isCertain("day")) {
      d = new Date(d.getTime() - 7 * DAY_MS)
    }
  }
  return c.isCertain("hour") ? d : midnight(d)
}

const roleFor = (text: string, start: number): "from" | "to" | null => {
  const before = text.slice(Math.max(0, start - CONTEXT_CHARS), start)
  return FROM_MARKER.test(before) ? "from" : TO_MARKER.test(before) ? "to" : null
}

/**
 * The dates a text mentions (chrono-node, UTC), resolved relative to `reference` (the message's own
 * time), in order of appearance, each date once. Times of day alone ("at 5pm") are not dates.
 */
export const extractDates = (text: string, reference: Date): Array<DateMention> => {
  const found: Array<DateMention> = []
  const futureSentence = FUTURE_TENSE.test(text)
  const results = dateParser.parse(text, { instant: reference, timezone: 0 }, { forwardDate: false })
  for (const r of results) {
    if (!hasDatePart(r.start)) continue
    const prefix = text.slice(Math.max(0, r.index - CONTEXT_CHARS), r.index)
    const forward = futureSentence || FORWARD_MARKER.test(prefix)
    const start = resolve(r.start, prefix, reference, forward)
    const end = r.index + r.text.length
    if (r.end !== undefined && r.end !== null && hasDatePart(r.end)) {
      // An explicit range ("March 1 to April 2") is a window in itself.
      const to = resolve(r.end, "", reference, true)
      found.push({ iso: start.toISOString(), start: r.index, end, role: "from" })
      if (RANGE_JOINER.test(r.text)) {
        const inclusive = /\bthrough\b/i.test(r.text) && !r.end.isCertain("hour")
        found.push({ iso: new Date(to.getTime() + (inclusive ? DAY_MS : 0)).toISOString(), start: end, end, role: "to" })
      }
      continue
    }
    let iso = start.toISOString()
    const role = roleFor(text, r.index)
    if (role === "to" && INCLUSIVE_TO.test(prefix) && !r.start.isCertain("hour")) {
      iso = new Date(start.getTime() + DAY_MS).toISOString()
    }
    found.push({ iso, start: r.index, end, role })
  }
  for (const m of text.matchAll(YEAR)) {
    const at = m.index + m[0].length - 4
    if (found.some((f) => at >= f.start && at < f.end)) continue
    found.push({ iso: new Date(Date.UTC(Number(m[2]), 0, 1)).toISOString(), start: at, end: at + 4, role: roleFor(text, at) })
  }
  found.sort((a, b) => a.start - b.start)
  const seen = new Set<string>()
  return found.filter((f) => {
    const key = `${f.iso}|${f.role}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/**
 * The validity window the dates set (REFERENCE-BEHAVIOUR 4.8): a date after "from/since/starting/as
 * of/effective/beginning" opens it, one after "until/till/through/up to/ending" closes it; the last
 * such date wins. Dates mentioned in passing leave it open (null).
 */
export const validityWindow = (mentions: ReadonlyArray<DateMention>): ValidityWindow => {
  let validFrom: string | null = null
  let validTo: string | null = null
  for (const m of mentions) {
    if (m.role === "from") validFrom = m.iso
    else if (m.role === "to") validTo = m.iso
  }
  return { validFrom, validTo }
}
