import { Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { InvalidInput } from "../domain/errors.js"
import { hookEntries, installCommand } from "../hooks/settings.js"
import { readSettings, settingsPath, writeSettings } from "../hooks/settingsFile.js"
import { installHooks, type MergeOutcome, uninstallHooks } from "../hooks/settingsMerge.js"
import { jsonOption } from "./common.js"

// `awhm hook install|uninstall`: awhm's hooks merged into (or out of) a Claude Code settings file, every
// other key and hook kept, the old file copied aside, one line saying what changed.

const project = Options.boolean("project").pipe(Options.withDescription("The project's .claude/settings.json (the git top level of the current folder)"))
const user = Options.boolean("user").pipe(Options.withDescription("~/.claude/settings.json, for every project (the default)"))
const dryRun = Options.boolean("dry-run").pipe(Options.withDescription("Say what would change; write nothing"))
const command = Options.text("command").pipe(
  Options.withDescription("The command the hooks run (default: the awhm on PATH, else this awhm run by this Node)"),
  Options.optional
)

const target = (o: { readonly project: boolean; readonly user: boolean }) =>
  o.project && o.user
    ? Effect.fail(new InvalidInput({ message: "choose one of --project and --user" }))
    : Effect.succeed(settingsPath(o.project ? "project" : "user", process.env, process.cwd()))

const describe = (outcome: MergeOutcome): string =>
  [
    outcome.added.length > 0 ? `added ${outcome.added.join(", ")}` : null,
    outcome.updated.length > 0 ? `updated ${outcome.updated.join(", ")}` : null,
    outcome.removed.length > 0 ? `removed ${outcome.removed.join(", ")}` : null
  ].filter((p) => p !== null).join("; ")

/** Reads, merges, writes (unless dry or unchanged) and reports in one line or one JSON value. */
const apply = (
  o: { readonly project: boolean; readonly user: boolean; readonly dryRun: boolean; readonly json: boolean },
  merge: (settings: Record<string, unknown>) => MergeOutcome,
  unchanged: (file: string) => string
) =>
  Effect.gen(function* () {
    const file = yield* target(o)
    const { exists, settings } = yield* readSettings(file)
    const outcome = merge(settings)
    const changed = describe(outcome)
    const backup = changed === "" || o.dryRun ? null : yield* writeSettings(file, outcome.settings, exists)
    const line =
      changed === ""
        ? unchanged(file)
        : o.dryRun
          ? `awhm: dry run: would have ${changed} in ${file}; nothing was written`
          : `awhm: ${changed} ${outcome.removed.length > 0 ? "from" : "in"} ${file} (${backup === null ? "a new file" : `backup: ${backup}`})`
    const report = {
      file,
      added: outcome.added,
      updated: outcome.updated,
      removed: outcome.removed,
      changed: changed !== "" && !o.dryRun,
      dryRun: o.dryRun,
      backup
    }
    yield* Console.log(o.json ? JSON.stringify(report) : line)
  })

export const installCommandCli = Command.make("install", { project, user, dryRun, command, json: jsonOption }, (o) =>
  apply(
    o,
    (settings) => installHooks(settings, hookEntries(Option.getOrElse(o.command, () => installCommand()))),
    (file) => `awhm: the hooks are already installed in ${file}; nothing was changed`
  )
).pipe(
  Command.withDescription(
    "Merge awhm's hooks into Claude Code's settings (SessionStart, UserPromptSubmit, Stop, SessionEnd), keeping every other key and hook; the old file is kept as <file>.awhm-backup-<time>"
  )
)

export const uninstallCommandCli = Command.make("uninstall", { project, user, dryRun, json: jsonOption }, (o) =>
  apply(o, uninstallHooks, (file) => `awhm: no awhm hooks in ${file}; nothing was changed`)
).pipe(Command.withDescription("Take awhm's hooks out of Claude Code's settings, keeping everything else; the old file is kept as a backup"))
