import { describe, expect, it } from "vitest"
import { readmeShell, runShell } from "./readme.js"

interface Result {
  readonly content: string
  readonly status: string
}

describe("README quick start (CLI)", () => {
  it("runs verbatim with the real model: the correction is current, history keeps Python", { timeout: 600_000 }, async () => {
    const { stdout, stderr } = await runShell(readmeShell("cli"))
    expect(stderr).toBe("")
    const lines = stdout.split("\n")
    expect(lines.slice(0, 7)).toEqual([
      "logged message 0 in session s1 (buffered: fact)",
      "logged message 1 in session s1 (buffered: fact)",
      "Consolidated 1 session(s), 2 new node(s):",
      "  s1: 2 new node(s)",
      "logged message 0 in session s2 (buffered: correction, fact)",
      "Consolidated 1 session(s), 1 new node(s):",
      "  s2: 1 new node(s)"
    ])
    expect(lines[7]).toMatch(/^1\. \[graph\] \(score: \d\.\d{3}\) Actually, my preferred language is Rust$/)
    const json = lines.find((l) => l.startsWith("{"))
    const history = (JSON.parse(json!) as { results: Array<Result> }).results.map((r) => [r.content, r.status])
    expect(history.slice(0, 2)).toEqual([
      ["Actually, my preferred language is Rust", "active"],
      ["My preferred language is Python", "superseded"]
    ])
    const nodes = lines.filter((l) => /^[0-9a-f-]{36} {2}/.test(l)).map((l) => l.replace(/^[0-9a-f-]{36}\s+(\S+)\s+\S+\s+\S+.*?\s{2}(.*)$/, "$1 | $2"))
    expect(nodes).toEqual([
      "superseded | My preferred language is Python",
      "active | The API endpoint is https://api.v1.example.com",
      "active | Actually, my preferred language is Rust"
    ])
    expect(lines).toContain("graph:          3 nodes, 0 edges (sqlite)")
    expect(lines).toContain("raw log:        3 messages in 2 sessions")
  })
})
