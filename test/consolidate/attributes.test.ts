import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { askedAttribute, attributeMentions, isAimed, isThreshold, updates } from "../../src/text/attributes.js"
import { canonicalKeyForContent, canonicalSlot, restates } from "../../src/text/canonical.js"
import { consolidatePending } from "../../src/programs/consolidate.js"
import { byContent, say, statements, withStores } from "./support.js"

// Attribute slots without an LLM: what a value is of, and when a later value updates an earlier one.

const slots = (text: string) => attributeMentions(text).map((m) => [m.attribute, m.value, m.kind])

/** Whether some value of `later` updates some value of `earlier`. */
const isUpdate = (earlier: string, later: string) =>
  attributeMentions(later).some((b) => attributeMentions(earlier).some((a) => updates(a, earlier, b, later)))

describe("attribute mentions", () => {
  it("reads the attribute (at most three words) around money, percentages, counts, quantities and dates", () => {
    expect(slots("My monthly book budget is $50.")).toEqual([["monthly book budget", "$50", "money"]])
    expect(slots("The repo has now reached 165 commits.")).toEqual([["commits", "165", "count"]])
    expect(slots("The AI screening tool's accuracy is now rated 87%.")).toEqual([["screening tool accuracy", "87%", "percent"]])
    expect(slots("The login API response time has decreased to 120ms under 20 concurrent requests.")).toEqual([
      ["api response time", "120 ms", "quantity"],
      ["concurrent requests", "20", "count"]
    ])
    // "from X to Y": the statement is Y, of the attribute named before "from".
    expect(slots("The peer-review deadline moved from April 20 to April 25.")).toEqual([["peer-review deadline", "april 25", "date"]])
    expect(slots("Can you help me write a function?")).toEqual([])
  })
})

describe("rates", () => {
  it("how often is part of a measure's unit: hours a week and hours a day are not one value", () => {
    const units = (text: string) => attributeMentions(text).map((m) => [m.attribute, m.value, m.unit])
    expect(units("The leadership training is now 10 hours weekly.")).toEqual([["leadership training", "10 h/week", "h/week"]])
    expect(units("The leadership training now takes 8 hours per week.")).toEqual([["leadership training", "8 h/week", "h/week"]])
    expect(units("My interview practice takes 2 hours daily.")).toEqual([["interview practice", "2 h/day", "h/day"]])
    expect(units("My interview practice takes 2 hours.")).toEqual([["interview practice", "2 h", "h"]])
    expect(isUpdate("The leadership training is 8 hours weekly.", "The leadership training is now 10 hours weekly.")).toBe(true)
    expect(isUpdate("The leadership training is 8 hours weekly.", "The leadership training is now 2 hours daily.")).toBe(false)
  })
})

describe("value forms people update", () => {
  it("durations with decimals, what an amount is of or is as, scores followed by words, pressure pairs, number words, accents", () => {
    expect(slots("I've been averaging 5.5 hours of sleep nightly.")).toEqual([["sleep", "5.5 h", "quantity"]])
    expect(slots("I'm up to nearly 6 hours of sleep a night.")).toEqual([["sleep", "6 h", "quantity"]])
    expect(slots("I set aside $150 as an emergency fund for unexpected costs.")).toEqual([["emergency fund", "$150", "money"]])
    expect(slots("My score improved to 19/20 on derivative rules.")).toEqual([["score", "19/20", "score"]])
    expect(slots("I've completed 7 sigma notation problems and scored 6/7 correct.")).toEqual([
      ["sigma notation", "7", "count"],
      ["notation problems", "6/7", "score"]
    ])
    expect(slots("My blood pressure reading is 138/85 mmHg.")).toEqual([["blood pressure reading", "138/85 mmhg", "quantity"]])
    expect(slots("I swim three times a week and stretch for twenty minutes.")).toEqual([
      ["swim", "3 times/week", "quantity"],
      ["stretch", "20 min", "quantity"]
    ])
    expect(slots("I go to the gym 3 times weekly.")).toEqual([["gym", "3 times/week", "quantity"]])
    expect(slots("I attended twenty-five counseling sessions.")).toEqual([["counseling sessions", "25", "count"]])
    expect(slots("I booked a room at Hôtel Château Frontenac for $250 per night.")).toEqual([["hotel chateau frontenac", "$250", "money"]])
    // How often is no attribute: the amount's attribute is read before it.
    expect(slots("I increased my Roth IRA contributions to $450 monthly.")).toEqual([["roth ira contributions", "$450", "money"]])
    // Not values: an idiom, a fraction of a cup, a number inside a word.
    expect(slots("Our help desk is open 24/7.")).toEqual([])
    expect(slots("Add 1/2 cup of sugar.")).toEqual([])
    expect(slots("It was someone else's idea.")).toEqual([])
  })

  it("an amount nothing else names is of where or on what it goes; a verb's -ing form is never part of an attribute", () => {
    expect(slots("I'm currently spending $120 per week at Whole Foods on Main Street.")).toEqual([["whole foods", "$120", "money"]])
    expect(slots("I've been spending $200 weekly at Whole Foods for holiday items.")).toEqual([["whole foods", "$200", "money"]])
    expect(slots("I spend $15 a month on my streaming service.")).toEqual([["streaming service", "$15", "money"]])
    // What names the amount itself still wins over where it goes.
    expect(slots("My grocery budget is $120 per week at Whole Foods.")).toEqual([["grocery budget", "$120", "money"]])
    // A duration nothing names is of what it is for, not of where it is spent.
    expect(slots("I'm currently spending 3 hours per week at the gym.")).toEqual([])
    expect(slots("I've allocated 8 hours weekly for this training.")).toEqual([["training", "8 h/week", "quantity"]])
    // "adjusting" is how the value came about, as "adjusted" is.
    expect(slots("My weekly spending at Whole Foods is adjusting to $115.")).toEqual([["whole foods", "$115", "money"]])
    expect(isUpdate("I'm spending $120 per week at Whole Foods.", "I'm now spending $115 per week at Whole Foods.")).toBe(false)
  })

  it("a value wished for or supposed in its own clause is aimed; one said in passing after 'trying to' is not", () => {
    const aimed = (text: string) => attributeMentions(text).map((m) => [m.value, isAimed(m, text)])
    expect(aimed("Right now I sleep 5.5 hours, but I want to sleep 7 hours.")).toEqual([
      ["5.5 h", false],
      ["7 h", true]
    ])
    expect(aimed("It was supposed to be 15 guests at the party.")).toEqual([["15", true]])
    expect(aimed("I'm trying to speed up the login API, whose response time is now at 120ms.")).toEqual([["120 ms", false]])
  })

  it("a value said to have been given before ('as mentioned') is held, not aimed, and 'as mentioned' names nothing", () => {
    const read = (text: string) => attributeMentions(text).map((m) => [m.attribute, m.value, isAimed(m, text)])
    expect(read("I'm not sure how to adjust the maxmemory setting to 1GB as mentioned in the update.")).toEqual([["maxmemory", "1 gb", false]])
    expect(read("How do I set the budget to $50, as we discussed?")).toEqual([["budget", "$50", false]])
    // Without it, a question how to set a value still only wishes for it; "as" before a noun still names the thing.
    expect(read("I'm not sure how to adjust the maxmemory setting to 1GB.")).toEqual([["maxmemory", "1 gb", true]])
    expect(read("I set aside $150 as an emergency fund.")).toEqual([["emergency fund", "$150", false]])
  })

  it("the new forms update like the others; another unit or the same value restated does not", () => {
    expect(isUpdate("My blood pressure is 138/85 mmHg.", "My blood pressure is now 135/82 mmHg.")).toBe(true)
    expect(isUpdate("I swim three times a week.", "I swim four times a week now.")).toBe(true)
    expect(isUpdate("I swim three times a week.", "I swim 3 times a week.")).toBe(false)
    expect(isUpdate("My blood pressure is 138/85 mmHg.", "My blood pressure is 138 mg/dL.")).toBe(false)
  })
})

describe("updates: two statements of one attribute with different values", () => {
  it("the issue's phrasings are updates, said in passing and in other words", () => {
    expect(isUpdate("Our repo has 150 commits merged.", "The repo has now reached 165 commits.")).toBe(true)
    expect(isUpdate("The AI screening tool's accuracy is now rated 87%.", "I'm impressed by the AI screening tool's 90% accuracy.")).toBe(true)
    expect(isUpdate("My monthly book budget is $35.", "My monthly book budget is $50.")).toBe(true)
    expect(isUpdate("The peer-review deadline is April 20.", "The peer-review deadline moved from April 20 to April 25.")).toBe(true)
    expect(isUpdate("Redis memory usage is 150MB with 10,000 keys.", "Redis memory usage has now reached 200MB with 15,000 keys.")).toBe(true)
  })

  it("two different budgets, a budget and a deadline, a value restated unchanged, unrelated amounts: no update", () => {
    expect(isUpdate("My monthly book budget is $35.", "My monthly travel budget is $500.")).toBe(false)
    expect(isUpdate("My monthly book budget is $35.", "The peer-review deadline is April 25.")).toBe(false)
    expect(isUpdate("My monthly book budget is $35.", "My monthly book budget is still $35.")).toBe(false)
    expect(isUpdate("I used a $20 coupon for the Green Basket Co-op.", "I found a $15 coupon for Mediterranean Market.")).toBe(false)
    // Milliseconds and megabytes never meet, whatever the words.
    expect(isUpdate("The cache latency is 150ms.", "The cache size is 200MB.")).toBe(false)
  })
})

describe("updates: the collisions found on real chats", () => {
  it("a later value the earlier statement said already, or one a question asks how to set, is no update", () => {
    expect(isUpdate("I've set a budget of $1,250, but I adjusted it to $1,300.", "My budget is now $1,300.")).toBe(false)
    expect(isUpdate("I've set a budget of $1,250.", "My budget is now $1,300.")).toBe(true)
    expect(isUpdate("My cache has a max memory of 1GB.", "How can I set the max memory to 2GB correctly?")).toBe(false)
    // A question that says the value holds still states it.
    expect(isUpdate(
      "I've increased my mindfulness meditation to 20 minutes daily.",
      "How can I keep it up now that I've increased my mindfulness meditation to 25 minutes daily?"
    )).toBe(true)
  })

  it("a version is of one named thing, and one wished for is no update", () => {
    expect(isUpdate("I'm using Express v4.18.2 and Node.js v18.15.0.", "I'm using Express v4.18.3 and Node.js v18.15.0.")).toBe(true)
    expect(isUpdate("I'm using Express v4.18.2.", "I'd like to upgrade express to version 4.18.3.")).toBe(false)
    expect(isUpdate("I'm using Socket.io version 4.6.1.", "Currently, I'm using version 0.57.0.")).toBe(false)
    expect(isUpdate("I'm using Socket.io version 4.6.1 and Chrome version 109.0.5414.74.", "I upgraded Chrome to version 110.0.5481.77.")).toBe(false)
  })

  it("a change that starts short of where the earlier one ended is another series; one that starts past it follows", () => {
    expect(isUpdate("My quiz score rose from 70% to 85% after the review.", "My quiz score improved from 78% to 92% after the review.")).toBe(false)
    expect(isUpdate("My quiz score rose from 70% to 85% after the review.", "My quiz score improved from 85% to 92% after the review.")).toBe(true)
    expect(isUpdate(
      "My portfolio value increased from $160,000 to $171,200 between December 2024 and February 2025.",
      "My portfolio value increased from $181,000 to $192,000 between December 2025 and March 2026."
    )).toBe(true)
  })

  it("each statement names the attribute in full: a quiz score of another topic, a list item of another thing", () => {
    expect(isUpdate(
      "After practicing inequality problems, my quiz score increased to 90%.",
      "After practicing, my strong induction quiz score increased to 96%."
    )).toBe(false)
    expect(isUpdate(
      "After practicing, my strong induction quiz score increased to 88%.",
      "After more practicing, my strong induction quiz score increased to 96%."
    )).toBe(true)
    expect(isUpdate("- **Refrigerator**: 36 inches wide, 72 inches tall.", "- **Stove**: 30 inches wide, 36 inches tall.")).toBe(false)
    expect(attributeMentions("- **Stove**: the width is 30 inches.").map((m) => [m.attribute, m.holder])).toEqual([["width", "stove"]])
    expect(isUpdate("- **Stove**: the width is 30 inches.", "- **Stove**: the width is now 32 inches.")).toBe(true)
  })
})

describe("what a question asks the value of", () => {
  it("reads the name asked about, up to a preposition, a pronoun or a verb", () => {
    expect(askedAttribute("What is the deadline for completing the Green Tech article series?")).toEqual(["deadline"])
    expect(askedAttribute("When is my scheduled safety inspection for the apartment?")).toEqual(["safety", "inspection"])
    expect(askedAttribute("What score did Scott achieve on his most recent math test?")).toEqual(["score"])
    expect(askedAttribute("What budget ceiling have I set for purchasing a new phone?")).toEqual(["budget", "ceiling"])
    expect(askedAttribute("What is my most recent LDL cholesterol level?")).toEqual(["ldl", "cholesterol", "level"])
    expect(askedAttribute("What is the nightly rate for the hotel room I booked?")).toEqual(["nightly", "rate"])
    expect(askedAttribute("How many people are confirmed to attend my event?")).toEqual(["people"])
    // Nothing named: a verb asks ("how much do I spend"), or no value is asked for.
    expect(askedAttribute("How much do I spend weekly at Whole Foods?")).toBeNull()
    expect(askedAttribute("Have I ever synchronized my server time with an NTP service?")).toBeNull()
  })

  it("a value after 'to below', 'under' and the like is a threshold aimed at, not one that holds", () => {
    const threshold = (text: string) => attributeMentions(text).map((m) => [m.value, isThreshold(m, text)])
    expect(threshold("My goal is to reduce my LDL cholesterol to below 100 mg/dL.")).toEqual([["100 mg", true]])
    expect(threshold("I want to keep it under 200ms for the login API.")).toEqual([["200 ms", true]])
    expect(threshold("My LDL cholesterol recently measured 102 mg/dL.")).toEqual([["102 mg", false]])
    expect(threshold("The login API response time dropped to 180ms.")).toEqual([["180 ms", false]])
  })

  it("a cap set on a value ('keeping it to', 'limit the guest list to', 'cap it at') is a threshold; a count that holds is not", () => {
    const threshold = (text: string) => attributeMentions(text).map((m) => [m.value, isThreshold(m, text)])
    expect(threshold("Keeping it to 10 people will make the event more intimate.")).toEqual([["10", true]])
    expect(threshold("We could limit the guest list to 12 people for the event.")).toEqual([["12", true]])
    expect(threshold("Let's cap it at 15 guests for the dinner.")).toEqual([["15", true]])
    // Non-matches: the count said, and a move "to" a value that holds.
    expect(threshold("I've got 28 people coming to the remembrance event.")).toEqual([["28", false]])
    expect(threshold("I kept 3 notebooks for the class.")).toEqual([["3", false]])
    expect(threshold("We increased the guest list to 30 people.")).toEqual([["30", false]])
  })
})

describe("template keys", () => {
  it("a subject that names a slot and a value keep their fact key; clauses and pronouns get none", () => {
    expect(canonicalKeyForContent("My city is New York")).toBe("fact:my city")
    expect(canonicalKeyForContent("The main build server is down")).toBe("fact:the main build server")
    expect(canonicalKeyForContent("My code is throwing an error when I submit the form")).toBe(null)
    expect(canonicalKeyForContent("The form is not submitting anything")).toBe(null)
    expect(canonicalKeyForContent("It is called Orion")).toBe(null)
  })

  it("quotations, formulas, points, sequences, judgements, things done to the subject and clauses as subjects name no slot", () => {
    const none = [
      'The error message is "jwt expired".',
      "The derivative is \\( 3x^{3-1} = 3x^2 \\).",
      "The vertex is (2, 5).",
      "The series is 3, 7, 11, ...",
      "My implementation is optimal.",
      "The inductive step is pretty straightforward once you break it down.",
      "My database is properly optimized for performance.",
      "The token is stored securely with HTTP-only cookies.",
      "My goal is to keep the final image size under 120MB.",
      "I want to make sure my tests are comprehensive and effective."
    ]
    expect(none.map(canonicalKeyForContent)).toEqual(none.map(() => null))
    expect(canonicalKeyForContent("The meeting is scheduled for Friday")).toBe("fact:the meeting")
    expect(canonicalKeyForContent("The standup is weekly")).toBe("fact:the standup")
    expect(canonicalKeyForContent("The API endpoint is https://api.example.com/v2?region=eu")).toBe("fact:the api endpoint")
  })

  it("a restatement is the same value in other words: a longer value, the same policy, the same preferred thing", () => {
    const again = (a: string, b: string) => restates(canonicalSlot(a), canonicalSlot(b))
    expect(again("My city is Berlin", "My city is Berlin, near the river")).toBe(true)
    expect(again("My city is Paris", "My city is Berlin")).toBe(false)
    expect(again("Always use camelCase for variable names.", "Always use camelCase for variable names in JavaScript.")).toBe(true)
    expect(again("Always use camelCase for variable names.", "Never use camelCase for variable names.")).toBe(false)
    // A preference's key is its first word: "combining" is said again, whatever is combined; it supersedes nothing.
    expect(again("I prefer combining art therapy with journaling", "I prefer combining professional development with healing")).toBe(true)
    expect(again("I prefer tabs", "I prefer spaces")).toBe(false)
  })
})

describe("Stage 1 supersession by attribute", () => {
  it.scoped("a later value supersedes the earlier statement across sessions; unrelated and unchanged ones stay", () =>
    withStores(() =>
      Effect.gen(function* () {
        yield* say("s1", "Our repo has 150 commits merged.", 0)
        yield* say("s1", "My monthly book budget is $35.", 1)
        yield* say("s1", "My monthly travel budget is $500.", 2)
        yield* say("s2", "Good news: the repo has now reached 165 commits.", 10)
        yield* say("s2", "My monthly book budget is still $35.", 11)
        yield* say("s3", "My code is throwing an error when I submit the form.", 20)
        yield* say("s3", "My code is fine now, thanks.", 21)
        yield* consolidatePending()
        const ns = yield* statements
        const old = byContent(ns, "Our repo has 150 commits merged.")
        const current = byContent(ns, "Good news: the repo has now reached 165 commits.")
        expect(old.status).toBe("superseded")
        expect(old.validTo).toBe(current.validFrom)
        expect(current).toMatchObject({ status: "active", supersedes: [old.id], canonicalKey: "attr:count:commit:commit" })
        expect(byContent(ns, "My monthly book budget is $35.").status).toBe("active")
        expect(byContent(ns, "My monthly travel budget is $500.").status).toBe("active")
        // Two unrelated things said about "my code" no longer collide on one template key.
        expect(ns.filter((n) => n.status === "superseded").map((n) => n.content)).toEqual(["Our repo has 150 commits merged."])
      })
    )
  )
})
