import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
// @ts-expect-error the build's esbuild plugin is plain JavaScript
import { deepEffectImports as deepImports } from "../../scripts/effectDeepImports.mjs"
import { ROOT, scopedTempDir } from "../support/cli.js"
// @ts-expect-error the build's post-step is plain JavaScript
import { asciiOnly as ascii } from "../../scripts/asciiBundle.mjs"
// @ts-expect-error the build's esbuild plugin is plain JavaScript
import { sharedBuiltins } from "../../scripts/sharedBuiltins.mjs"
import { Effect } from "effect"
import { build } from "esbuild"

const deepEffectImports = deepImports as (source: string, file: string) => string
const asciiOnly = ascii as (text: string) => string

describe("the bins' bundles take each of Effect's modules on its own", () => {
  it("a named import from effect's index becomes a namespace import of each module; type-only names go", () => {
    const source = [
      'import { Effect, Layer as L, type Context } from "effect"',
      'import {\n  Option,\n  Schema\n} from "effect"',
      'import type { Scope } from "effect"',
      'import { dual } from "effect/Function"'
    ].join("\n")
    expect(deepEffectImports(source, "x.ts")).toBe(
      [
        'import * as Effect from "effect/Effect"; import * as L from "effect/Layer"',
        'import * as Option from "effect/Option"; import * as Schema from "effect/Schema"',
        'import type { Scope } from "effect"',
        'import { dual } from "effect/Function"'
      ].join("\n")
    )
    expect(() => deepEffectImports('import { pipe } from "effect"', "x.ts")).toThrow("x.ts: cannot import pipe from effect's module")
  })

  it("the prompt hook's bundle holds none of the Effect modules it never uses (FastCheck, STM)", () => {
    const hook = fs.readFileSync(path.join(ROOT, "dist", "awhm-hook.cjs"), "utf8")
    // Effect's index re-exports FastCheck (fast-check's symbols) and the STM family: only the index pulls them in.
    expect(hook.includes('Symbol.for("fast-check/cloneMethod")')).toBe(false)
    expect(hook.includes("TRef")).toBe(false)
    // The hook still runs Effect itself.
    expect(hook.includes('Symbol.for("effect/Effect")')).toBe(true)
  })

  it("the code-cached bundles are all ASCII (one-byte strings), their regular expressions unchanged", () => {
    for (const f of ["awhm-hook.cjs", "awhm-mcp-server.cjs", "awhm-cli.cjs"]) {
      expect(/[^\p{ASCII}]/u.test(fs.readFileSync(path.join(ROOT, "dist", f), "utf8"))).toBe(false)
    }
    // Two backslashes stay before an escaped dash; one before a quote (an identity escape) goes with it.
    const literal = "/[\u2013\u2014]\\\\\u2013x\\\u2019\ud83d\ude00/u"
    expect(asciiOnly(literal)).toBe("/[\\u2013\\u2014]\\\\\\u2013x\\u2019\\ud83d\\ude00/u")
    expect(new RegExp(asciiOnly("[\u2013\u2014]\\\u2019")).test("\u2014\u2019")).toBe(true)
  })

  it.scoped("the CommonJS bundles load each builtin module once, one namespace shared by every module that imports it", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir("awhm-builtins-")
      const write = (name: string, text: string) => fs.writeFileSync(path.join(dir, name), text)
      write("a.ts", 'import * as fs from "node:fs"\nimport { join } from "node:path"\nexport const a = { fs, join }')
      write("b.ts", 'import * as fs from "node:fs"\nimport * as path from "node:path"\nexport const b = { fs, path }')
      // A require() of a builtin stays a require().
      write("c.ts", 'export const c = require("node:os") as typeof import("node:os")')
      write("main.ts", 'export { a } from "./a"\nexport { b } from "./b"\nexport { c } from "./c"')
      const out = yield* Effect.promise(() =>
        build({ entryPoints: [path.join(dir, "main.ts")], bundle: true, platform: "node", format: "cjs", write: false, plugins: [sharedBuiltins], logLevel: "silent" })
      )
      const code = out.outputFiles[0]!.text
      expect(code.match(/require\("node:fs"\)/g)).toEqual(['require("node:fs")'])
      expect(code.match(/require\("node:path"\)/g)).toEqual(['require("node:path")'])
      expect(code.includes("__toESM")).toBe(false)
      write("bundle.cjs", code)
      const { a, b, c } = createRequire(import.meta.url)(path.join(dir, "bundle.cjs")) as {
        a: { fs: typeof fs; join: typeof path.join }
        b: { fs: typeof fs; path: typeof path }
        c: typeof import("node:os")
      }
      expect(a.fs).toBe(b.fs)
      expect(a.fs.readFileSync(path.join(dir, "a.ts"), "utf8")).toBe(fs.readFileSync(path.join(dir, "a.ts"), "utf8"))
      expect([a.join("x", "y"), b.path.join("x", "y"), b.path.sep]).toEqual([path.join("x", "y"), path.join("x", "y"), path.sep])
      expect(c.EOL).toBe("\n")
    })
  )
})
