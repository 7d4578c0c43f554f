import { importLiteDeletions } from "./liteDeletions.js"
import { adoptLiteSessionFiles } from "./liteNames.js"
import type { DataPaths } from "./paths.js"

/**
 * What the first open of an AWHM Lite data dir changes, each step on its own (one failing leaves the
 * other to run, and both are tried again next time): session files under awhm's names, then deleted
 * text scrubbed and plaintext tombstones hashed. Cheap once done.
 */
export const adoptLiteDataDir = (paths: DataPaths): void => {
  for (const step of [adoptLiteSessionFiles, importLiteDeletions]) {
    try {
      step(paths)
    } catch {
      // left as it was; looked at again on the next open
    }
  }
}
