import * as fs from "node:fs"
import * as path from "node:path"

/** The folder of the retrieval cache (rebuilt from the logs and the graph when missing). */
export const indexDir = (dataDir: string): string => path.join(dataDir, "index")

/** Removes the whole retrieval cache. */
export const clearRetrievalIndex = (dataDir: string): void => {
  fs.rmSync(indexDir(dataDir), { recursive: true, force: true })
}
