import * as crypto from "node:crypto"
import * as fs from "node:fs"
import { createRequire, Module } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as v8 from "node:v8"
import * as vm from "node:vm"
import { lendImport } from "../runtime/hostImport.js"

// Node 20 has no compile cache for ES modules, and compiling is a third of a short process's start-up.
// So the build also ships the hot paths (a hook, the MCP server) as single CommonJS files in dist/,
// run here through V8's code cache: compiled once, then loaded ready to run.

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

const saveCache = (dir: string, stem: string, build: string, name: string, data: Buffer) => {
  try {
    const tmp = path.join(dir, `${name}.${process.pid}.tmp`)
    fs.writeFileSync(tmp, data, { mode: 0o600 })
    fs.renameSync(tmp, path.join(dir, name))
    // Caches of earlier builds are dead weight (this build's other kinds of run keep theirs).
    for (const f of fs.readdirSync(dir)) {
      if (f.startsWith(`${stem}.`) && f.endsWith(".cache") && !f.startsWith(`${build}.`)) fs.rmSync(path.join(dir, f), { force: true })
    }
  } catch {
    // A cache is an optimisation: the next run simply compiles again.
  }
}

/**
 * A cache holds only the functions compiled by the run that wrote it, and every later run compiles the rest
 * again (a cache written by an empty prompt leaves every question's prompt compiling most of its code). So a
 * run that compiled notably more than what it read from the cache (REFRESH_GROWTH of it, in bytecode) rewrites
 * it, with what it read and what it compiled. Reading the heap's code statistics is not free: one run in
 * CHECK_EVERY looks (AWHM_CODE_CACHE_CHECK=always: every run; =never: none).
 */
export const REFRESH_GROWTH = 1 / 4
const CHECK_EVERY = 8

const checksThisRun = (): boolean => {
  const setting = process.env.AWHM_CODE_CACHE_CHECK
  if (setting === "always") return true
  if (setting === "never") return false
  return Math.random() < 1 / CHECK_EVERY
}

const heapBytecode = (): number => v8.getHeapCodeStatistics().bytecode_and_metadata_size

/** `dist/<file>` beside the bin, or null when running from sources. */
const bundleFile = (file: string): string | null => {
  const here = path.dirname(fileURLToPath(import.meta.url))
  return [path.join(here, file), path.join(here, "..", file)].find((f) => fs.existsSync(f)) ?? null
}

export interface CachedBundle<T> {
  readonly exports: T
  /**
   * Writes the code cache when there was none, or (now and then) when this run compiled notably more than the
   * run that wrote it (call after the work, so it holds what ran on the way).
   */
  readonly saveCache: () => void
}

/**
 * Loads `dist/<file>` (a CommonJS bundle) with V8's code cache, or null when the bundle is not there. `kind`: what
 * this run does with the bundle, when runs differ ("prompt", "serve"): each kind keeps a cache of its own, since a
 * cache holds only the functions the run that wrote it had compiled (a long-lived server's, after V8 flushed those
 * it no longer used, left an in-process prompt hook compiling about 200 ms of CPU at 1M memories).
 */
export const loadCachedBundle = <T>(file: string, kind?: string): CachedBundle<T> | null => {
  const bundle = bundleFile(file)
  if (bundle === null) return null
  const source = fs.readFileSync(bundle, "utf8")
  const stat = fs.statSync(bundle)
  // V8 checks a cache only against the source's length: the name carries the build's identity too.
  const id = crypto.createHash("sha1").update(`${bundle}\0${stat.size}\0${stat.mtimeMs}\0${process.version}`).digest("hex").slice(0, 16)
  const stem = file.replace(/\.cjs$/, "")
  const build = `${stem}.${id}`
  const name = kind === undefined ? `${build}.cache` : `${build}.${kind}.cache`
  const dir = cacheDir(path.dirname(bundle))
  let cachedData: Buffer | undefined
  try {
    if (dir !== null) cachedData = fs.readFileSync(path.join(dir, name))
  } catch {
    cachedData = undefined
  }
  // The bytecode before and after reading the cache: what it held (when this run looks).
  const check = dir !== null && cachedData !== undefined && checksThisRun()
  const before = check ? heapBytecode() : 0
  const script = new vm.Script(Module.wrap(source), { filename: bundle, ...(cachedData ? { cachedData } : {}) })
  const read = check ? heapBytecode() : 0
  // import() fails in a script compiled from a code cache: the bundle imports the ES modules it leaves out
  // (the embedding model's @xenova/transformers) through this module's import instead.
  lendImport((specifier) => import(specifier))
  const module = { exports: {} as T }
  script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, path.dirname(bundle))
  return {
    exports: module.exports,
    saveCache: () => {
      if (dir === null) return
      const none = cachedData === undefined || script.cachedDataRejected === true
      if (none || (check && heapBytecode() - read > (read - before) * REFRESH_GROWTH)) saveCache(dir, stem, build, name, script.createCachedData())
    }
  }
}
