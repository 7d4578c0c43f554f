import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { type StorageError, storageFailure } from "../domain/errors.js"
import { ensurePrivateDir } from "./privateDir.js"

/** A lock held longer than this by a live process is still honoured; a dead holder's lock is broken at once. */
const STALE_MS = 30_000
const TIMEOUT_MS = 60_000

const holderAlive = (lockPath: string): boolean => {
  try {
    const [pidText, timeText] = fs.readFileSync(lockPath, "utf8").split(" ")
    const pid = Number(pidText)
    const since = Number(timeText)
    if (!Number.isFinite(pid) || pid <= 0) return Date.now() - fs.statSync(lockPath).mtimeMs < 2_000
    if (Number.isFinite(since) && Date.now() - since > STALE_MS * 10) return false
    try {
      process.kill(pid, 0)
      return true
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === "EPERM"
    }
  } catch {
    // Unreadable or vanished: the holder is mid-write or gone; let the caller retry.
    return true
  }
}

const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

/**
 * Takes an exclusive lock file (O_EXCL create holding "pid time"). A lock whose holder process is dead
 * is broken, so a crashed hook never blocks the next one. Synchronous by design: the critical sections
 * it guards are short file appends and rewrites.
 */
export const acquireLockSync = (lockPath: string): (() => void) => {
  ensurePrivateDir(path.dirname(lockPath))
  const started = Date.now()
  let wait = 1
  for (;;) {
    try {
      const fd = fs.openSync(lockPath, "wx", 0o600)
      fs.writeSync(fd, `${process.pid} ${Date.now()}`)
      fs.closeSync(fd)
      return () => {
        try {
          fs.unlinkSync(lockPath)
        } catch {
          // already broken by someone who judged us dead; nothing to release
        }
      }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e
    }
    if (!holderAlive(lockPath)) {
      // Break the stale lock by renaming it away (atomic), so two breakers cannot both win.
      const aside = `${lockPath}.stale.${process.pid}.${Date.now()}`
      try {
        fs.renameSync(lockPath, aside)
        fs.rmSync(aside, { force: true })
      } catch {
        // someone else broke it first
      }
      continue
    }
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
