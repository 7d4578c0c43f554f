import { describe, expect, it } from "@effect/vitest"
import { attributeMentions, valuesIn } from "../../src/text/attributes.js"

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

describe("every letter a value of each kind can start with", () => {
  it("each currency code, a hyphenated number word and a short month start values", () => {
    expect([...valuesIn("Paid AUD 30. Then cad 14; Gbp 9 and eur 5; ran twenty-five minutes; due Sept 3.")]).toEqual([
      "money:$30",
      "money:$14",
      "money:£9",
      "money:€5",
      "quantity:25 min",
      "date:sept 3"
    ])
  })
})
