import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { promisify } from "node:util"
import { afterAll, describe, expect, it } from "vitest"
import { ROOT } from "../support/cli.js"

const run = promisify(execFile)

// A new user's first minutes: clone, `npm ci` (the README's install command), and the bin remembers with
// the real model, with no variable set and no other step.
describe("a fresh clone", () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "awhm-clone-"))
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }))

  it("after `npm ci`, dist/awhm.mjs answers a paraphrase from the real model", { timeout: 1_800_000 }, async () => {
    const clone = path.join(work, "awhm")
    await run("git", ["clone", "--quiet", ROOT, clone])
    const env: Record<string, string | undefined> = { ...process.env, npm_config_audit: "false", npm_config_fund: "false" }
    for (const k of Object.keys(env)) if (k.startsWith("AWHM_") || k.startsWith("VITEST")) delete env[k]
    await run("npm", ["ci"], { cwd: clone, env, maxBuffer: 64 * 1024 * 1024 })
    expect(fs.existsSync(path.join(clone, "dist", "awhm.mjs"))).toBe(true)
    const data = path.join(work, "data")
    const awhm = (args: ReadonlyArray<string>) =>
      run(process.execPath, [path.join(clone, "dist", "awhm.mjs"), ...args], { cwd: work, env: { ...env, AWHM_DATA_DIR: data, AWHM_HOOK_SERVER: "0" }, encoding: "utf8" })
    await awhm(["log", "--session", "s1", "--role", "user", "I adore hiking in the mountains"])
    await awhm(["log", "--session", "s1", "--role", "user", "The invoice is due on Friday"])
    const q = await awhm(["query", "What outdoor activity do I enjoy?", "-k", "1"])
    expect(q).toEqual({ stdout: expect.stringMatching(/^1\. \[raw_log\] \(score: \d\.\d{3}\) I adore hiking in the mountains\n$/), stderr: "" })
  })
})
