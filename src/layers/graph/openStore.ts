import * as fs from "node:fs"
import { dataPaths } from "../../store/paths.js"
import { makeGraphStoreJson } from "../GraphStoreJson.js"
import { makeGraphStoreSqlite } from "../GraphStoreSqlite.js"
import { vectorImageFiles } from "./sqliteVectors.js"

/**
 * A data dir's graph file of one backend, opened as it is: no import from the other backend's file (the
 * layers do that). For scrubbing a switched-away backend, seeding and benchmarks.
 */
export const openGraphStoreFile = (backend: "sqlite" | "json", dataDir: string) => {
  const paths = dataPaths(dataDir)
  return backend === "sqlite"
    ? makeGraphStoreSqlite({ file: paths.graphSqlite, importJson: null, snapshotsDir: paths.snapshots, vectorImage: vectorImageFiles(dataDir) })
    : makeGraphStoreJson({ file: paths.graphJson, lockFile: paths.graphLock, snapshotsDir: paths.snapshots, importSqlite: null })
}

/** Which graph file a data dir holds (SQLite first, as the layers open it), or null when it has none. */
export const graphFileKind = (dataDir: string): "sqlite" | "json" | null => {
  const paths = dataPaths(dataDir)
  return fs.existsSync(paths.graphSqlite) ? "sqlite" : fs.existsSync(paths.graphJson) ? "json" : null
}
