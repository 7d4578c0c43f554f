import { describe, expect, it } from "@effect/vitest"
import { extractDates, validityWindow } from "../../src/text/dates.js"

const ref = new Date("2023-03-20T13:56:00Z")
const isos = (text: string, reference = ref) => extractDates(text, reference).map((d) => d.iso)
const window = (text: string, reference = ref) => validityWindow(extractDates(text, reference))

describe("extractDates", () => {
  it("resolves relative to the message's own time, biased to the past", () => {
    expect(isos("I met her on March 5.")).toEqual(["2023-03-05T00:00:00.000Z"])
    // chrono alone reads "Nov 3" as the coming November; said in March it is last November.
    expect(isos("Nov 3 was fun")).toEqual(["2022-11-03T00:00:00.000Z"])
    // "last March" said on March 20 is the March of the year before.
    expect(isos("last March we moved")).toEqual(["2022-03-01T00:00:00.000Z"])
    expect(isos("last March we moved", new Date("2023-05-08T00:00:00Z"))).toEqual(["2023-03-01T00:00:00.000Z"])
    expect(isos("yesterday was fun")).toEqual(["2023-03-19T00:00:00.000Z"])
    expect(isos("on Friday I went")).toEqual(["2023-03-17T00:00:00.000Z"])
    expect(isos("two days ago")).toEqual(["2023-03-18T00:00:00.000Z"])
  })

  it("keeps the future where the sentence looks forward", () => {
    expect(isos("I'm going to Paris in August")).toEqual(["2023-08-01T00:00:00.000Z"])
    expect(isos("effective April 1 the fee is 5")).toEqual(["2023-04-01T00:00:00.000Z"])
    expect(isos("next Friday")).toEqual(["2023-03-31T00:00:00.000Z"])
  })

  it("reads ISO dates, full dates and bare years after a preposition; not times, numbers or versions", () => {
    expect(isos("We met on 2024-01-31")).toEqual(["2024-01-31T00:00:00.000Z"])
    expect(isos("1:56 pm on 8 May, 2023")).toEqual(["2023-05-08T13:56:00.000Z"])
    expect(isos("I live in Berlin since 2019")).toEqual(["2019-01-01T00:00:00.000Z"])
    expect(isos("the meeting is at 5pm")).toEqual([])
    expect(isos("the port is 8080 and we have 3 cats")).toEqual([])
    expect(isos("version 2.0.1 released")).toEqual([])
  })

  it("lists a date once per message", () => {
    expect(isos("yesterday and yesterday again")).toEqual(["2023-03-19T00:00:00.000Z"])
  })
})

describe("validityWindow", () => {
  it("from/since/starting/as of/effective/beginning open the window; until/till/through/up to/ending close it", () => {
    expect(window("since December 5 I work here")).toEqual({ validFrom: "2022-12-05T00:00:00.000Z", validTo: null })
    expect(window("as of 2023-01-10 the office is in Leeds")).toEqual({ validFrom: "2023-01-10T00:00:00.000Z", validTo: null })
    expect(window("until 2023-06-30 the price is 5")).toEqual({ validFrom: null, validTo: "2023-06-30T00:00:00.000Z" })
    // "through June 30" includes June 30.
    expect(window("through June 30 the office is closed")).toEqual({ validFrom: null, validTo: "2023-07-01T00:00:00.000Z" })
    expect(window("from March 1 to April 2 I am away")).toEqual({
      validFrom: "2023-03-01T00:00:00.000Z",
      validTo: "2023-04-02T00:00:00.000Z"
    })
  })

  it("a date mentioned in passing leaves it open, and the last marked date wins", () => {
    expect(window("I met her on March 5.")).toEqual({ validFrom: null, validTo: null })
    expect(window("since 2020-01-01, no, since 2021-01-01 the team is remote")).toEqual({
      validFrom: "2021-01-01T00:00:00.000Z",
      validTo: null
    })
  })
})
