import { afterEach, describe, expect, it } from "vitest"
import { makeTempDir, runAwhm } from "../support/cli.js"

// @effect/cli fills an empty positional with an option it does not know: `awhm query --bogus` ran a query
// for "--bogus". A mistyped flag is a usage error; a value that starts with "-" goes after "--".

const cleanups: Array<() => void> = []
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c()
})
const tempDir = () => {
  const t = makeTempDir("awhm-unknown-option-")
  cleanups.push(t.cleanup)
  return t.dir
}

const refused = (arg: string) => ({
  code: 2,
  stdout: "",
  stderr: `awhm: Received unknown argument: '${arg}' (a value that starts with '-' goes after '--')\n`
})

describe("an unknown option where a command takes a value", () => {
  it("query, delete and export refuse it with exit 2 and one line", async () => {
    const dir = tempDir()
    expect(await runAwhm(["query", "--bogus"], { dataDir: dir })).toEqual(refused("--bogus"))
    expect(await runAwhm(["query", "-k", "3", "--lexicl-only"], { dataDir: dir })).toEqual(refused("--lexicl-only"))
    expect(await runAwhm(["query", "-x"], { dataDir: dir })).toEqual(refused("-x"))
    expect(await runAwhm(["delete", "--keep-sibling"], { dataDir: dir })).toEqual(refused("--keep-sibling"))
    expect(await runAwhm(["export", "--format", "awhm-lite", "--bogus"], { dataDir: dir })).toEqual(refused("--bogus"))
  })

  it("after --, or not shaped like an option, the same text is a query", async () => {
    const dir = tempDir()
    expect(await runAwhm(["query", "--json", "--", "--bogus"], { dataDir: dir })).toEqual({ code: 0, stdout: '{"results":[]}\n', stderr: "" })
    expect(await runAwhm(["query", "--json", "-5 degrees at night"], { dataDir: dir })).toEqual({ code: 0, stdout: '{"results":[]}\n', stderr: "" })
  })
})
