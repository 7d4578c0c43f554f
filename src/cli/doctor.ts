import { Command } from "@effect/cli"
import * as fs from "node:fs"
import * as path from "node:path"
import { Console, Data, Effect, Either } from "effect"
import type { AwhmConfigShape } from "../domain/Config.js"
import { errorLine } from "../domain/errors.js"
import { readSettings, settingsPath } from "../hooks/settingsFile.js"
import { awhmHookOf, hooksOf } from "../hooks/settingsMerge.js"
import { embedderLayer, graphStoreLayer } from "../layers/Main.js"
import { loadConfig } from "../layers/ConfigLive.js"
import { buildId } from "../runtime/buildId.js"
import { Embedder } from "../services/Embedder.js"
import { GraphStore } from "../services/GraphStore.js"
import { askHookServer, hookSocketDir, hookSocketPath, privateSocketDir } from "../store/hookSocket.js"
import { dataDirOption, flagMap, jsonOption } from "./common.js"

// `awhm doctor`: is memory actually working for Claude Code? One check per thing that can silently
// break it, each failure with the command or step that fixes it.

/** Some check failed (the CLI exits 1; what failed and its fix are already printed). */
class DoctorFailed extends Data.TaggedError("DoctorFailed")<{ readonly message: string }> {}

interface Check {
  readonly name: string
  readonly ok: boolean
  readonly detail: string
  readonly fix?: string
}

const EVENTS = ["SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"]
const INSTALL = "run `awhm hook install` (or `awhm hook install --project`)"

/** awhm's hook commands in a settings object, by Claude Code event. */
const awhmCommands = (settings: Record<string, unknown>): Map<string, string> => {
  const out = new Map<string, string>()
  for (const [event, groups] of Object.entries(hooksOf(settings))) {
    for (const g of groups) for (const h of g.hooks) if (awhmHookOf(h.command) !== null) out.set(event, String(h.command))
  }
  return out
}

const settingsCheck = (files: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const installed: Array<{ file: string; commands: Map<string, string> }> = []
    for (const file of files) {
      const read = yield* Effect.either(readSettings(file))
      if (Either.isLeft(read)) {
        const check: Check = { name: "settings", ok: false, detail: read.left.message.replace(/; fix it or move it away: nothing was changed$/, " (Claude Code ignores it, hooks and all)"), fix: `fix the JSON of ${file}, then ${INSTALL}` }
        return { check, commands: [] as Array<string> }
      }
      const commands = awhmCommands(read.right.settings)
      if (commands.size > 0) installed.push({ file, commands })
    }
    const commands = installed.flatMap((i) => [...i.commands.values()])
    if (installed.length === 0) return { check: { name: "settings", ok: false, detail: `no awhm hooks in ${files.join(" or ")}`, fix: INSTALL }, commands }
    if (installed.length > 1) {
      const check: Check = { name: "settings", ok: false, detail: `awhm's hooks are in both ${installed.map((i) => i.file).join(" and ")}: every prompt is logged twice`, fix: "run `awhm hook uninstall --project` (or --user)" }
      return { check, commands }
    }
    const { file, commands: found } = installed[0]!
    const missing = EVENTS.filter((e) => !found.has(e))
    const check: Check = missing.length > 0
      ? { name: "settings", ok: false, detail: `${file} has no awhm hook for ${missing.join(", ")}`, fix: INSTALL }
      : { name: "settings", ok: true, detail: `${file} runs awhm on ${EVENTS.join(", ")}` }
    return { check, commands }
  })

/** The program a hook command runs, as the shell would find it: after `env` and VAR=value words. */
const programOf = (command: string): ReadonlyArray<string> => {
  const words = [...command.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map((m) => (m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : m[2]!))
  let i = 0
  if (words[i] === "env") i++
  while (i < words.length && /^\w+=/.test(words[i]!)) i++
  return words.slice(i)
}

const executable = (file: string): boolean => {
  try {
    fs.accessSync(file, fs.constants.X_OK)
    return fs.statSync(file).isFile()
  } catch {
    return false
  }
}

const onPath = (name: string): string | null => {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) if (dir !== "" && executable(path.join(dir, name))) return path.join(dir, name)
  return null
}

const binCheck = (commands: ReadonlyArray<string>): Check => {
  if (commands.length === 0) return { name: "bin", ok: false, detail: "no hook command to check", fix: INSTALL }
  for (const command of new Set(commands)) {
    const [program, script] = programOf(command)
    if (program === undefined) return { name: "bin", ok: false, detail: `the hook command '${command}' runs nothing`, fix: INSTALL }
    const found = program.includes("/") ? (executable(program.replace(/^~(?=\/)/, process.env.HOME ?? "~")) ? program : null) : onPath(program)
    if (found === null) {
      return { name: "bin", ok: false, detail: `the hooks run ${program}, which is not ${program.includes("/") ? "an executable file" : "on PATH"}`, fix: INSTALL }
    }
    // `node /path/to/awhm.cjs hook …` (or awhm.mjs): the script must be there too.
    if (script !== undefined && /awhm(\.[cm]js)?$/.test(script) && script.includes("/") && !fs.existsSync(script)) {
      return { name: "bin", ok: false, detail: `the hooks run ${script}, which does not exist`, fix: INSTALL }
    }
  }
  return { name: "bin", ok: true, detail: `the hooks run ${[...new Set(commands.map((c) => c.replace(/\s+hook\s+\S+.*$/, "")))].join(", ")}` }
}

const dataDirCheck = (config: AwhmConfigShape) =>
  Effect.gen(function* () {
    const dir = config.dataDir
    if (!fs.existsSync(dir)) return { name: "data dir", ok: true, detail: `${dir} does not exist yet (the first hook creates it)` } satisfies Check
    try {
      fs.accessSync(dir, fs.constants.W_OK)
    } catch {
      return { name: "data dir", ok: false, detail: `${dir} is not writable`, fix: `chmod u+w ${dir} (or point AWHM_DATA_DIR elsewhere)` } satisfies Check
    }
    const counts = yield* Effect.either(Effect.scoped(Effect.flatMap(GraphStore, (g) => g.counts).pipe(Effect.provide(graphStoreLayer(config)))))
    return Either.isLeft(counts)
      ? ({ name: "data dir", ok: false, detail: `the memory graph cannot be read: ${errorLine(counts.left)}`, fix: "restore a snapshot (`awhm snapshot list`, `awhm snapshot restore --path FILE`)" } satisfies Check)
      : ({ name: "data dir", ok: true, detail: `${dir}: ${counts.right.nodes} memories (${config.storageBackend})` } satisfies Check)
  })

const modelCheck = (config: AwhmConfigShape) =>
  Effect.gen(function* () {
    if (config.embedder !== "transformers") return { name: "model", ok: true, detail: `embedder ${config.embedder}: no model to load` } satisfies Check
    const loaded = yield* Effect.either(Effect.flatMap(Embedder, (e) => e.embed(["awhm doctor"])).pipe(Effect.provide(embedderLayer(config))))
    return Either.isLeft(loaded)
      ? ({ name: "model", ok: false, detail: `${config.modelId} does not load: ${errorLine(loaded.left)} (awhm runs lexical-only meanwhile)`, fix: "run `awhm model install`, or point AWHM_MODEL_DIR at a local copy of the model" } satisfies Check)
      : ({ name: "model", ok: true, detail: `${config.modelId} loads (${loaded.right[0]?.length ?? 0} dimensions)` } satisfies Check)
  })

const serverCheck = (config: AwhmConfigShape) =>
  Effect.promise(async (): Promise<Check> => {
    if (process.env.AWHM_HOOK_SERVER === "0") return { name: "hook server", ok: true, detail: "off (AWHM_HOOK_SERVER=0): every hook works on its own" }
    const dir = hookSocketDir(config.dataDir)
    if (!fs.existsSync(dir)) return { name: "hook server", ok: true, detail: "not running (the next prompt starts it)" }
    if (!privateSocketDir(config.dataDir)) return { name: "hook server", ok: false, detail: `${dir} is not a private folder of this user's, so no hook server can start`, fix: `chmod 700 ${dir} (or remove it)` }
    if (buildId === null) return { name: "hook server", ok: true, detail: "not checked (running from sources)" }
    const socket = hookSocketPath(config.dataDir, buildId)
    const reply = await askHookServer(config.dataDir, socket, { argv: ["prompt"], env: {}, stdin: "" }, 5_000)
    if (reply === "unproven") {
      return { name: "hook server", ok: false, detail: `${socket} did not prove it is this data dir's hook server, so the hooks do not use it`, fix: `stop whatever listens there and remove ${socket}` }
    }
    return reply === "unavailable"
      ? { name: "hook server", ok: true, detail: "not running (the next prompt starts it)" }
      : { name: "hook server", ok: true, detail: "running and answering" }
  })

/** `awhm doctor [--json]`: exit 0 when every check passes, 1 otherwise. */
export const doctorCommand = Command.make("doctor", { dataDir: dataDirOption, json: jsonOption }, (args) =>
  Effect.gen(function* () {
    const config = yield* loadConfig(flagMap(args.dataDir))
    const files = [settingsPath("user", process.env, process.cwd()), settingsPath("project", process.env, process.cwd())]
    const settings = yield* settingsCheck([...new Set(files)])
    const checks: ReadonlyArray<Check> = [
      settings.check,
      binCheck(settings.commands),
      yield* dataDirCheck(config),
      yield* modelCheck(config),
      yield* serverCheck(config)
    ]
    const ok = checks.every((c) => c.ok)
    yield* Console.log(
      args.json
        ? JSON.stringify({ ok, checks })
        : checks.map((c) => `${c.ok ? "ok  " : "FAIL"} ${c.name}: ${c.detail}${c.fix === undefined ? "" : `\n     fix: ${c.fix}`}`).join("\n")
    )
    const failed = checks.filter((c) => !c.ok).length
    if (failed > 0) return yield* Effect.fail(new DoctorFailed({ message: `${failed} of ${checks.length} checks failed` }))
  })
).pipe(Command.withDescription("Check that memory works for Claude Code: settings, the hooks' bin, the data dir, the model, the hook server; each failure with its fix"))
