// Numbers said in words ("three", "twenty-five", "hundred"): the pattern that finds them and their value.

const SMALL = [
  "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
  "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"
]
const TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]

// Longer words first, so "seventeen" is never read as "seven".
const byLength = (words: ReadonlyArray<string>) => [...words].sort((a, b) => b.length - a.length).join("|")

/** A number from zero to ninety-nine in words, or "hundred": a regex source with no groups, to be used case-insensitively. */
export const NUMBER_WORD = `(?:(?:${TENS.join("|")})(?:-(?:${SMALL.slice(1, 10).join("|")}))?|${byLength(SMALL)}|hundred)`

const WHOLE = new RegExp(`^${NUMBER_WORD}$`, "i")

/** The value of a number word ("twenty-five" -> 25, "hundred" -> 100), or null when it is none. */
export const numberWordValue = (word: string): number | null => {
  const w = word.toLowerCase()
  if (!WHOLE.test(w)) return null
  if (w === "hundred") return 100
  const [tens, unit] = w.split("-")
  const small = SMALL.indexOf(tens!)
  if (small >= 0) return small
  return (TENS.indexOf(tens!) + 2) * 10 + (unit === undefined ? 0 : SMALL.indexOf(unit))
}
