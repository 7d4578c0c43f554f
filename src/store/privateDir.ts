import * as fs from "node:fs"
import * as path from "node:path"

// The data dir is its owner's alone: every folder awhm writes in is a real directory (never a symbolic
// link) owned by this user and writable by nobody else, and every folder awhm creates is owner-only.

const currentUid = (): number | null => (typeof process.getuid === "function" ? process.getuid() : null)

const modeText = (st: fs.Stats) => (st.mode & 0o7777).toString(8).padStart(4, "0")

/** Why a folder (its lstat, or its stat for a data dir named through a link) is not private, or null. */
export const privateDirProblem = (st: fs.Stats): string | null => {
  if (st.isSymbolicLink()) return "it is a symbolic link"
  if (!st.isDirectory()) return "it is not a directory"
  const uid = currentUid()
  if (uid !== null && st.uid !== uid) return `it belongs to another user (uid ${st.uid})`
  if ((st.mode & 0o022) !== 0) return `it is writable by other users (mode ${modeText(st)})`
  return null
}

/**
 * Why the folder that holds a private folder cannot be trusted, or null: it is this user's or root's, and
 * writable by others only when sticky (like /tmp), so nobody else can move what awhm keeps in it.
 */
const parentDirProblem = (st: fs.Stats): string | null => {
  if (!st.isDirectory()) return "it is not a directory"
  const uid = currentUid()
  if (uid !== null && st.uid !== uid && st.uid !== 0) return `it belongs to another user (uid ${st.uid})`
  if ((st.mode & 0o022) !== 0 && (st.mode & 0o1000) === 0) return `it is writable by other users (mode ${modeText(st)})`
  return null
}

/** A folder awhm will not use; the message is one line naming it and what is wrong. */
class UnsafeFolder extends Error {
  constructor(dir: string, problem: string) {
    super(`refusing to use ${dir}: ${problem}; awhm's folders must be real directories owned by you and writable only by you`)
  }
}

const errno = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | null)?.code

const mkdirOne = (dir: string): boolean => {
  try {
    fs.mkdirSync(dir, { mode: 0o700 })
    return true
  } catch (e) {
    const code = errno(e)
    if (code === "EEXIST") return true
    if (code === "ENOENT") return false
    throw new Error(`cannot create ${dir}: ${code ?? String(e)}`)
  }
}

/** mkdir -p without Node's `recursive`, which spins forever where a parent cannot be made (under /proc). */
const makeMissing = (dir: string): void => {
  if (mkdirOne(dir)) return
  const parent = path.dirname(dir)
  if (parent === dir) throw new Error(`cannot create ${dir}: ENOENT`)
  makeMissing(parent)
  if (!mkdirOne(dir)) throw new Error(`cannot create ${dir}: ENOENT`)
}

const checkParent = (dir: string): void => {
  const parent = path.dirname(dir)
  const problem = parent === dir ? null : parentDirProblem(fs.statSync(parent))
  if (problem !== null) throw new UnsafeFolder(parent, problem)
}

/** Throws UnsafeFolder unless `dir` is a private folder of this user's in a folder nobody else can rearrange. */
export const checkPrivateDir = (dir: string): void => {
  const own = privateDirProblem(fs.lstatSync(dir))
  if (own !== null) throw new UnsafeFolder(dir, own)
  checkParent(dir)
}

/**
 * Makes `dir` (and any missing parent) owner-only (0700), or checks the one that is there. Throws
 * UnsafeFolder for someone else's folder, one others may write in, or a symbolic link.
 */
export const ensurePrivateDir = (dir: string): string => {
  makeMissing(dir)
  checkPrivateDir(dir)
  return dir
}

/** The folders of a data dir (README "Data directory"). */
const DATA_FOLDERS = ["logs", "wal", "graph", "meta", "index", "snapshots", "locks", "run", "models"] as const

/**
 * Checks an existing data dir and its folders before anything in it is read; a missing one is made
 * owner-only on the first write. A data dir named through a symbolic link is checked where it points.
 */
export const checkDataDir = (root: string): void => {
  let real: string
  try {
    real = fs.realpathSync(root)
  } catch (e) {
    if (errno(e) === "ENOENT") return
    throw new Error(`cannot open the data dir ${root}: ${errno(e) ?? String(e)}`)
  }
  const problem = privateDirProblem(fs.statSync(real))
  if (problem !== null) throw new UnsafeFolder(root, problem)
  checkParent(real)
  for (const name of DATA_FOLDERS) {
    const dir = path.join(root, name)
    let st: fs.Stats
    try {
      st = fs.lstatSync(dir)
    } catch (e) {
      if (errno(e) === "ENOENT") continue
      throw e
    }
    const folderProblem = privateDirProblem(st)
    if (folderProblem !== null) throw new UnsafeFolder(dir, folderProblem)
  }
}
