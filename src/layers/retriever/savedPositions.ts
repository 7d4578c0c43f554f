// Where the saved raw-log view's sessions were read up to in their logs (RawLog.readSince positions), kept
// beside the view under <data-dir>/index/ in the view's session order, for the copy of the view that has
// the same id. A later process whose listing finds a log's modification time moved (a copied or restored
// data dir, a log touched) reads it on from there: a digest of the bytes up to the position, not a parse of
// every line and a rewrite of the view. A cache like the view: anything unreadable is ignored.
import * as path from "node:path"
import { packSections, StringTable, unpackSections } from "../../search/binaryImage.js"
import { indexDir } from "../../store/indexFiles.js"
import { readFileNoFollow } from "../../store/noFollow.js"

const MAGIC = 0x31505741 // "AWP1"

export const positionsFile = (dataDir: string): string => path.join(indexDir(dataDir), "rawlog-positions")

/** The file's bytes: the view's id, then each session's position ("" for none). */
export const positionsBytes = (id: string, positions: ReadonlyArray<string>): Uint8Array =>
  packSections(MAGIC, [Buffer.from(id, "utf8"), StringTable.encode(positions, false)])

/** Each saved session's position by its place in the saved view `id` (null: none), or null when the file is not of that view. */
export const readPositions = (dataDir: string, id: string): ((session: number) => string | null) | null => {
  try {
    const bytes = readFileNoFollow(positionsFile(dataDir))
    const sections = unpackSections(bytes, MAGIC, 2)
    if (sections === null || Buffer.from(sections[0]!).toString("utf8") !== id) return null
    const table = StringTable.decode(sections[1]!)
    if (table === null) return null
    return (session) => (session >= 0 && session < table.size ? table.at(session) || null : null)
  } catch {
    return null
  }
}
