import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { runAwhm } from "../support/cli.js"
import { tempDir } from "../support/graphFixtures.js"

const run = (args: ReadonlyArray<string>, dataDir: string) => Effect.promise(() => runAwhm(args, { dataDir }))

describe("awhm consolidate", () => {
  it.scoped("--json prints {newNodes, sessions}; a second run finds nothing; --session limits it", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("awhm-cli-consolidate-")
      for (const [sid, text] of [["s1", "I prefer dark mode"], ["s1", "The port is 8080"], ["s2", "Our deadline is next week"]]) {
        expect((yield* run(["log", "--session", sid!, "--role", "user", text!], dir)).code).toBe(0)
      }
      const only = yield* run(["consolidate", "--session", "s2", "--json"], dir)
      expect([only.code, JSON.parse(only.stdout)]).toEqual([0, { newNodes: 1, sessions: { s2: 1 } }])
      const all = yield* run(["consolidate", "--json"], dir)
      expect([all.code, all.stdout.trim().split("\n").length, JSON.parse(all.stdout)]).toEqual([0, 1, { newNodes: 2, sessions: { s1: 2 } }])
      expect(all.stderr).toBe("")
      const again = yield* run(["consolidate"], dir)
      expect([again.code, again.stdout]).toEqual([0, "No pending sessions to consolidate.\n"])
      const progress = JSON.parse(fs.readFileSync(path.join(dir, "meta", "consolidated_sessions.json"), "utf8"))
      expect(Object.keys(progress.sessions).sort()).toEqual(["s1", "s2"])
    })
  )

  it.scoped("human output lists each session; a damaged progress file is one line on stderr and exit 1", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("awhm-cli-consolidate-")
      yield* run(["log", "--session", "s1", "--role", "user", "I prefer tea"], dir)
      const human = yield* run(["consolidate"], dir)
      expect(human.stdout).toBe("Consolidated 1 session(s), 1 new node(s):\n  s1: 1 new node(s)\n")
      fs.writeFileSync(path.join(dir, "meta", "consolidated_sessions.json"), "{")
      yield* run(["log", "--session", "s1", "--role", "user", "I prefer coffee"], dir)
      const bad = yield* run(["consolidate", "--json"], dir)
      expect([bad.code, bad.stdout, bad.stderr.trim().split("\n")]).toEqual([1, "", [expect.stringContaining("awhm: ")]])
      expect(bad.stderr).toContain("consolidated_sessions.json is not valid JSON")
    })
  )

  it.scoped("a bad --stage2-client is a usage error (exit 2)", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("awhm-cli-consolidate-")
      expect((yield* run(["consolidate", "--stage2", "--stage2-client", "gpt"], dir)).code).toBe(2)
    })
  )
})
