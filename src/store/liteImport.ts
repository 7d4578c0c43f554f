import { importLiteDeletions } from "./liteDeletions.js"
import { adoptLiteSessionFiles } from "./liteNames.js"
import type { DataPaths } from "./paths.js"

/** The data dirs this process has already looked at: the raw log and the session buffer both ask. */
const looked = new Set<string>()

/**
 * What the first open of an AWHM Lite data dir changes, each step on its own (one failing leaves the
 * other to run, and both are tried again next time): session files under awhm's names, then deleted
 * text scrubbed and plaintext tombstones hashed. Looked at once per process and data dir, as the MCP
 * server always did: a process opens a data dir's stores once per command or hook, a server every request.
 */
export const adoptLiteDataDir = (paths: DataPaths): void => {
  if (looked.has(paths.meta)) return
  let done = true
  for (const step of [adoptLiteSessionFiles, importLiteDeletions]) {
    try {
      step(paths)
    } catch {
      done = false // left as it was; looked at again on the next open
    }
  }
  if (done) looked.add(paths.meta)
}
