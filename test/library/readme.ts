import { execFile } from "node:child_process"
import { promisify } from "node:util"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { build } from "esbuild"

const ROOT = path.resolve(import.meta.dirname, "..", "..")
const run = promisify(execFile)

/** The fenced block of `lang` that follows `marker` in README.md, exactly as a reader sees it. */
const readmeBlock = (marker: string, lang: string): string => {
  const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8")
  const at = readme.indexOf(marker)
  if (at < 0) throw new Error(`README.md has no ${marker}`)
  const m = new RegExp("```" + lang + "\\n([\\s\\S]*?)```").exec(readme.slice(at))
  if (m === null) throw new Error(`no ${lang} block after ${marker}`)
  return m[1]!
}

/** The ```ts block that follows `<!-- example:NAME -->` in README.md. */
export const readmeExample = (name: string): string => readmeBlock(`<!-- example:${name} -->`, "ts")

/** Bundles the code with `awhm` resolved to this repo's source and runs it in a fresh temp cwd. */
export const runExample = async (code: string, env: Record<string, string> = {}) => {
  // Inside the repo, so that the bundle's external packages resolve from its node_modules.
  fs.mkdirSync(path.join(ROOT, ".tmp"), { recursive: true })
  const dir = fs.mkdtempSync(path.join(ROOT, ".tmp", "example-"))
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "awhm-example-cwd-"))
  try {
    fs.writeFileSync(path.join(dir, "main.ts"), code)
    await build({
      entryPoints: [path.join(dir, "main.ts")],
      outfile: path.join(dir, "main.mjs"),
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      alias: { awhm: path.join(ROOT, "src", "index.ts") },
      packages: "external",
      logLevel: "error"
    })
    const { stdout } = await run(process.execPath, [path.join(dir, "main.mjs")], {
      cwd,
      env: { ...process.env, AWHM_DATA_DIR: path.join(cwd, "data"), ...env },
      encoding: "utf8"
    })
    return { stdout, cwd }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** The ```bash block that follows `<!-- quickstart:NAME -->` in README.md. */
export const readmeShell = (name: string): string => readmeBlock(`<!-- quickstart:${name} -->`, "bash")

/**
 * Runs a README shell block verbatim under `bash -e`, with `awhm` on PATH as this repo's built bin and a
 * private TMPDIR (so `mktemp -d` lands in a folder the test removes).
 */
export const runShell = async (script: string, env: Record<string, string> = {}): Promise<{ readonly stdout: string; readonly stderr: string }> => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "awhm-quickstart-"))
  try {
    const bin = path.join(work, "bin")
    fs.mkdirSync(bin)
    fs.writeFileSync(path.join(bin, "awhm"), `#!/bin/sh\nexec "${process.execPath}" "${path.join(ROOT, "dist", "awhm.mjs")}" "$@"\n`, { mode: 0o755 })
    const clean: Record<string, string | undefined> = { ...process.env }
    for (const k of Object.keys(clean)) if (k.startsWith("AWHM_")) delete clean[k]
    // Asynchronous: a worker blocked for minutes loses its connection to vitest.
    const { stdout, stderr } = await run("bash", ["-e", "-c", script], {
      cwd: work,
      env: { ...clean, PATH: `${bin}:${process.env.PATH ?? ""}`, TMPDIR: work, AWHM_HOOK_SERVER: "0", ...env },
      encoding: "utf8",
      maxBuffer: 16 * 1024 * 1024
    })
    return { stdout, stderr }
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
  }
}
