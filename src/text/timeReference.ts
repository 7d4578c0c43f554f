// Questions that ask when, and lines that say when: "When did you go camping?" is answered by the line that
// carries its own time ("we went camping last weekend", "two days ago", "on Friday", "in May 2023"), which the
// message's time then dates. Plain patterns, cheap enough to test every candidate line of a query.

/** A question that asks for a time: "When…", "what year did / which month was…", "how long ago…". */
const ASKS_WHEN =
  /^\W*when\b|\b(?:what|which)\s+(?:year|month|day|date|time|week)\s+(?:did|do|does|was|were|is|are|will|would|has|have|had)\b|\bhow\s+long\s+ago\b/i

const WEEKDAY = String.raw`(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|tues|wed|thu|thurs|fri|sat|sun)`
const UNIT = String.raw`(?:night|day|week|weekend|month|year|summer|winter|spring|fall|autumn|morning|afternoon|evening)`
const COUNT = String.raw`(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|few|couple\s+of|several)`
const MONTH = String.raw`(?:january|february|march|april|june|july|august|september|october|november|december)`

/** A time a line refers to: a relative day or period, a weekday, a count of units ago, a month, a year. */
const SAYS_WHEN = new RegExp(
  [
    String.raw`\b(?:yesterday|today|tonight|tomorrow|recently|earlier)\b`,
    String.raw`\b(?:this|last|next|past)\s+(?:${UNIT}|${WEEKDAY})\b`,
    String.raw`\b${COUNT}\s+(?:days?|weeks?|months?|years?)\s+ago\b`,
    String.raw`\b(?:on|last|this|next)\s+${WEEKDAY}\b`,
    String.raw`\b${MONTH}\b`,
    String.raw`\b(?:19|20)\d\d\b`
  ].join("|"),
  "i"
)
/** The month May, not the verb: beside a day or after a preposition ("May 3", "3 May", "in May"). */
const MAY = /\bMay\s+\d|\d(?:st|nd|rd|th)?\s+(?:of\s+)?May\b|\b(?:in|of|since|until|last|early|late|mid|during)\s+May\b/

/** Whether a question asks when something happened. */
export const asksWhen = (question: string): boolean => ASKS_WHEN.test(question)

/** Whether a line says when something happened (a relative or calendar time of its own). */
export const saysWhen = (text: string): boolean => SAYS_WHEN.test(text) || MAY.test(text)
