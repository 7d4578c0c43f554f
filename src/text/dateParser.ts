import * as chrono from "chrono-node"

// chrono's casual English parser with one cost cut. Its "3 days ago" and "2 weeks later" parsers match
// a number-and-unit group repeated {0,10} times; V8 compiles such a pattern to native code on its second
// use, ~130 ms each, and every consolidation of a few messages paid it. Any match of those patterns ends
// with one number-and-unit, the spaces and the keyword, so a text without that shorter match cannot match
// the long one: for it the parser gets a pattern that never matches, and what chrono finds is unchanged.

/** The start and the repeated part of a pattern of chrono's `repeatedTimeunitPattern` form. */
const REPEATED_START = String.raw`(\W|^)((?:(?:about|around)\s{0,3})?`
const CONNECTOR = String.raw`(?:\s{0,5},?(?:\s*and)?\s{0,5}`
const TAIL_SPACES = String.raw`\s{0,5}`
const NEVER = /(?!)/

/**
 * The shorter pattern any match of `pattern` contains: its last number-and-unit with the keyword after it.
 * Null when `pattern` is not of the "(units) keyword" form (it then runs as it is).
 */
export const lastUnitGuard = (pattern: RegExp): RegExp | null => {
  const source = pattern.source
  if (!source.startsWith(REPEATED_START)) return null
  const rest = source.slice(REPEATED_START.length)
  const at = rest.indexOf(CONNECTOR)
  if (at <= 0) return null
  const unit = rest.slice(0, at)
  const repeated = `${CONNECTOR}${unit}){0,10})${TAIL_SPACES}`
  if (!rest.slice(at).startsWith(repeated)) return null
  const keyword = rest.slice(at + repeated.length)
  if (keyword === "") return null
  return new RegExp(`${unit}${TAIL_SPACES}${keyword}`, pattern.flags.replace("g", ""))
}

const guarded = (parser: chrono.Parser): chrono.Parser => {
  const guards = new Map<RegExp, RegExp | null>()
  return {
    pattern: (context) => {
      const pattern = parser.pattern(context)
      let guard = guards.get(pattern)
      if (guard === undefined) {
        guard = lastUnitGuard(pattern)
        guards.set(pattern, guard)
      }
      return guard === null || guard.test(context.text) ? pattern : NEVER
    },
    extract: (context, match) => parser.extract(context, match)
  }
}

/** chrono's casual English parser (what `chrono.parse` uses), its repeated-unit patterns guarded. */
export const dateParser: chrono.Chrono = (() => {
  const parser = chrono.casual.clone()
  parser.parsers = parser.parsers.map(guarded)
  return parser
})()
