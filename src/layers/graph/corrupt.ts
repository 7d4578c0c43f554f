import { CorruptFile } from "../../domain/errors.js"
import { listSnapshotFiles } from "../../store/snapshotFile.js"

/** The newest snapshot in a snapshots folder, or null. */
export const latestSnapshot = (snapshotsDir: string): string | null => {
  try {
    return listSnapshotFiles(snapshotsDir)[0]?.path ?? null
  } catch {
    return null
  }
}

/**
 * The one error a damaged graph file gives: which file, why (never its content), and how to recover.
 * The damaged file is left as it is.
 */
export const corruptGraph = (file: string, reason: string, snapshotsDir: string): CorruptFile => {
  const latest = latestSnapshot(snapshotsDir)
  const fix =
    latest === null
      ? "restore a snapshot with `awhm snapshot restore --path FILE`, or move the file away to start an empty graph"
      : `restore a snapshot, e.g. \`awhm snapshot restore --path ${latest}\``
  return new CorruptFile({ path: file, message: `the memory graph ${file} is damaged (${reason}); ${fix}` })
}
