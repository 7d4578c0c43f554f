import * as fs from "node:fs"
import type { Listing, SettledLogs } from "../domain/SettledLogs.js"
import { atomicWriteFileSync } from "./atomicWrite.js"

// `meta/consolidated_logs.json`: for each session, the log's stamp (RawLog SessionInfo.stamp) and the
// progress index it was consolidated up to, as "stamp@index". A session whose log still has that stamp and
// whose progress still says that index has nothing pending, so consolidation need not read its log. Also
// where the raw log's change journal stood when the last full run began (`listing`), so the next run need
// not list every log. A hint only: a missing or unreadable file means every log is listed and read, as before.

/**
 * A log file's stamp: its size and modification time, the change test rsync and make use. Not its inode, so
 * the hint survives a copy that keeps times (`cp -a`, `rsync -a`, a restored backup): every rewrite awhm
 * makes of a log changes its size or is the same content.
 */
export const logStamp = (st: { readonly size: number; readonly mtimeMs: number }): string => `${st.size}:${st.mtimeMs}`

/** The entry recorded for a session consolidated up to `index` while its log had `stamp`. */
export const settledMark = (stamp: string, index: number): string => `${stamp}@${index}`

/** The progress index a settled mark was recorded at. */
export const settledIndex = (mark: string): number => Number(mark.slice(mark.lastIndexOf("@") + 1))

const isListing = (x: unknown): x is Listing =>
  typeof x === "object" && x !== null && typeof (x as Listing).mark === "string" && Number.isFinite((x as Listing).listedAt)

export const readConsolidatedLogs = (file: string): SettledLogs => {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, "utf8")) as { version?: unknown; logs?: unknown; listing?: unknown }
    if (parsed.version !== 1 || typeof parsed.logs !== "object" || parsed.logs === null) return { logs: new Map(), listing: null }
    const logs = new Map(Object.entries(parsed.logs as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === "string"))
    return { logs, listing: isListing(parsed.listing) ? { mark: parsed.listing.mark, listedAt: parsed.listing.listedAt } : null }
  } catch {
    return { logs: new Map(), listing: null }
  }
}

/** Replaces the file (callers hold the consolidation lock). */
export const writeConsolidatedLogs = (file: string, logs: ReadonlyMap<string, string>, listing: Listing | null = null): void => {
  const sorted = Object.fromEntries([...logs.keys()].sort().map((k) => [k, logs.get(k)!]))
  atomicWriteFileSync(file, JSON.stringify({ version: 1, logs: sorted, ...(listing === null ? {} : { listing }) }) + "\n")
}
