import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "@effect/vitest"
import { makeNode, type MemoryNode } from "../../src/domain/Node.js"
import { PROFILE_HEADER } from "../../src/hooks/context.js"
import { listFiles, makeTempDir, runAwhm } from "../support/cli.js"
import { graphOf, seedGraph } from "../support/graphSeed.js"

// `awhm hook session-start` through the real bin: what Claude Code gets at startup, resume, /clear and
// compaction, before any prompt.

const SHOP = "/home/me/shop"
const temps: Array<() => void> = []
afterEach(() => temps.splice(0).forEach((c) => c()))
const tempDir = () => {
  const t = makeTempDir("awhm-start-")
  temps.push(t.cleanup)
  return t.dir
}

const node = (id: string, content: string, createdAt: string, fields: Partial<MemoryNode> = {}) =>
  makeNode({ id, type: "semantic", content, createdAt: `2026-0${createdAt}T10:00:00.000Z`, scope: SHOP, ...fields })

const NODES = [
  node("n1", "Our staging database is PostgreSQL 16.", "3-01"),
  node("n2", "I prefer pnpm over npm.", "3-03", { type: "procedural" }),
  node("n3", "Always run the linter before a commit.", "3-05", { type: "procedural", scope: null }),
  node("n4", "My name is Alice.", "3-02", { scope: null }),
  // Not in the profile: superseded, expired, another project, an event, an entity name, a question.
  node("n5", "Our staging database is MySQL 8.", "2-01", { status: "superseded" }),
  node("n6", "The release freeze is on.", "3-04", { validTo: "2026-03-10T00:00:00.000Z" }),
  node("n7", "The blog runs on Hugo.", "3-06", { scope: "/home/me/blog" }),
  node("n8", "Deployed the billing service yesterday.", "3-07", { type: "episodic" }),
  node("n9", "PERSON: Alice", "3-08", { entityType: "PERSON" }),
  node("n10", "Which database does staging use?", "3-09")
]

const start = (dir: string, source: string, env: Record<string, string> = {}) =>
  runAwhm(["hook", "session-start"], {
    dataDir: dir,
    env,
    input: JSON.stringify({ session_id: "s", cwd: SHOP, hook_event_name: "SessionStart", source, transcript_path: "/nonexistent.jsonl" })
  })

describe("awhm hook session-start", () => {
  it("injects this project's and global current facts, preferences and policies, newest first, for every source", async () => {
    const dir = tempDir()
    await seedGraph(dir, graphOf(NODES))
    const expected = JSON.stringify({
      hookSpecificOutput: {
        hookEventName: "SessionStart",
        additionalContext: [
          PROFILE_HEADER,
          "- Always run the linter before a commit.",
          "- I prefer pnpm over npm.",
          "- My name is Alice.",
          "- Our staging database is PostgreSQL 16."
        ].join("\n")
      }
    }) + "\n"
    for (const source of ["startup", "resume", "clear", "compact"]) {
      expect(await start(dir, source)).toEqual({ code: 0, stdout: expected, stderr: "" })
    }
  })

  it("stays within hook_context_chars: the newest memories first, the last one cut at a word", async () => {
    const dir = tempDir()
    await seedGraph(dir, graphOf(NODES))
    const kept = ["\n- Always run the linter before a commit.", "\n- I prefer pnpm over npm.", "\n- My name is Alice."]
    const budget = PROFILE_HEADER.length + kept.join("").length + 3 + 26
    const r = await start(dir, "startup", { AWHM_HOOK_CONTEXT_CHARS: String(budget) })
    const context = JSON.parse(r.stdout).hookSpecificOutput.additionalContext as string
    expect(context).toBe(`${PROFILE_HEADER}${kept.join("")}\n- Our staging database is…`)
    expect(context.length).toBeLessThanOrEqual(budget)
  })

  it("global scope mode shows every project's memories; nothing known, or no data dir: silence, nothing created", async () => {
    const dir = tempDir()
    await seedGraph(dir, graphOf(NODES))
    const global = await start(dir, "startup", { AWHM_SCOPE: "global" })
    expect((JSON.parse(global.stdout).hookSpecificOutput.additionalContext as string).split("\n").slice(1, 3)).toEqual([
      "- The blog runs on Hugo.",
      "- Always run the linter before a commit."
    ])
    const empty = tempDir()
    await seedGraph(empty, graphOf([NODES[4]!, NODES[7]!]))
    expect(await start(empty, "startup")).toEqual({ code: 0, stdout: "", stderr: "" })
    const missing = path.join(tempDir(), "not-yet")
    expect(await start(missing, "startup")).toEqual({ code: 0, stdout: "", stderr: "" })
    expect(fs.existsSync(missing)).toBe(false)
    expect(await start(empty, "startup", { AWHM_HOOK_ACTIVE: "1" })).toEqual({ code: 0, stdout: "", stderr: "" })
    expect(listFiles(empty).filter((f) => f.startsWith("logs/"))).toEqual([])
  })
})
