import { describe, expect, it } from "@effect/vitest"
import { attributeMentions, letterLeads, valuesIn } from "../../src/text/attributes.js"

// attributeMentions and valuesIn try their value patterns only where a value can start (a digit, a currency sign,
// or a letter that begins a month, a currency code, "v" and a digit, or a number word, at the start of a word).
// Values of every kind that starts with a letter or a sign, in capitals too, are still read; values inside a word,
// a number or after "/" are not.

const slots = (text: string) => attributeMentions(text).map((m) => [m.attribute, m.value, m.kind])

describe("where a value can start", () => {
  it("values that start with a letter or a currency sign, in any case, are read as before", () => {
    expect([...valuesIn("Moved to March 5th, 2024; paid USD 40 and €30; shipped v2.1.3; walked twenty minutes; costs £12.")]).toEqual([
      "date:march 5 2024",
      "money:$40",
      "money:€30",
      "version:2.1.3",
      "quantity:20 min",
      "money:£12"
    ])
    expect(slots("My monthly budget is now EUR 1,300.")).toEqual([["monthly budget", "€1300", "money"]])
    expect(slots("The team has Twelve people attending.")).toEqual([["people", "12", "count"]])
    expect(slots("The release deadline is Dec 3.")).toEqual([["release deadline", "dec 3", "date"]])
  })

  it("no value inside a word, a number or after a slash; none in a text without one", () => {
    expect([...valuesIn("US$5 and abc5% and 1/2 cup and x20 minutes")]).toEqual([])
    expect(slots("Use 1/2 cup of flour.")).toEqual([])
    expect([...valuesIn("The quick brown fox jumps over the lazy dog.")]).toEqual([])
    expect(slots("Anyone seen the movie?")).toEqual([])
  })
})

describe("where a value can start is read from the value patterns", () => {
  it("each branch's start at a letter: a lone letter and what follows it, a group's own branches; a branch starting with a digit has none", () => {
    expect(letterLeads(["\\bv\\d+(?:\\.\\d+)+\\b|\\b\\d+\\.\\d+", "\\b(?!19\\d\\d)(?:\\d+|(?:ten|two)(?:-one)?)\\s+", "(?:[$€]\\s?|\\b(?:usd|eur)\\s?)\\d+"])).toBe(
      "\\bv\\d+|\\b(?:(?:ten|two))|(?:[$€]|\\b(?:usd|eur))"
    )
    // A new pattern led by letters ("qty 5") is a new start without more ado.
    expect(letterLeads(["\\b\\d+%", "\\bqty\\s\\d+"])).toBe("\\bqty\\s")
  })
})
