// A process taking one lock file round after round (bundled by fileLock.test.ts, run with node).
// Usage: lockWorker <lockPath> <journal> <rounds> <startAtMs> <roundMs>
// Each round starts at the same wall-clock moment in every worker. Inside the lock a worker appends
// "enter <pid>", waits a little and appends "exit <pid>"; then, instead of releasing, it leaves a stale
// lock behind (as a holder killed inside would), so every round begins with a stale lock to break at once.
import * as fs from "node:fs"
import { acquireLockSync } from "../../src/store/fileLock.js"

const [lockPath, journal, roundsText, startText, roundText] = process.argv.slice(2) as [string, string, string, string, string]
const rounds = Number(roundsText)
const startAt = Number(startText)
const roundMs = Number(roundText)
const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.max(0, ms))

for (let r = 0; r < rounds; r++) {
  const at = startAt + r * roundMs
  while (Date.now() < at - 2) sleep(1)
  while (Date.now() < at) {
    // spin: both workers leave the wait within the same millisecond
  }
  acquireLockSync(lockPath)
  fs.appendFileSync(journal, `enter ${process.pid}\n`)
  sleep(3)
  fs.appendFileSync(journal, `exit ${process.pid}\n`)
  // A holder that died inside: its lock stays, judged stale by its age. Replaced atomically, never removed.
  fs.writeFileSync(`${lockPath}.next.${process.pid}`, `${process.pid} 0 stale-${process.pid}-${r}`)
  fs.renameSync(`${lockPath}.next.${process.pid}`, lockPath)
}
