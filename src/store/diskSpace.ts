import * as fs from "node:fs"

/** Whether the file system holding `dir` has no block left for this user (false when that cannot be told). */
export const noSpaceLeft = (dir: string): boolean => {
  try {
    return fs.statfsSync(dir).bavail === 0
  } catch {
    return false
  }
}
