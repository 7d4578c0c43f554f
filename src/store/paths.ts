import { createHash } from "node:crypto"
import * as os from "node:os"
import * as path from "node:path"

/** Expands a leading `~` and `$VARS` like the reference does. */
export const expandPath = (p: string): string => {
  const withVars = p.replace(/\$(\w+)|\$\{(\w+)\}/g, (m, a: string | undefined, b: string | undefined) => {
    const v = process.env[(a ?? b) as string]
    return v === undefined ? m : v
  })
  const home = withVars === "~" || withVars.startsWith("~/") ? os.homedir() + withVars.slice(1) : withVars
  return path.resolve(home)
}

/** The data dir: the flag, else AWHM_DATA_DIR, else ~/.awhm. */
export const resolveDataDir = (flag: string | null | undefined, env: NodeJS.ProcessEnv): string =>
  expandPath(flag ?? env.AWHM_DATA_DIR ?? "~/.awhm")

const MAX_ENCODED = 180
const SAFE_ID = /^[A-Za-z0-9_-]*$/

/**
 * Encodes a session id into a safe, reversible file-name stem: [A-Za-z0-9_-] stay, every other
 * UTF-8 byte becomes %XX (so "/", "." and NUL can never escape the folder). Very long ids become
 * "~<sha256>"; the real id is inside every line of the file.
 */
export const encodeSessionId = (id: string): string => {
  // Most ids are already safe as they are (a listing of thousands of logs encodes every name).
  if (id.length <= MAX_ENCODED && SAFE_ID.test(id)) return id
  const encoded = Array.from(new TextEncoder().encode(id))
    .map((b) => {
      const c = String.fromCharCode(b)
      return /[A-Za-z0-9_-]/.test(c) ? c : "%" + b.toString(16).toUpperCase().padStart(2, "0")
    })
    .join("")
  return encoded.length <= MAX_ENCODED ? encoded : "~" + createHash("sha256").update(id).digest("hex")
}

/** The inverse of encodeSessionId, or null for a hashed (long) name. */
export const decodeSessionId = (stem: string): string | null =>
  stem.startsWith("~") ? null : decodeURIComponent(stem)

/** The data directory layout (see README "Data directory"). */
export const dataPaths = (dataDir: string) => ({
  root: dataDir,
  logs: path.join(dataDir, "logs"),
  logFile: (sessionId: string) => path.join(dataDir, "logs", encodeSessionId(sessionId) + ".jsonl"),
  graphDir: path.join(dataDir, "graph"),
  graphJson: path.join(dataDir, "graph", "memory_graph.json"),
  graphSqlite: path.join(dataDir, "graph", "memory_graph.sqlite"),
  snapshots: path.join(dataDir, "snapshots"),
  wal: path.join(dataDir, "wal"),
  walFile: (sessionId: string) => path.join(dataDir, "wal", encodeSessionId(sessionId) + ".wal"),
  meta: path.join(dataDir, "meta"),
  progress: path.join(dataDir, "meta", "consolidated_sessions.json"),
  /** Which log state each session's progress was recorded against (lets consolidation skip unchanged logs). */
  consolidatedLogs: path.join(dataDir, "meta", "consolidated_logs.json"),
  tombstones: path.join(dataDir, "meta", "deletion_tombstones.jsonl"),
  ledger: path.join(dataDir, "meta", "deletion_ledger.jsonl"),
  salt: path.join(dataDir, "meta", "tombstone_salt"),
  configJson: path.join(dataDir, "config.json"),
  /** One line per session-end hook: when, which session, what came of it (no memory content). */
  sessionEndLog: path.join(dataDir, "meta", "session_end.log"),
  locks: path.join(dataDir, "locks"),
  graphLock: path.join(dataDir, "locks", "graph.lock")
})
export type DataPaths = ReturnType<typeof dataPaths>
