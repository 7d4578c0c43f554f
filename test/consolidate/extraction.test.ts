import { describe, expect, it } from "@effect/vitest"
import { DEFAULT_NER_LABELS } from "../../src/domain/Config.js"
import { RawLogEntry, type Role } from "../../src/domain/Message.js"
import { canonicalKeyForContent } from "../../src/text/canonical.js"
import { extractCandidates, extractFromMessage } from "../../src/text/extraction.js"
import { splitSentences } from "../../src/text/sentences.js"
import { at } from "./support.js"

const entry = (content: string, index = 0, role: Role = "user", timestamp = at(0)) =>
  new RawLogEntry({ timestamp, session_id: "s1", role, content, metadata: {}, index })
const noNer = { nerLabels: new Set<string>() }
const withNer = { nerLabels: new Set<string>(DEFAULT_NER_LABELS) }
const summary = (content: string, role: Role = "user", options = noNer) =>
  extractFromMessage(entry(content, 0, role), options).map((c) => [c.type, c.content, c.confidence, c.isCorrection])

describe("splitSentences", () => {
  it("splits at sentence ends and line breaks, not after abbreviations, initials or inside numbers", () => {
    expect(splitSentences("Hello there. I prefer dark mode! Thanks").map((s) => s.text)).toEqual([
      "Hello there.", "I prefer dark mode!", "Thanks"
    ])
    expect(splitSentences("Dr. Smith uses Python 3.11 e.g. for tests. J. R. wrote it").map((s) => s.text)).toEqual([
      "Dr. Smith uses Python 3.11 e.g. for tests.", "J. R. wrote it"
    ])
    expect(splitSentences("- first item\n- second item").map((s) => s.text)).toEqual(["- first item", "- second item"])
    const text = "  One.  Two. "
    for (const s of splitSentences(text)) expect(text.slice(s.start, s.end)).toBe(s.text)
  })
})

describe("extractFromMessage", () => {
  it("types and confidences: correction 0.9, fact 0.8, preference 0.75, outcome 0.65", () => {
    expect(summary("Actually, the port is 8080")).toEqual([
      ["semantic", "Actually, the port is 8080", 0.9, true],
      ["semantic", "the port is 8080", 0.8, false]
    ])
    expect(summary("I prefer Rust")).toEqual([["procedural", "I prefer Rust", 0.75, false]])
    expect(summary("That worked, thanks!")).toEqual([["episodic", "That worked", 0.65, false]])
  })

  it("matches sentence by sentence, so one message can state several facts", () => {
    // The buffer stores "I prefer dark mode. Thanks" (to the end of the message); a memory is the sentence.
    expect(summary("Hello there, I prefer dark mode. Thanks")).toEqual([["procedural", "I prefer dark mode.", 0.75, false]])
    expect(summary("My name is Alice. I live in Cape Town.").map((c) => c[1])).toEqual(["My name is Alice.", "I live in Cape Town."])
  })

  it("a match that would leave out a value said before its trigger word keeps the whole sentence", () => {
    // "I need ..." matches late in the sentence: the memory keeps the 25 documents it would have lost.
    expect(summary("I've uploaded 25 supporting documents to the portal, is that enough or do I need to upload more?")).toEqual([
      ["procedural", "I've uploaded 25 supporting documents to the portal, is that enough or do I need to upload more?", 0.75, false]
    ])
    expect(summary("I'm learning geometric sequences, and I just scored 5/5 on them, but I've never actually done any proofs.")).toEqual([
      ["semantic", "I'm learning geometric sequences, and I just scored 5/5 on them, but I've never actually done any proofs.", 0.9, true]
    ])
    // A match right after a negation would say the opposite: the sentence stays whole, its denial with it.
    expect(summary("I've never actually delivered any photos to James or received feedback from him.")).toEqual([
      ["semantic", "I've never actually delivered any photos to James or received feedback from him.", 0.9, true]
    ])
    // No value before the trigger (or none at all): the match from its trigger word, as before.
    expect(summary("Before the trip I need 3 new batteries.")).toEqual([["procedural", "I need 3 new batteries.", 0.75, false]])
    expect(summary("Honestly, I prefer Rust")).toEqual([["procedural", "I prefer Rust", 0.75, false]])
  })

  it("a fact inside a condition or a wish keeps its sentence, and its clause gives it no key", () => {
    expect(summary("If the match score is below 40%, generate suggestions.")).toEqual([
      ["semantic", "If the match score is below 40%, generate suggestions.", 0.8, false]
    ])
    expect(summary("I want to make sure that my code is secure.")).toEqual([
      ["procedural", "I want to make sure that my code is secure.", 0.75, false],
      ["semantic", "I want to make sure that my code is secure.", 0.8, false]
    ])
    const keys = (t: string) => extractFromMessage(entry(t), noNer).map((c) => canonicalKeyForContent(c.content))
    expect(keys("If the match score is below 40%, generate suggestions.")).toEqual([null])
    expect(keys("I noticed the port is 8080.")).toEqual(["fact:the port"])
  })

  it("keys come out as the reference's for each family", () => {
    const keys = (t: string) => extractFromMessage(entry(t), noNer).map((c) => canonicalKeyForContent(c.content))
    expect(keys("My preferred language is Python")).toEqual(["fact:my preferred language"])
    expect(keys("I live in Cape Town")).toEqual(["fact:i live in"])
    expect(keys("I work at Acme")).toEqual(["fact:i work at"])
    expect(keys("I prefer dark mode")).toEqual(["preference:dark"])
    expect(keys("Never use tabs for indentation")).toEqual(["policy:use:tabs"])
    expect(keys("I use Python for scripting")).toEqual([null])
  })

  it("takes facts, preferences and corrections only from the user; tool output only for outcomes", () => {
    expect(summary("Actually, the port is 8080", "assistant")).toEqual([])
    expect(summary("I prefer Rust", "tool_call")).toEqual([])
    expect(summary("My name is Bob. Error: connection refused", "tool_result")).toEqual([
      ["episodic", "Error: connection refused", 0.65, false]
    ])
  })

  it("entities become `LABEL: name` candidates (semantic, 0.75) from user messages only", () => {
    const cands = extractFromMessage(entry("I met Priya Natarajan at Stripe."), withNer)
    expect(cands.filter((c) => c.entityType !== null).map((c) => [c.content, c.entityType, c.confidence])).toEqual([
      ["PERSON: Priya Natarajan", "PERSON", 0.75],
      ["ORG: Stripe", "ORG", 0.75]
    ])
    expect(extractFromMessage(entry("I met Priya Natarajan at Stripe.", 0, "assistant"), withNer)).toEqual([])
  })

  it("dated statements carry their window and dates; valid_from stays null so the message time applies", () => {
    const [c] = extractFromMessage(entry("Since March 5, my office is in Berlin.", 0, "user", "2026-03-20T09:00:00.000Z"), noNer)
    expect([c!.content, c!.validFrom, c!.validTo, c!.mentionedDates]).toEqual([
      "my office is in Berlin.", "2026-03-05T00:00:00.000Z", null, ["2026-03-05T00:00:00.000Z"]
    ])
    expect(c!.timestamp).toBe("2026-03-20T09:00:00.000Z")
  })

  it("a dated user sentence no rule caught is an episodic event; questions and fragments are not", () => {
    const events = (t: string) =>
      extractFromMessage(entry(t, 0, "user", "2023-05-08T13:56:00.000Z"), noNer).map((c) => [c.type, c.content, c.mentionedDates])
    expect(events("I went to the LGBTQ support group yesterday. It was powerful.")).toEqual([
      ["episodic", "I went to the LGBTQ support group yesterday.", ["2023-05-07T00:00:00.000Z"]]
    ])
    expect(events("What did you do last weekend?")).toEqual([])
    expect(events("Yesterday, sadly.")).toEqual([])
  })
})

describe("extractCandidates", () => {
  it("collapses a batch on statement keys, keeping the first wording and every source message", () => {
    const cands = extractCandidates(
      [entry("Actually, I prefer Rust", 0), entry("ok", 1), entry("I prefer Rust.", 2)],
      noNer
    )
    expect(cands.map((c) => [c.content, c.isCorrection, c.sourceRefs.map((r) => r.messageIndex)])).toEqual([
      ["Actually, I prefer Rust", true, [0, 2]]
    ])
  })

  it("collapses entities on label and normalised name, keeping the first mention", () => {
    const cands = extractCandidates(
      [entry("I joined Zentrox Labs today.", 0), entry("Zentrox Labs's office is great, I joined Zentrox Labs!", 1)],
      withNer
    ).filter((c) => c.entityType !== null)
    expect(cands.map((c) => [c.content, c.messageIndex])).toEqual([["ORG: Zentrox Labs", 0]])
  })
})
