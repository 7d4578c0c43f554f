import * as fs from "node:fs"
import * as path from "node:path"

const alive = (pid: number): boolean => {
  if (pid === process.pid) return true
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

/**
 * Removes the temp files a killed writer left in `dir` (`.<name>.<pid>.<ms>.<n>.tmp`, as atomicWriteFileSync
 * and the snapshot writer name them): they may hold text that has since been deleted. Files of live
 * processes are left alone. `only` narrows which temp files count. Returns how many went.
 */
export const removeStaleTempFiles = (dir: string, only: (name: string) => boolean = () => true): number => {
  let names: Array<string>
  try {
    names = fs.readdirSync(dir)
  } catch {
    return 0
  }
  let removed = 0
  for (const name of names) {
    if (!name.startsWith(".") || !name.endsWith(".tmp") || !only(name)) continue
    const parts = name.split(".")
    const pid = Number(parts[parts.length - 4])
    if (Number.isInteger(pid) && pid > 0 && alive(pid)) continue
    fs.rmSync(path.join(dir, name), { force: true })
    removed++
  }
  return removed
}
