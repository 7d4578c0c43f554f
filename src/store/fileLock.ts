import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { type StorageError, storageFailure } from "../domain/errors.js"
import { ensurePrivateDir } from "./privateDir.js"

/** A lock held longer than this by a live process is still honoured; a dead holder's lock is broken at once. */
const STALE_MS = 30_000
const TIMEOUT_MS = 60_000
/** A lock file without a readable holder (an older writer, or one killed mid-write) counts as held this long. */
const UNREADABLE_GRACE_MS = 2_000

let counter = 0

/** Whether the holder named in a lock's text ("pid time token") may still hold it. */
const holderAlive = (text: string, file: string): boolean => {
  const [pidText, timeText] = text.split(" ")
  const pid = Number(pidText)
  const since = Number(timeText)
  if (!Number.isFinite(pid) || pid <= 0) {
    try {
      return Date.now() - fs.statSync(file).mtimeMs < UNREADABLE_GRACE_MS
    } catch {
      return true
    }
  }
  // A recycled pid looks alive: no critical section lasts this long.
  if (Number.isFinite(since) && Date.now() - since > STALE_MS * 10) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

const readText = (file: string): string | null => {
  try {
    return fs.readFileSync(file, "utf8")
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null
    throw e
  }
}

/**
 * Creates `file` holding `text` only if it does not exist: the text goes to a temp file first and is
 * hard-linked into place, so a lock file is never seen empty and its text names exactly one holder.
 */
const createWith = (file: string, text: string): boolean => {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Date.now()}.${counter++}.tmp`)
  try {
    // A full disk: the file may be created and its text not written; it goes in the finally below.
    fs.writeFileSync(tmp, text, { mode: 0o600, flag: "wx" })
    fs.linkSync(tmp, file)
    return true
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false
    throw e
  } finally {
    fs.rmSync(tmp, { force: true })
  }
}

/** Removes `file` if it still holds `text`, by renaming it to a name of its own first and checking what was taken. */
const removeIfHolds = (file: string, text: string, token: string): void => {
  const aside = `${file}.stale.${token}`
  try {
    fs.renameSync(file, aside)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return
    throw e
  }
  if (readText(aside) !== text) {
    // Took a newer file by mistake: give it back unless its place was taken meanwhile.
    try {
      fs.linkSync(aside, file)
    } catch {
      // its place is taken: the newer holder had already lost it
    }
  }
  fs.rmSync(aside, { force: true })
}

/**
 * Breaks the lock whose text was judged stale. Breakers take turns under a guard file, and a dead holder
 * never releases, so under the guard a lock still holding that text is that same stale lock: exactly one
 * breaker removes it, and a lock taken meanwhile by someone else is never touched.
 */
const breakStale = (lockPath: string, stale: string, token: string): boolean => {
  const guard = `${lockPath}.break`
  const guardText = `${process.pid} ${Date.now()} ${token}`
  if (!createWith(guard, guardText)) {
    // Another breaker is at work; one that died there leaves its guard, which is cleared the same careful way.
    const held = readText(guard)
    if (held === null) return true
    if (holderAlive(held, guard)) return false
    removeIfHolds(guard, held, token)
    return true
  }
  try {
    if (readText(lockPath) === stale) fs.unlinkSync(lockPath)
  } finally {
    if (readText(guard) === guardText) fs.rmSync(guard, { force: true })
  }
  return true
}

const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

/**
 * Takes an exclusive lock file holding "pid time token". A lock whose holder process is dead is broken
 * (atomically: two processes breaking one stale lock never both get it), so a crashed hook never blocks the
 * next one. Synchronous by design: the critical sections it guards are short file appends and rewrites.
 */
export const acquireLockSync = (lockPath: string): (() => void) => {
  ensurePrivateDir(path.dirname(lockPath))
  const started = Date.now()
  const token = `${process.pid}.${randomBytes(6).toString("hex")}`
  let wait = 1
  for (;;) {
    const text = `${process.pid} ${Date.now()} ${token}`
    if (createWith(lockPath, text)) {
      return () => {
        // Only our own lock: one broken by someone who judged us dead may now be another holder's.
        try {
          if (readText(lockPath) === text) fs.rmSync(lockPath, { force: true })
        } catch {
          // unreadable now: leave it to the staleness check
        }
      }
    }
    const held = readText(lockPath)
    if (held === null) continue
    if (!holderAlive(held, lockPath) && breakStale(lockPath, held, token)) continue
    if (Date.now() - started > TIMEOUT_MS) throw new Error(`timed out waiting for lock ${lockPath}`)
    sleepSync(wait + Math.random() * wait)
    wait = Math.min(wait * 2, 50)
  }
}

/** Runs `body` while holding the lock file; the lock is released however the effect ends. */
export const withFileLock = <A, E, R>(
  lockPath: string,
  body: Effect.Effect<A, E, R>
): Effect.Effect<A, E | StorageError, R> =>
  Effect.acquireUseRelease(
    Effect.try({
      try: () => acquireLockSync(lockPath),
      catch: storageFailure("lock", lockPath)
    }),
    () => body,
    (release) => Effect.sync(release)
  )
