import * as fs from "node:fs"
import * as path from "node:path"
import { readFirstLine } from "./logFile.js"
import { logChangesSince } from "./logJournal.js"
import { type DataPaths, decodeSessionId, encodeSessionId } from "./paths.js"
import { ensurePrivateDir } from "./privateDir.js"

// AWHM Lite names a session's files differently: its log is `quote(id, safe="")` (which keeps `.` and `~`)
// and its WAL keeps letters, digits, `-`, `_` and `.` and turns every other character into `_`. Opened by
// awhm, such a session would start a second log at index 0 and never recover its buffer, so its files
// are renamed to awhm's names once; the id recorded in the log's own lines is the truth.

/** AWHM Lite's log file stem: Python's `urllib.parse.quote(id, safe="")`. */
export const liteLogStem = (id: string): string =>
  Array.from(new TextEncoder().encode(id))
    .map((b) => {
      const c = String.fromCharCode(b)
      return /[A-Za-z0-9_.~-]/.test(c) ? c : "%" + b.toString(16).toUpperCase().padStart(2, "0")
    })
    .join("")

/** AWHM Lite's WAL file stem: `c if c.isalnum() or c in "-_." else "_"` per character. */
export const liteWalStem = (id: string): string =>
  Array.from(id)
    .map((c) => (/[\p{L}\p{N}]/u.test(c) || c === "-" || c === "_" || c === "." ? c : "_"))
    .join("")

const recordedId = (file: string): string | null => {
  try {
    const first = JSON.parse(readFirstLine(file)) as { session_id?: unknown }
    return typeof first.session_id === "string" && first.session_id !== "" ? first.session_id : null
  } catch {
    return null
  }
}

const marker = (paths: DataPaths) => path.join(paths.meta, ".lite-names-checked")

/** The log journal's mark (logJournal.ts) the folder was last listed at, or null (never, or a marker of an older build). */
const readMarker = (paths: DataPaths): string | null => {
  try {
    const text = fs.readFileSync(marker(paths), "utf8")
    return text === "" ? null : text
  } catch {
    return null
  }
}

const writeMarker = (paths: DataPaths, mark: string): void => {
  try {
    ensurePrivateDir(paths.meta)
    fs.writeFileSync(marker(paths), mark, { mode: 0o600 })
  } catch {
    // looked again next time
  }
}

/** What adoptLiteSessionFiles did: the sessions it adopted, and whether it had to list the logs folder. */
export interface LiteAdoption {
  readonly adopted: ReadonlyArray<string>
  readonly listed: boolean
}

/**
 * Renames AWHM Lite's log and WAL files of each session to awhm's names (never over an existing file).
 * Cheap when nothing changed: the logs folder is listed only when something other than awhm's own appends
 * changed it since the last look (the log journal vouches for the logs those created: a new session's first
 * prompt costs no listing of every log).
 */
export const adoptLiteSessionFiles = (paths: DataPaths): LiteAdoption => {
  if (!fs.existsSync(paths.logs)) return { adopted: [], listed: false }
  const looked = readMarker(paths)
  // Taken before the listing: whatever changes the folder while it runs is looked at next time.
  const changes = logChangesSince(paths.meta, paths.logs, looked)
  if (changes.sessions !== null) {
    if (changes.mark !== looked) writeMarker(paths, changes.mark)
    return { adopted: [], listed: false }
  }
  const adopted: Array<string> = []
  for (const name of fs.readdirSync(paths.logs)) {
    if (!name.endsWith(".jsonl") || name.startsWith(".")) continue
    const stem = name.slice(0, -".jsonl".length)
    let decoded: string | null
    try {
      decoded = decodeSessionId(stem)
    } catch {
      continue
    }
    if (decoded === null || encodeSessionId(decoded) === stem) continue
    const file = path.join(paths.logs, name)
    const id = recordedId(file) ?? decoded
    if (liteLogStem(id) !== stem) continue
    const target = paths.logFile(id)
    if (fs.existsSync(target)) continue
    fs.renameSync(file, target)
    const liteWal = path.join(paths.wal, `${liteWalStem(id)}.wal`)
    const wal = paths.walFile(id)
    if (liteWal !== wal && fs.existsSync(liteWal) && !fs.existsSync(wal)) fs.renameSync(liteWal, wal)
    adopted.push(id)
  }
  writeMarker(paths, changes.mark)
  return { adopted, listed: true }
}
