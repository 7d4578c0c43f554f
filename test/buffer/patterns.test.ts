import { describe, expect, it } from "@effect/vitest"
import { bufferEntriesFor, matchMessage } from "../../src/text/bufferPatterns.js"

// REFERENCE-BEHAVIOUR 4.1: every pattern with its example sentence and the content it stores.
const SINGLE: ReadonlyArray<readonly [string, string, string]> = [
  // [family, message, stored content]
  ["correction", "No, it's Python 3.11", "No, it's Python 3.11"],
  ["correction", "That's wrong, the host is db2", "That's wrong, the host is db2"],
  ["correction", "Correction: the server is db-02", "Correction: the server is db-02"],
  ["correction", "I meant the staging server", "I meant the staging server"],
  ["preference", "Hello there, I prefer dark mode. Thanks", "I prefer dark mode. Thanks"],
  ["preference", "Always use black for formatting", "Always use black for formatting"],
  ["preference", "Never use tabs for indentation", "Never use tabs for indentation"],
  ["preference", "Don't use var in JavaScript", "Don't use var in JavaScript"],
  ["preference", "dont ever write globals", "dont ever write globals"],
  ["preference", "Please always add type hints", "Please always add type hints"],
  ["preference", "I like to use vim", "I like to use vim"],
  ["preference", "I want dark mode", "I want dark mode"],
  ["preference", "I need coffee", "I need coffee"],
  ["fact", "The API endpoint is https://api.example.com/v2", "The API endpoint is https://api.example.com/v2"],
  ["fact", "The server runs on port 9000", "The server runs on port 9000"],
  ["fact", "My name is Alice", "My name is Alice"],
  ["fact", "Our deadline is Friday", "Our deadline is Friday"],
  ["fact", "The main build server is down", "The main build server is down"],
  ["fact", "It is called Orion", "It is called Orion"],
  ["fact", "This was named Project X", "This was named Project X"],
  ["fact", "I am a data scientist", "I am a data scientist"],
  ["fact", "I work at Acme", "I work at Acme"],
  ["fact", "I use Python for scripting", "I use Python for scripting"],
  ["fact", "I live in Cape Town", "I live in Cape Town"],
  ["outcome", "That worked, thanks!", "That worked"],
  ["outcome", "That failed with an error", "That failed"],
  ["outcome", "Error: connection refused", "Error: connection refused"],
  ["outcome", "Traceback (most recent call last)", "Traceback (most recent call last)"],
  ["outcome", "Successfully installed numpy", "Successfully installed numpy"]
]

describe("buffer patterns", () => {
  it.each(SINGLE)("%s: %j", (type, message, content) => {
    // The correction examples that name a slot ("the host is …") also give a fact: see the multi-family test.
    expect(matchMessage(message).filter((m) => m.type !== "fact" || type === "fact")).toEqual([{ type, content }])
  })

  it("stores the whole match from the trigger to the end, across lines, case-insensitively", () => {
    expect(matchMessage("ok so ACTUALLY the port is 8080\nand that's final  ")).toEqual([
      { type: "correction", content: "ACTUALLY the port is 8080\nand that's final" },
      { type: "fact", content: "the port is 8080\nand that's final" }
    ])
  })

  it("gives one entry per family, in family order (multi-family messages)", () => {
    expect(matchMessage("Actually, the port is 8080")).toEqual([
      { type: "correction", content: "Actually, the port is 8080" },
      { type: "fact", content: "the port is 8080" }
    ])
    expect(matchMessage("Actually, I prefer Rust")).toEqual([
      { type: "correction", content: "Actually, I prefer Rust" },
      { type: "preference", content: "I prefer Rust" }
    ])
    expect(matchMessage("That's wrong, the host is db2")).toEqual([
      { type: "correction", content: "That's wrong, the host is db2" },
      { type: "fact", content: "the host is db2" }
    ])
    expect(matchMessage("Correction: the server is db-02")).toEqual([
      { type: "correction", content: "Correction: the server is db-02" },
      { type: "fact", content: "the server is db-02" }
    ])
    // The first pattern of a family wins even when a later one would match earlier in the text.
    expect(matchMessage("I need help. Actually, I prefer tea")).toEqual([
      { type: "correction", content: "Actually, I prefer tea" },
      { type: "preference", content: "I prefer tea" }
    ])
    expect(matchMessage("I use Python and it worked")).toEqual([
      { type: "fact", content: "I use Python and it worked" },
      { type: "outcome", content: "it worked" }
    ])
  })

  it.each([
    "Can you help me write a function?",
    "What is the weather today?",
    "I'm based in Berlin",
    "I know",
    "Nothing is impossible",
    "the plan we discussed at length with the whole team on friday afternoon is final"
  ])("no match: %j", (message) => {
    expect(matchMessage(message)).toEqual([])
  })

  it("buffers user and tool_result messages only", () => {
    const msg = { content: "I prefer dark mode", timestamp: "2026-01-01T00:00:00.000Z", index: 4, session_id: "s" }
    const entry = { type: "preference", content: "I prefer dark mode", timestamp: msg.timestamp, source_msg: 4, session_id: "s" }
    expect(bufferEntriesFor({ ...msg, role: "user" })).toEqual([entry])
    expect(bufferEntriesFor({ ...msg, role: "tool_result" })).toEqual([entry])
    expect(bufferEntriesFor({ ...msg, role: "assistant" })).toEqual([])
    expect(bufferEntriesFor({ ...msg, role: "tool_call" })).toEqual([])
  })
})
