import { execFileSync } from "node:child_process"
import * as fs from "node:fs"

// Attacks by another local user need a real second user: the tests run as root, which no file mode stops.

/** The throwaway user the tests play the other local user with (made once, without a home). */
export const OTHER_USER = "awhmother"

const idOf = (flag: "-u" | "-g"): number | null => {
  try {
    return Number(execFileSync("id", [flag, OTHER_USER], { stdio: ["ignore", "pipe", "ignore"] }).toString().trim())
  } catch {
    return null
  }
}

/** The other user's uid and gid, creating the user when missing (a parallel test may do it first). */
export const otherUser = (): { readonly uid: number; readonly gid: number } => {
  if (idOf("-u") === null) {
    try {
      execFileSync("useradd", ["-M", "-s", "/usr/sbin/nologin", OTHER_USER], { stdio: "ignore" })
    } catch {
      // made meanwhile by another test file; checked below
    }
  }
  const uid = idOf("-u")
  const gid = idOf("-g")
  if (uid === null || gid === null) throw new Error(`could not create the test user ${OTHER_USER}`)
  return { uid, gid }
}

/** Runs a command as the other user; returns its stdout. */
export const asOtherUser = (command: string, args: ReadonlyArray<string>): string =>
  execFileSync("runuser", ["-u", OTHER_USER, "--", command, ...args], { stdio: ["ignore", "pipe", "pipe"] }).toString()

/** A folder everyone may write in but only owners may rename or remove from, like /tmp. */
export const makeStickyDir = (dir: string): string => {
  fs.mkdirSync(dir, { recursive: true })
  fs.chmodSync(dir, 0o1777)
  return dir
}
