import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "@effect/vitest"
import { makeTempDir, ROOT, runAwhm } from "../support/cli.js"

// `awhm hook install|uninstall` and `awhm doctor` through the real bin, on copies of settings files shaped
// like real ones: other hooks, permissions, env keys, an older awhm entry.

const temps: Array<() => void> = []
afterEach(() => temps.splice(0).forEach((c) => c()))

const REAL = {
  $schema: "https://json.schemastore.org/claude-code-settings.json",
  permissions: { allow: ["Bash(npm run test:*)", "Read(~/.zshrc)"], deny: ["Read(./.env)"] },
  env: { CLAUDE_CODE_ENABLE_TELEMETRY: "0", ANTHROPIC_MODEL: "claude-sonnet-4-5" },
  hooks: {
    PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "~/.claude/hooks/guard.sh", timeout: 5 }] }],
    Stop: [{ hooks: [{ type: "command", command: "notify-send 'Claude is done'" }, { type: "command", command: "/old/bin/awhm hook stop", timeout: 20 }] }]
  },
  statusLine: { type: "command", command: "~/.claude/statusline.sh" },
  model: "sonnet"
}
const BIN = "/opt/awhm/bin/awhm"
const ours = (hook: string, timeout = 20) => ({ hooks: [{ type: "command", command: `${BIN} hook ${hook}`, timeout }] })

const setup = () => {
  const t = makeTempDir("awhm-install-")
  temps.push(t.cleanup)
  const home = path.join(t.dir, "home")
  const file = path.join(home, ".claude", "settings.json")
  fs.mkdirSync(path.dirname(file), { recursive: true })
  return { dir: t.dir, home, file, env: { HOME: home } }
}
const backups = (file: string) => fs.readdirSync(path.dirname(file)).filter((f) => f.startsWith("settings.json.awhm-backup-"))

describe("awhm hook install / uninstall", () => {
  it("merges awhm's hooks in, keeping every other key and hook; again changes nothing; uninstall gives the rest back", async () => {
    const { file, env } = setup()
    const original = JSON.stringify(REAL, null, 2) + "\n"
    fs.writeFileSync(file, original)

    const dry = await runAwhm(["hook", "install", "--command", BIN, "--dry-run"], { env })
    expect(dry).toEqual({
      code: 0,
      stdout: `awhm: dry run: would have added SessionStart, UserPromptSubmit, SessionEnd; updated Stop in ${file}; nothing was written\n`,
      stderr: ""
    })
    expect(fs.readFileSync(file, "utf8")).toBe(original)
    expect(backups(file)).toEqual([])

    const r = await runAwhm(["hook", "install", "--command", BIN], { env })
    expect(r.code).toBe(0)
    expect(r.stderr).toBe("")
    const [backup] = backups(file)
    expect(r.stdout).toBe(`awhm: added SessionStart, UserPromptSubmit, SessionEnd; updated Stop in ${file} (backup: ${path.join(path.dirname(file), backup!)})\n`)
    expect(fs.readFileSync(path.join(path.dirname(file), backup!), "utf8")).toBe(original)
    const installed = JSON.parse(fs.readFileSync(file, "utf8"))
    expect(installed).toEqual({
      ...REAL,
      hooks: {
        PreToolUse: REAL.hooks.PreToolUse,
        Stop: [{ hooks: [{ type: "command", command: "notify-send 'Claude is done'" }, ours("stop").hooks[0]] }],
        SessionStart: [ours("session-start")],
        UserPromptSubmit: [ours("prompt")],
        SessionEnd: [ours("session-end", 60)]
      }
    })
    expect(Object.keys(installed)).toEqual(Object.keys(REAL))

    expect(await runAwhm(["hook", "install", "--command", BIN], { env })).toEqual({
      code: 0,
      stdout: `awhm: the hooks are already installed in ${file}; nothing was changed\n`,
      stderr: ""
    })
    expect(backups(file).length).toBe(1)

    const un = await runAwhm(["hook", "uninstall", "--json"], { env })
    expect(un.code).toBe(0)
    const report = JSON.parse(un.stdout)
    expect(report).toEqual({
      file,
      added: [],
      updated: [],
      removed: ["Stop", "SessionStart", "UserPromptSubmit", "SessionEnd"],
      changed: true,
      dryRun: false,
      backup: expect.stringContaining(`${file}.awhm-backup-`)
    })
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual({
      ...REAL,
      hooks: { PreToolUse: REAL.hooks.PreToolUse, Stop: [{ hooks: [{ type: "command", command: "notify-send 'Claude is done'" }] }] }
    })
    expect((await runAwhm(["hook", "uninstall"], { env })).stdout).toBe(`awhm: no awhm hooks in ${file}; nothing was changed\n`)
  })

  it("no settings file yet: a new one with only the hooks; --project writes the repository's .claude/settings.json", async () => {
    const { dir, file, env } = setup()
    fs.rmSync(path.dirname(file), { recursive: true })
    const r = await runAwhm(["hook", "install", "--command", BIN], { env })
    expect(r).toEqual({ code: 0, stdout: `awhm: added SessionStart, UserPromptSubmit, Stop, SessionEnd in ${file} (a new file)\n`, stderr: "" })
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual({
      hooks: { SessionStart: [ours("session-start")], UserPromptSubmit: [ours("prompt")], Stop: [ours("stop")], SessionEnd: [ours("session-end", 60)] }
    })

    const repo = path.join(dir, "repo")
    fs.mkdirSync(path.join(repo, "src"), { recursive: true })
    execFileSync("git", ["init", "-q", repo])
    const p = await runAwhm(["hook", "install", "--project", "--command", BIN], { env, cwd: path.join(repo, "src") })
    expect(p.stdout).toBe(`awhm: added SessionStart, UserPromptSubmit, Stop, SessionEnd in ${path.join(repo, ".claude", "settings.json")} (a new file)\n`)
  })

  it("Claude Code's folders are taken as they are: a group-writable project keeps its modes, a new file is readable by all", async () => {
    const { dir, env } = setup()
    const project = (name: string) => {
      const repo = path.join(dir, name)
      fs.mkdirSync(repo, { mode: 0o775 })
      fs.chmodSync(repo, 0o775)
      execFileSync("git", ["init", "-q", repo])
      return { repo, folder: path.join(repo, ".claude"), file: path.join(repo, ".claude", "settings.json") }
    }
    const mode = (p: string) => fs.statSync(p).mode & 0o777

    const shared = project("shared")
    fs.mkdirSync(shared.folder)
    fs.chmodSync(shared.folder, 0o775)
    fs.writeFileSync(shared.file, JSON.stringify({ model: "sonnet" }))
    fs.chmodSync(shared.file, 0o664)
    const r = await runAwhm(["hook", "install", "--project", "--command", BIN], { env, cwd: shared.repo })
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" })
    expect(JSON.parse(fs.readFileSync(shared.file, "utf8")).model).toBe("sonnet")
    expect([mode(shared.repo), mode(shared.folder), mode(shared.file)]).toEqual([0o775, 0o775, 0o664])

    const fresh = project("fresh")
    expect((await runAwhm(["hook", "install", "--project", "--command", BIN], { env, cwd: fresh.repo })).code).toBe(0)
    expect(mode(fresh.file)).toBe(0o644)
  })

  it("an invalid or foreign-shaped settings file is left alone: one line, exit 1", async () => {
    const { file, env } = setup()
    const broken = '{\n  "permissions": { "allow": ["Bash(ls)"], },\n  "env": { "SECRET_TOKEN": "sk-do-not-print" }\n}\n'
    fs.writeFileSync(file, broken)
    for (const args of [["hook", "install"], ["hook", "uninstall"], ["hook", "install", "--dry-run"]]) {
      expect(await runAwhm(args, { env })).toEqual({
        code: 1,
        stdout: "",
        stderr: `awhm: ${file} is not valid JSON (line 2, column 43); fix it or move it away: nothing was changed\n`
      })
    }
    expect(fs.readFileSync(file, "utf8")).toBe(broken)
    fs.writeFileSync(file, JSON.stringify({ hooks: { Stop: { command: "x" } } }))
    expect(await runAwhm(["hook", "install"], { env })).toEqual({
      code: 1,
      stdout: "",
      stderr: `awhm: ${file} is not a Claude Code settings file: its "hooks.Stop" is not a list; fix it or move it away: nothing was changed\n`
    })
    expect(backups(file)).toEqual([])
    expect(await runAwhm(["hook", "install", "--user", "--project"], { env })).toEqual({ code: 2, stdout: "", stderr: "awhm: choose one of --project and --user\n" })
  })
})

describe("awhm doctor", () => {
  const BUILT = path.join(ROOT, "dist", "awhm.mjs")

  it("says what is broken and how to fix it, then that all is well once fixed", async () => {
    const { dir, file, env } = setup()
    const data = path.join(dir, "data")
    const doctor = async (extra: Record<string, string> = {}) => {
      const r = await runAwhm(["doctor", "--json"], { dataDir: data, env: { ...env, ...extra }, cwd: dir })
      return { code: r.code, stderr: r.stderr, checks: (JSON.parse(r.stdout) as { checks: Array<{ name: string; ok: boolean; detail: string; fix?: string }> }).checks }
    }
    fs.writeFileSync(file, '{ "hooks": ')
    const broken = await doctor()
    expect(broken.code).toBe(1)
    expect(broken.stderr).toBe("awhm: 2 of 5 checks failed\n")
    expect(broken.checks.slice(0, 2)).toEqual([
      { name: "settings", ok: false, detail: `${file} is not valid JSON (Claude Code ignores it, hooks and all)`, fix: `fix the JSON of ${file}, then run \`awhm hook install\` (or \`awhm hook install --project\`)` },
      { name: "bin", ok: false, detail: "no hook command to check", fix: "run `awhm hook install` (or `awhm hook install --project`)" }
    ])

    // Installed with a bin that is gone.
    fs.writeFileSync(file, JSON.stringify(REAL))
    expect((await runAwhm(["hook", "install", "--command", "/nonexistent/awhm"], { env })).code).toBe(0)
    expect((await doctor()).checks[1]).toEqual({
      name: "bin", ok: false, detail: "the hooks run /nonexistent/awhm, which is not an executable file", fix: "run `awhm hook install` (or `awhm hook install --project`)"
    })

    // Fixed: the built bin, a data dir with memories, a model that does not load (the model check says so).
    expect((await runAwhm(["hook", "install", "--command", `${process.execPath} ${BUILT}`], { env })).code).toBe(0)
    expect((await runAwhm(["log", "--session", "d", "--role", "user", "My name is Alice"], { dataDir: data })).code).toBe(0)
    expect((await runAwhm(["consolidate"], { dataDir: data })).code).toBe(0)
    const noModel = await doctor({ AWHM_EMBEDDER: "transformers", AWHM_MODEL_DIR: path.join(dir, "no-model") })
    expect(noModel.checks.find((c) => c.name === "model")).toEqual({
      name: "model",
      ok: false,
      detail: `Xenova/all-MiniLM-L6-v2 does not load: embedding model Xenova/all-MiniLM-L6-v2 could not be loaded: no model at ${path.join(dir, "no-model")} (missing config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx); run \`awhm model install\` (or point AWHM_MODEL_DIR at a copy of Xenova/all-MiniLM-L6-v2) (awhm runs lexical-only meanwhile)`,
      fix: "run `awhm model install`, or point AWHM_MODEL_DIR at a local copy of the model"
    })
    const well = await doctor()
    expect(well.code).toBe(0)
    expect(well.stderr).toBe("")
    expect(well.checks).toEqual([
      { name: "settings", ok: true, detail: `${file} runs awhm on SessionStart, UserPromptSubmit, Stop, SessionEnd` },
      { name: "bin", ok: true, detail: `the hooks run ${process.execPath} ${BUILT}` },
      { name: "data dir", ok: true, detail: `${data}: 2 memories (sqlite)` },
      { name: "model", ok: true, detail: "embedder mock: no model to load" },
      { name: "hook server", ok: true, detail: "off (AWHM_HOOK_SERVER=0): every hook works on its own" }
    ])
  })
})
