import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { lastAssistantText } from "../../src/hooks/transcript.js"
import { makeTempDir } from "../support/cli.js"

// One folder for this module's transcripts, removed when it is done.
const temp = makeTempDir("awhm-transcript-")
afterAll(temp.cleanup)

const write = (lines: ReadonlyArray<unknown>): string => {
  const dir = fs.mkdtempSync(path.join(temp.dir, "t-"))
  const file = path.join(dir, "t.jsonl")
  fs.writeFileSync(file, lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n") + "\n")
  return file
}

describe("Claude Code transcript fallback", () => {
  it("returns the text blocks of the last assistant message, skipping tool-only turns", () => {
    const file = write([
      { type: "user", message: { role: "user", content: "hi" } },
      { type: "assistant", message: { role: "assistant", content: [{ type: "text", text: "First answer" }] } },
      { type: "assistant", message: { role: "assistant", content: [{ type: "text", text: "Done." }, { type: "text", text: "Bye" }] } },
      { type: "assistant", message: { role: "assistant", content: [{ type: "tool_use", id: "t", name: "Bash", input: {} }] } },
      "{torn line"
    ])
    expect(lastAssistantText(file)).toBe("Done.\nBye")
  })

  it("only looks at the current turn: a reply before the user's last prompt is not this turn's", () => {
    const file = write([
      { type: "assistant", message: { role: "assistant", content: [{ type: "text", text: "Old answer" }] } },
      { type: "user", message: { role: "user", content: "Next question" } },
      { type: "assistant", message: { role: "assistant", content: [{ type: "tool_use", id: "t", name: "Bash", input: {} }] } },
      { type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: "ok" }] } }
    ])
    expect(lastAssistantText(file)).toBeNull()
  })

  it("is null for a missing file or a transcript without assistant text", () => {
    expect(lastAssistantText("/nonexistent/awhm/t.jsonl")).toBeNull()
    expect(lastAssistantText(write([{ type: "user", message: { role: "user", content: "hi" } }]))).toBeNull()
  })
})
