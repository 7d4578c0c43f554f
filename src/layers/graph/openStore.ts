import { dataPaths } from "../../store/paths.js"
import { makeGraphStoreJson } from "../GraphStoreJson.js"
import { makeGraphStoreSqlite } from "../GraphStoreSqlite.js"

/**
 * A data dir's graph file of one backend, opened as it is: no import from the other backend's file (the
 * layers do that). For scrubbing a switched-away backend, seeding and benchmarks.
 */
export const openGraphStoreFile = (backend: "sqlite" | "json", dataDir: string) => {
  const paths = dataPaths(dataDir)
  return backend === "sqlite"
    ? makeGraphStoreSqlite({ file: paths.graphSqlite, importJson: null, snapshotsDir: paths.snapshots })
    : makeGraphStoreJson({ file: paths.graphJson, lockFile: paths.graphLock, snapshotsDir: paths.snapshots, importSqlite: null })
}
