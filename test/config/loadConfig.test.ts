import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { loadConfig } from "../../src/layers/ConfigLive.js"
import { scopedTempDir } from "../support/cli.js"

// A long-lived process (the hook server) resolves the configuration on every request: what it resolves must
// follow config.json, the environment and the flags each time, while the same inputs cost one resolution.
describe("loadConfig in a long-lived process", () => {
  it.scoped("each call sees config.json, the environment and the flags as they are now", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir("awhm-config-")
      const file = path.join(dir, "config.json")
      const k = (flags: Record<string, string> = {}, env: Record<string, string> = {}) =>
        Effect.map(loadConfig({ data_dir: dir, ...flags }, env), (c) => [c.k, c.dataDir] as const)
      expect(yield* k()).toEqual([10, dir])
      fs.writeFileSync(file, JSON.stringify({ k: 7 }))
      expect(yield* k()).toEqual([7, dir])
      expect(yield* k({}, { AWHM_K: "9" })).toEqual([9, dir])
      expect(yield* k({ k: "11" }, { AWHM_K: "9" })).toEqual([11, dir])
      expect(yield* k()).toEqual([7, dir])
      fs.writeFileSync(file, JSON.stringify({ k: "many" }))
      expect((yield* Effect.flip(loadConfig({ data_dir: dir }, {}))).message).toMatch(/^invalid configuration: k/)
      fs.writeFileSync(file, JSON.stringify({ k: 7 }))
      expect(yield* k()).toEqual([7, dir])
    })
  )
})
