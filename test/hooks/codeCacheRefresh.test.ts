import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "@effect/vitest"
import { makeTempDir, ROOT } from "../support/cli.js"

// The bin (dist/awhm.cjs) runs `awhm hook prompt` in the process from the awhm-hook.cjs beside it, through V8's
// code cache kept beside it too (src/bin/cachedBundle.ts). Here the bundle is a stand-in: every run calls its 300
// "base" functions; long runs also call 300 others, which short runs never compile.
const FUNCTIONS = 300
const fn = (name: string, i: number) =>
  `  function ${name}${i}(x) { let s = ${i}; for (let j = 0; j < x; j++) s = (s * 31 + j + ${i}) % 1000003; return s === -1 ? "never ${name} ${i}" : s },`
const fakeHook = [
  "const base = [",
  ...Array.from({ length: FUNCTIONS }, (_, i) => fn("b", i)),
  "]",
  "const work = [",
  ...Array.from({ length: FUNCTIONS }, (_, i) => fn("w", i)),
  "]",
  "exports.main = async () => {",
  "  let total = 0",
  "  for (const f of base) total += f(2)",
  '  if (process.env.FAKE_HOOK_LONG === "1") for (const f of work) total += f(3)',
  "  process.stdout.write(`done ${total}\\n`)",
  "}"
].join("\n")

let cleanup: (() => void) | null = null
afterEach(() => {
  cleanup?.()
  cleanup = null
})

const setUp = () => {
  const temp = makeTempDir("awhm-codecache-")
  cleanup = temp.cleanup
  for (const f of ["awhm.cjs", "awhm-hook-client.cjs"]) fs.copyFileSync(path.join(ROOT, "dist", f), path.join(temp.dir, f))
  fs.writeFileSync(path.join(temp.dir, "awhm-hook.cjs"), fakeHook)
  const run = (long: boolean, check: "always" | "never" = "always") => {
    const r = spawnSync(process.execPath, [path.join(temp.dir, "awhm.cjs"), "hook", "prompt"], {
      input: "{}",
      encoding: "utf8",
      env: { ...process.env, AWHM_HOOK_SERVER: "0", AWHM_CODE_CACHE_CHECK: check, FAKE_HOOK_LONG: long ? "1" : "0", AWHM_DATA_DIR: path.join(temp.dir, "data") }
    })
    expect(r.status).toBe(0)
    return r.stdout
  }
  const cache = () => {
    const files = fs.readdirSync(temp.dir).filter((f) => f.endsWith(".cache"))
    expect(files).toHaveLength(1)
    expect(files[0]).toMatch(/^awhm-hook\.[0-9a-f]{16}\.prompt\.cache$/)
    return fs.readFileSync(path.join(temp.dir, files[0]!))
  }
  return { dir: temp.dir, run, cache }
}

describe("the hook bundle's code cache is rewritten when a run compiled notably more than it read from it", () => {
  it("a cache written by a short run is replaced by a fuller one, which later runs leave alone", () => {
    const { dir, run, cache } = setUp()
    const shortOut = run(false)
    expect(shortOut).toMatch(/^done \d+\n$/)
    const short = cache()
    // A short run again: nothing new compiled, the file stays as it was.
    expect(run(false)).toBe(shortOut)
    expect(cache().equals(short)).toBe(true)
    // A long run compiled the 300 functions the cache lacks: the cache now holds them too.
    const longOut = run(true)
    const full = cache()
    expect(full.length).toBeGreaterThan(short.length + FUNCTIONS * 50)
    // Later runs, short or long, load it as it is: same output, same file.
    expect(run(false)).toBe(shortOut)
    expect(run(true)).toBe(longOut)
    expect(cache().equals(full)).toBe(true)
    // Written beside it, then renamed over it: no temporary file is left.
    expect(fs.readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([])
  })

  it("a run that does not look (AWHM_CODE_CACHE_CHECK=never) leaves a short cache as it is", () => {
    const { run, cache } = setUp()
    run(false)
    const short = cache()
    run(true, "never")
    expect(cache().equals(short)).toBe(true)
  })
})

describe("the CLI bundle keeps a code cache per hot command", () => {
  it("`awhm query` and `awhm consolidate` each have their own; every other command shares one", () => {
    const temp = makeTempDir("awhm-clicache-")
    cleanup = temp.cleanup
    fs.copyFileSync(path.join(ROOT, "dist", "awhm.cjs"), path.join(temp.dir, "awhm.cjs"))
    fs.writeFileSync(path.join(temp.dir, "awhm-cli.cjs"), "exports.runCli = (argv) => process.stdout.write(`ran ${argv[2]}\\n`)")
    const run = (command: string) =>
      spawnSync(process.execPath, [path.join(temp.dir, "awhm.cjs"), command], { encoding: "utf8", env: { ...process.env, AWHM_CODE_CACHE_CHECK: "never" } }).stdout
    expect([run("query"), run("status"), run("consolidate"), run("doctor")]).toEqual(["ran query\n", "ran status\n", "ran consolidate\n", "ran doctor\n"])
    const caches = fs.readdirSync(temp.dir).filter((f) => f.endsWith(".cache")).map((f) => f.replace(/\.[0-9a-f]{16}\./, ".<build>."))
    expect(caches.sort()).toEqual(["awhm-cli.<build>.consolidate.cache", "awhm-cli.<build>.other.cache", "awhm-cli.<build>.query.cache"])
  })
})
