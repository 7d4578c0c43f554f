import * as fs from "node:fs"
import * as path from "node:path"

const hook = (command: string, timeout: number) => [{ hooks: [{ type: "command", command, timeout }] }]

/** The block to merge into Claude Code's settings.json (its `hooks` format). */
export const settingsBlock = (command: string) => ({
  hooks: {
    SessionStart: hook(`${command} hook session-start`, 20),
    UserPromptSubmit: hook(`${command} hook prompt`, 20),
    Stop: hook(`${command} hook stop`, 20),
    SessionEnd: hook(`${command} hook session-end`, 60)
  }
})

/** Single-quotes a path for the shell Claude Code runs hooks in, when it needs it. */
const shellQuote = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`)

/** Like `which awhm`: the absolute path of the awhm on PATH, else plain "awhm". */
export const defaultCommand = (env: NodeJS.ProcessEnv = process.env): string => {
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (dir === "") continue
    const candidate = path.join(dir, "awhm")
    try {
      fs.accessSync(candidate, fs.constants.X_OK)
      if (fs.statSync(candidate).isFile()) return shellQuote(candidate)
    } catch {
      // not here
    }
  }
  return "awhm"
}

/** What `awhm hook settings` prints (indented, to paste). */
export const renderSettings = (command: string | null): string =>
  JSON.stringify(settingsBlock(command ?? defaultCommand()), null, 2)

/**
 * The command `awhm hook install` writes: the awhm on PATH, else this very bin run by this Node, so the
 * hooks work even when awhm is not on the PATH Claude Code runs them with.
 */
export const installCommand = (env: NodeJS.ProcessEnv = process.env): string => {
  const found = defaultCommand(env)
  const bin = process.argv[1]
  return found !== "awhm" || bin === undefined ? found : `${shellQuote(process.execPath)} ${shellQuote(path.resolve(bin))}`
}

/** The hooks of settingsBlock as one entry per Claude Code event. */
export const hookEntries = (command: string) =>
  Object.entries(settingsBlock(command).hooks).map(([event, groups]) => ({ event, hook: groups[0]!.hooks[0]! }))
