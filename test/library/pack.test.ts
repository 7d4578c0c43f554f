import { execFile, execFileSync } from "node:child_process"
import { promisify } from "node:util"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"

const ROOT = path.resolve(import.meta.dirname, "..", "..")
// Asynchronous on purpose: a worker blocked for minutes loses its connection to vitest.
const npm = async (args: ReadonlyArray<string>, cwd: string) =>
  (
    await promisify(execFile)("npm", [...args], {
      cwd,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, npm_config_audit: "false", npm_config_fund: "false" }
    })
  ).stdout

// `npm pack`, then install the tarball into an empty project as a user would, and use its bins and exports.
describe("the packed package", () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "awhm-pack-"))
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }))

  it("installs into an empty directory; its bins and exports work", { timeout: 900_000 }, async () => {
    // The dist/ that `npm test` built: building again here (or through `prepare`) would rewrite dist/chunks
    // under the feet of the CLI tests running beside this one.
    const packed = JSON.parse(await npm(["pack", "--json", "--ignore-scripts", "--pack-destination", work], ROOT)) as Array<{ filename: string; files: Array<{ path: string }> }>
    const tarball = path.join(work, packed[0]!.filename)
    const files = packed[0]!.files.map((f) => f.path)
    expect(files).toContain("dist/awhm.cjs")
    expect(files).toContain("dist/awhm.mjs")
    expect(files).toContain("dist/index.mjs")
    expect(files).toContain("dist/types/index.d.ts")
    expect(files).toContain("scripts/setup-model.mjs")
    expect(files.some((f) => f.startsWith("src/") || f.startsWith("test/") || f.startsWith(".cache/"))).toBe(false)

    const app = path.join(work, "app")
    fs.mkdirSync(app)
    fs.writeFileSync(
      path.join(app, "package.json"),
      JSON.stringify({ name: "app", private: true, type: "module", allowScripts: { "better-sqlite3": true, esbuild: true } })
    )
    await npm(["install", "--prefer-offline", "--omit=optional", tarball], app)

    const data = path.join(work, "data")
    const env = { ...process.env, AWHM_DATA_DIR: data, AWHM_EMBEDDER: "mock" }
    const bin = (name: string, args: ReadonlyArray<string>) =>
      execFileSync(path.join(app, "node_modules", ".bin", name), [...args], { cwd: app, env, encoding: "utf8" })
    expect(JSON.parse(bin("awhm", ["log", "--session", "s1", "--role", "user", "--json", "My name is Alice"]))).toEqual({
      sessionId: "s1",
      messageIndex: 0,
      bufferEntries: 1
    })
    expect(JSON.parse(bin("awhm", ["status", "--json"]))).toMatchObject({ sessions: 1, logMessages: 1, bufferEntries: 1 })
    // The MCP bin serves on stdio and exits when its input closes.
    expect(execFileSync(path.join(app, "node_modules", ".bin", "awhm-mcp"), [], { cwd: app, env, input: "", encoding: "utf8" })).toBe("")

    fs.writeFileSync(
      path.join(app, "use.mjs"),
      [
        'import { AwhmSession, InvalidInput } from "awhm"',
        'const s = await AwhmSession.start({ inMemory: true, sessionId: "t" })',
        'await s.logMessage("user", "I prefer dark mode")',
        'console.log((await s.query("which mode do I prefer?", { k: 1 }))[0].content)',
        'await s.query("x", { asOf: "not a date" }).catch((e) => console.log(e instanceof InvalidInput))',
        "await s.end()"
      ].join("\n")
    )
    expect(execFileSync(process.execPath, ["use.mjs"], { cwd: app, env, encoding: "utf8" })).toBe("I prefer dark mode\ntrue\n")
    // Type declarations resolve through the package's exports.
    expect(fs.existsSync(path.join(app, "node_modules", "awhm", "dist", "types", "index.d.ts"))).toBe(true)
  })

  it("with its optional model runtime: `awhm model install` puts the model in the data dir, and a paraphrase is answered", { timeout: 1_200_000 }, async () => {
    // The same app as above, now with transformers.js added (the sharp override it needs on npm 11).
    const app = path.join(work, "app")
    const manifest = JSON.parse(fs.readFileSync(path.join(app, "package.json"), "utf8")) as Record<string, unknown>
    fs.writeFileSync(
      path.join(app, "package.json"),
      JSON.stringify({ ...manifest, overrides: { sharp: "0.33.5" }, allowScripts: { ...(manifest.allowScripts as object), sharp: true, protobufjs: true } })
    )
    await npm(["install", "--prefer-offline", "@xenova/transformers@2.17.2"], app)
    const data = path.join(work, "full-data")
    // No AWHM_MODEL_DIR, and the installed package has no .cache/: only `awhm model install` brings the model.
    const env: Record<string, string | undefined> = { ...process.env, AWHM_DATA_DIR: data, AWHM_EMBEDDER: "transformers", AWHM_HOOK_SERVER: "0" }
    delete env.AWHM_MODEL_DIR
    const awhm = (args: ReadonlyArray<string>) =>
      promisify(execFile)(path.join(app, "node_modules", ".bin", "awhm"), [...args], { cwd: app, env, encoding: "utf8", maxBuffer: 16 * 1024 * 1024 })
    const before = await awhm(["status", "--json"])
    expect((JSON.parse(before.stdout) as { model: unknown }).model).toEqual({ dir: path.join(data, "models", "all-MiniLM-L6-v2"), source: "data-dir", found: false })
    const installed = await awhm(["model", "install"])
    expect(installed.stdout).toBe(path.join(data, "models", "all-MiniLM-L6-v2") + "\n")
    // Idempotent: a second install finds the model complete and downloads nothing.
    const again = await awhm(["model", "install"])
    expect(again).toEqual({ stdout: path.join(data, "models", "all-MiniLM-L6-v2") + "\n", stderr: "" })
    await awhm(["log", "--session", "s1", "--role", "user", "I adore hiking in the mountains"])
    await awhm(["log", "--session", "s1", "--role", "user", "The invoice is due on Friday"])
    const q = await awhm(["query", "What outdoor activity do I enjoy?", "-k", "1", "--json"])
    expect(q.stderr).toBe("")
    expect((JSON.parse(q.stdout) as { results: Array<{ content: string }> }).results.map((r) => r.content)).toEqual(["I adore hiking in the mountains"])
  })
})
