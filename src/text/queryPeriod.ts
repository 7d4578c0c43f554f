// The stretch of time a question asks about, when it names one by the calendar: "on May 3, 2023",
// "on 1 February, 2023", "in July 2023", "in 2022", "in June" (any year's June). Relative periods ("last
// year") are left out: what they mean depends on when the question is asked, not on the words.
import { monthIndex } from "./months.js"

/** A calendar period a question names. */
export interface QueryPeriod {
  /** The year, or null for a month named without one (that month of any year). */
  readonly year: number | null
  /** 1-12, or null for a whole year. */
  readonly month: number | null
  /** 1-31, or null for a whole month or year. */
  readonly day: number | null
}

const MONTH = String.raw`(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?`
const DAY = String.raw`(\d{1,2})(?:st|nd|rd|th)?`
const YEAR = String.raw`((?:19|20)\d\d)`
/** Words before a bare year or month that make it a period ("in 2023", "during June"), not a count or a verb. */
const LEAD = String.raw`(?:\b(?:in|during|throughout|of|early|late|mid)\s+|\bmid-)`

const PATTERNS: ReadonlyArray<{ readonly re: RegExp; readonly read: (m: RegExpExecArray) => QueryPeriod }> = [
  { re: new RegExp(String.raw`\b${DAY}\s+(?:of\s+)?${MONTH},?\s+${YEAR}\b`, "gi"), read: (m) => period(m[3], m[2], m[1]) },
  { re: new RegExp(String.raw`\b${MONTH}\s+${DAY},?\s+${YEAR}\b`, "gi"), read: (m) => period(m[3], m[1], m[2]) },
  { re: new RegExp(String.raw`\b${MONTH},?\s+${YEAR}\b`, "gi"), read: (m) => period(m[2], m[1], undefined) },
  { re: new RegExp(String.raw`${LEAD}${YEAR}\b`, "gi"), read: (m) => period(m[1], undefined, undefined) },
  // "May" alone is a month only when capitalised ("in May"), never the verb ("in may be").
  { re: new RegExp(String.raw`${LEAD}(?:the\s+month\s+of\s+)?${MONTH}\b`, "gi"), read: (m) => period(undefined, m[1], undefined) }
]

const period = (year: string | undefined, month: string | undefined, day: string | undefined): QueryPeriod => ({
  year: year === undefined ? null : Number(year),
  month: month === undefined ? null : monthIndex(month) + 1,
  day: day === undefined ? null : Number(day)
})

const valid = (p: QueryPeriod, text: string): boolean => {
  if (p.day !== null && (p.day < 1 || p.day > 31)) return false
  if (p.year === null && p.month === 5 && !/\bMay\b/.test(text)) return false
  return p.year !== null || p.month !== null
}

/** The periods a question names, in the order it names them: the most specific reading of each stretch of its words. */
export const queryPeriods = (query: string): Array<QueryPeriod> => {
  if (!/\d|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)/i.test(query)) return []
  const taken: Array<[number, number]> = []
  const out: Array<{ readonly at: number; readonly period: QueryPeriod }> = []
  for (const { re, read } of PATTERNS) {
    re.lastIndex = 0
    for (let m = re.exec(query); m !== null; m = re.exec(query)) {
      const start = m.index
      const end = start + m[0].length
      if (taken.some(([s, e]) => start < e && end > s)) continue
      const p = read(m)
      if (!valid(p, m[0])) continue
      taken.push([start, end])
      out.push({ at: start, period: p })
    }
  }
  return out.sort((a, b) => a.at - b.at).map((x) => x.period)
}

const DAY_MS = 86_400_000
/** A message about a period is often said a few days after it ("last weekend", "yesterday"). */
export const PERIOD_GRACE_DAYS = 7

const bounds = (p: QueryPeriod, year: number): [number, number] => {
  if (p.month === null) return [Date.UTC(year, 0, 1), Date.UTC(year + 1, 0, 1)]
  if (p.day === null) return [Date.UTC(year, p.month - 1, 1), Date.UTC(year, p.month, 1)]
  const start = Date.UTC(year, p.month - 1, p.day)
  return [start, start + DAY_MS]
}

/**
 * Whether a moment (epoch ms) falls in a period, from a day before it (time zones) to PERIOD_GRACE_DAYS after
 * its end.
 */
export const withinPeriod = (p: QueryPeriod, at: number): boolean => {
  const years = p.year !== null ? [p.year] : [new Date(at).getUTCFullYear(), new Date(at - PERIOD_GRACE_DAYS * DAY_MS).getUTCFullYear()]
  return years.some((year) => {
    const [start, end] = bounds(p, year)
    return at >= start - DAY_MS && at < end + PERIOD_GRACE_DAYS * DAY_MS
  })
}
