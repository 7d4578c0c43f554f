// The calendar's month names, one table for every reader and writer of dates in text.

export const MONTH_NAMES = [
  "january", "february", "march", "april", "may", "june",
  "july", "august", "september", "october", "november", "december"
] as const

/** 0-11 for a month's name or its abbreviation of three letters or more ("Sept", "jan."), -1 for anything else. */
export const monthIndex = (name: string): number => {
  const n = name.toLowerCase().replace(/\.$/, "")
  return n.length < 3 ? -1 : MONTH_NAMES.findIndex((m) => m.startsWith(n))
}
