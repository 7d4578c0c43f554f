import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { acquireLockSync } from "../../src/store/fileLock.js"
import { BIN, ROOT } from "./cli.js"

/** Newest modification time under `dir` (the sources the bundle is built from). */
const newest = (dir: string): number => {
  let max = 0
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name)
    max = Math.max(max, e.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs)
  }
  return max
}

const stale = () =>
  !fs.existsSync(BIN) ||
  fs.statSync(BIN).mtimeMs < Math.max(newest(path.join(ROOT, "src")), fs.statSync(path.join(ROOT, "scripts", "build.mjs")).mtimeMs)

/**
 * Builds dist/awhm.mjs once before the suite (CLI tests run the built bin as a real process), only when a
 * source is newer than the bundle. A lock keeps parallel test runs from building over each other. If the
 * build fails the other tests still run; CLI tests then fail with the build error (see runAwhm).
 */
export default function setup(): void {
  if (process.env.VITEST_AWHM_BIN !== undefined || !stale()) return
  const release = acquireLockSync(path.join(ROOT, "dist", ".build.lock"))
  try {
    if (!stale()) return
    execFileSync(process.execPath, [path.join(ROOT, "scripts", "build.mjs")], { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] })
  } catch (e) {
    const stderr = (e as { stderr?: Buffer }).stderr?.toString() ?? String(e)
    process.env.VITEST_AWHM_BUILD_ERROR = stderr.split("\n").filter((l) => l.includes("ERROR")).slice(0, 3).join("; ") || "build failed"
    process.stderr.write(`globalSetup: npm run build failed, CLI tests will fail: ${process.env.VITEST_AWHM_BUILD_ERROR}\n`)
  } finally {
    release()
  }
}
