import * as fs from "node:fs"
import * as path from "node:path"

// Plain Node: the hook server and the in-process hook resolve a project the same way, from the same inputs.

/** The top of the git work tree holding `dir` (a folder with `.git`, a directory or a worktree's file), or null. */
const gitTopLevel = (dir: string): string | null => {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, ".git"))) return d
    if (path.dirname(d) === d) return null
  }
}

/**
 * The project a hook runs for: Claude Code's project directory (CLAUDE_PROJECT_DIR, where it was
 * started), else the payload's cwd, raised to the top of its git repository when it is in one, so a
 * session started in `proj/sub`, or a `cd sub` during a turn, stays in `proj`. Null without either.
 */
export const projectDir = (env: NodeJS.ProcessEnv, cwd: string | null): string | null => {
  const base = env.CLAUDE_PROJECT_DIR?.trim() || cwd?.trim() || null
  if (base === null) return null
  // A relative path would mean something else in the hook server (which runs in /): taken as it is.
  if (!path.isAbsolute(base)) return base
  return gitTopLevel(base) ?? path.normalize(base)
}
