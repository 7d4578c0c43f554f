import { MONTH_NAMES } from "../text/months.js"

/**
 * Indexed text of a message or memory: its content plus the month and year it was said in (a memory: its
 * window start), so "what did I do in June" meets June's messages (measured on LoCoMo's temporal questions).
 */
export const indexedText = (content: string, timestamp: string): string => {
  const m = /^(\d{4})-(\d{2})/.exec(timestamp)
  const month = m === null ? undefined : MONTH_NAMES[Number(m[2]) - 1]
  return month === undefined ? content : `${content} ${month} ${m![1]}`
}

/** Names the analyzer and month terms; a change of either makes stored indexes stale. */
export const ANALYZER_ID = "porter1+month"
