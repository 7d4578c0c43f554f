import * as crypto from "node:crypto"
import * as fs from "node:fs"
import { createRequire, Module } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as vm from "node:vm"

// Node 20 has no compile cache for ES modules, and compiling the hook's code is a third of a hook's
// start-up. So the build also ships the hook path as one CommonJS file (dist/awhm-hook.cjs), which is
// run here through V8's code cache: compiled once, then loaded ready to run on every prompt.

const BUNDLE = "awhm-hook.cjs"

const writableDir = (dir: string): boolean => {
  try {
    fs.accessSync(dir, fs.constants.W_OK)
    return true
  } catch {
    return false
  }
}

/** Beside the bundle when that is writable (a local build), else the user's private cache folder. */
const cacheDir = (bundleDir: string): string | null => {
  if (writableDir(bundleDir)) return bundleDir
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache")
  const dir = path.join(base, "awhm")
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
    return writableDir(dir) ? dir : null
  } catch {
    return null
  }
}

const saveCache = (dir: string, name: string, data: Buffer) => {
  try {
    const tmp = path.join(dir, `${name}.${process.pid}.tmp`)
    fs.writeFileSync(tmp, data, { mode: 0o600 })
    fs.renameSync(tmp, path.join(dir, name))
    // Caches of earlier builds are dead weight.
    for (const f of fs.readdirSync(dir)) if (f.startsWith("awhm-hook.") && f.endsWith(".cache") && f !== name) fs.rmSync(path.join(dir, f), { force: true })
  } catch {
    // A cache is an optimisation: the next run simply compiles again.
  }
}

/** dist/awhm-hook.cjs beside the bin, or null when running from sources. */
const bundleFile = (): string | null => {
  const here = path.dirname(fileURLToPath(import.meta.url))
  return [path.join(here, BUNDLE), path.join(here, "..", BUNDLE)].find((f) => fs.existsSync(f)) ?? null
}

type HookMain = (args: ReadonlyArray<string>, stdin?: string) => Promise<void>

/**
 * Runs `awhm hook <args>` from dist/awhm-hook.cjs with V8's code cache, or from the ES module when the
 * bundle is not there (running from sources). `stdin`: the payload, when already read.
 */
export const runHookInProcess = async (args: ReadonlyArray<string>, stdin?: string): Promise<void> => {
  const main = loadHookBundle()
  if (main === null) return (await import("../hooks/main.js")).main(args, stdin)
  return main(args, stdin)
}

const loadHookBundle = (): HookMain | null => {
  const file = bundleFile()
  if (file === null) return null
  const source = fs.readFileSync(file, "utf8")
  const stat = fs.statSync(file)
  // V8 checks a cache only against the source's length: the name carries the build's identity too.
  const id = crypto.createHash("sha1").update(`${file}\0${stat.size}\0${stat.mtimeMs}\0${process.version}`).digest("hex").slice(0, 16)
  const name = `awhm-hook.${id}.cache`
  const dir = cacheDir(path.dirname(file))
  let cachedData: Buffer | undefined
  try {
    if (dir !== null) cachedData = fs.readFileSync(path.join(dir, name))
  } catch {
    cachedData = undefined
  }
  const script = new vm.Script(Module.wrap(source), { filename: file, ...(cachedData ? { cachedData } : {}) })
  const module = { exports: {} as { main?: HookMain } }
  script.runInThisContext()(module.exports, createRequire(file), module, file, path.dirname(file))
  const main = module.exports.main
  if (main === undefined) return null
  return (args, stdin) =>
    main(args, stdin).then(() => {
      // After the run, so the cache also holds the functions this hook compiled on the way.
      if (dir !== null && (cachedData === undefined || script.cachedDataRejected === true)) saveCache(dir, name, script.createCachedData())
    })
}
