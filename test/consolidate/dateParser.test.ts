import * as fs from "node:fs"
import * as chrono from "chrono-node"
import { describe, expect, it } from "@effect/vitest"
import { dateParser, lastUnitGuard } from "../../src/text/dateParser.js"

const ref = new Date("2023-03-20T13:56:00Z")
const found = (parser: chrono.Chrono, text: string) =>
  parser.parse(text, { instant: ref, timezone: 0 }, { forwardDate: false }).map((r) => [r.index, r.text, r.start.date().toISOString(), r.end?.date().toISOString() ?? null])
/** Every string of the text fixtures: chat turns, questions, NER sentences. */
const fixtureTexts = (): Array<string> => {
  const out: Array<string> = []
  const walk = (v: unknown): void => {
    if (typeof v === "string") out.push(v)
    else if (Array.isArray(v)) v.forEach(walk)
    else if (typeof v === "object" && v !== null) Object.values(v).forEach(walk)
  }
  for (const name of ["locomo-mini.json", "longmemeval-mini.json", "ner-fixture.json"]) {
    walk(JSON.parse(fs.readFileSync(new URL(`../fixtures/${name}`, import.meta.url), "utf8")))
  }
  return out
}

describe("dateParser", () => {
  it("guards exactly chrono's two repeated-unit parsers (\"... ago\", \"... later\") with their last unit and keyword", () => {
    const context = { option: {}, refDate: ref, reference: { instant: ref }, text: "" } as unknown as chrono.ParsingContext
    const guards = chrono.casual.parsers.map((p) => lastUnitGuard(p.pattern(context)))
    expect(guards.filter((g) => g !== null).map((g) => g!.source.slice(g!.source.lastIndexOf(")\\s{0,5}") + 8))).toEqual([
      "(?:ago|before|earlier)(?=\\W|$)",
      "(?:later|after|from now|henceforth|forward|out)(?=(?:\\W|$))"
    ])
    const ago = guards.find((g) => g !== null)!
    expect(["two days ago", "a couple of weeks before", "5 d earlier"].map((t) => ago.test(t))).toEqual([true, true, true])
    expect(["Chicago was fun", "before lunch", "the day I left"].map((t) => ago.test(t))).toEqual([false, false, false])
  })

  it("finds what chrono's casual parser finds", () => {
    const texts = [
      "3 days ago I went", "two weeks later", "a couple of days before the trip", "2 years and 3 months ago",
      "about 5 minutes later", "without you", "a few days after my birthday", "Chicago", "on March 5, two days later",
      ...fixtureTexts()
    ]
    expect(texts.length).toBeGreaterThan(150)
    for (const text of texts) expect(found(dateParser, text)).toEqual(found(chrono.casual, text))
    expect(found(dateParser, "2 years and 3 months ago")).toEqual([[0, "2 years and 3 months ago", "2020-12-20T13:56:00.000Z", null]])
  })
})
