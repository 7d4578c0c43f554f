import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import { SettingsFileError } from "../domain/errors.js"
import { atomicWriteFileSync } from "../store/atomicWrite.js"
import { projectDir } from "./project.js"
import { hooksOf, SettingsShape } from "./settingsMerge.js"

// Claude Code's settings files, read and written for `awhm hook install|uninstall` and `awhm doctor`.

/** `~/.claude/settings.json` (Claude Code's CLAUDE_CONFIG_DIR moves it), or the project's `.claude/settings.json`. */
export const settingsPath = (where: "user" | "project", env: NodeJS.ProcessEnv, cwd: string): string =>
  where === "user"
    ? path.join(env.CLAUDE_CONFIG_DIR?.trim() || path.join(env.HOME?.trim() || os.homedir(), ".claude"), "settings.json")
    : path.join(projectDir(env, cwd) ?? cwd, ".claude", "settings.json")

/**
 * Where in the text a JSON.parse failure is, as " (line L, column C)", or "" when the message does not
 * say. Never the message itself: it may quote the file, and settings can hold secrets.
 */
const position = (text: string, e: unknown): string => {
  const at = /at position (\d+)/.exec(e instanceof Error ? e.message : "")
  if (at === null) return ""
  const before = text.slice(0, Number(at[1]))
  return ` (line ${before.split("\n").length}, column ${before.length - before.lastIndexOf("\n")})`
}

/** A settings file as read: null when there is none (or it is empty), else its parsed, checked content. */
export const readSettings = (file: string): Effect.Effect<{ readonly exists: boolean; readonly settings: Record<string, unknown> }, SettingsFileError> =>
  Effect.try({
    try: () => {
      let text: string
      try {
        text = fs.readFileSync(file, "utf8")
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "ENOENT") return { exists: false, settings: {} }
        throw new SettingsShape(`cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})`)
      }
      if (text.trim() === "") return { exists: true, settings: {} }
      let parsed: unknown
      try {
        parsed = JSON.parse(text)
      } catch (e) {
        throw new SettingsShape(`is not valid JSON${position(text, e)}`)
      }
      hooksOf(parsed)
      return { exists: true, settings: parsed as Record<string, unknown> }
    },
    catch: (e) => {
      const why = e instanceof SettingsShape ? e.message : String(e)
      const what = why.startsWith("it") ? `is not a Claude Code settings file: ${why}` : why
      return new SettingsFileError({ path: file, message: `${file} ${what}; fix it or move it away: nothing was changed` })
    }
  })

/** `<file>.awhm-backup-<UTC time>`: never an existing file. */
const backupName = (file: string): string => {
  const stamp = new Date().toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z")
  for (let n = 0; ; n++) {
    const name = `${file}.awhm-backup-${stamp}${n === 0 ? "" : `-${n}`}`
    if (!fs.existsSync(name)) return name
  }
}

/**
 * Replaces a settings file with `settings` (2-space JSON, as Claude Code writes it), atomically, after
 * copying the old file aside. Returns the backup's path (null when there was no old file).
 */
export const writeSettings = (file: string, settings: Record<string, unknown>, existed: boolean): Effect.Effect<string | null, SettingsFileError> =>
  Effect.try({
    try: () => {
      let backup: string | null = null
      if (existed) {
        backup = backupName(file)
        fs.copyFileSync(file, backup, fs.constants.COPYFILE_EXCL)
      }
      // Claude Code's file, not the data dir's: it keeps its mode (a new one is readable, as Claude Code makes it).
      atomicWriteFileSync(file, JSON.stringify(settings, null, 2) + "\n", existed ? fs.statSync(file).mode & 0o777 : 0o644)
      return backup
    },
    catch: (e) =>
      new SettingsFileError({ path: file, message: `could not write ${file} (${(e as NodeJS.ErrnoException).code ?? String(e)}); nothing was changed` })
  })
