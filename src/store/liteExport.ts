import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import type { BufferEntry } from "../domain/BufferEntry.js"
import type { Graph } from "../domain/Node.js"
import type { RawLogEntry } from "../domain/Message.js"
import { encodeJsonGraph } from "./graphSerialization.js"
import { liteLogStem, liteWalStem } from "./liteNames.js"
import { type Progress, renderProgress } from "./progress.js"

// A data dir as AWHM Lite keeps it: graph/memory_graph.json, logs/<quote(id)>.jsonl whose line positions are
// the message indices, wal/<safe id>.wal (JSON arrays of entries without a session), and
// meta/consolidated_sessions.json. awhm's indices never change after a delete, so a log with gaps is
// renumbered by position, and every index that points into it (source refs, buffer entries, progress) with it.

export interface LiteExport {
  readonly graph: Graph
  readonly logs: ReadonlyMap<string, ReadonlyArray<RawLogEntry>>
  readonly buffers: ReadonlyMap<string, ReadonlyArray<BufferEntry>>
  readonly progress: Progress
  /** Files written into meta/ by name (the deletion tombstones and ledger as JSON lines); an empty text is left out. */
  readonly meta: ReadonlyArray<readonly [name: string, text: string]>
}

export type ExportTargetProblem = "not_empty" | "unwritable"

export class ExportTargetProblemError extends Error {
  constructor(
    readonly problem: ExportTargetProblem,
    readonly code: string
  ) {
    super(problem)
  }
}

/** Positions by index, per session: what the reference calls a message's index. */
const positions = (logs: LiteExport["logs"]) => {
  const out = new Map<string, Map<number, number>>()
  for (const [sessionId, entries] of logs) out.set(sessionId, new Map(entries.map((e, i) => [e.index, i])))
  return out
}

/** The files of the exported dir, relative path → content. */
const liteExportFiles = (data: LiteExport): Map<string, string> => {
  const files = new Map<string, string>()
  const pos = positions(data.logs)
  const positionOf = (sessionId: string, index: number): number | undefined => {
    const map = pos.get(sessionId)
    return map === undefined ? index : map.get(index)
  }
  const nodes = new Map(
    Array.from(data.graph.nodes, ([id, n]) => {
      const sourceRefs = n.sourceRefs.flatMap((r) => {
        const at = positionOf(r.sessionId, r.messageIndex)
        return at === undefined ? [] : [{ ...r, messageIndex: at }]
      })
      return [id, { ...n, sourceRefs }] as const
    })
  )
  files.set("graph/memory_graph.json", encodeJsonGraph({ nodes, edges: data.graph.edges }))
  for (const [sessionId, entries] of data.logs) {
    if (entries.length === 0) continue
    const lines = entries.map((e) => JSON.stringify({ timestamp: e.timestamp, session_id: e.session_id, role: e.role, content: e.content, metadata: e.metadata }) + "\n")
    files.set(`logs/${liteLogStem(sessionId)}.jsonl`, lines.join(""))
  }
  for (const [sessionId, entries] of data.buffers) {
    if (entries.length === 0) continue
    const wal = entries.map((e) => ({ type: e.type, content: e.content, timestamp: e.timestamp, source_msg: positionOf(sessionId, e.source_msg) ?? e.source_msg }))
    files.set(`wal/${liteWalStem(sessionId)}.wal`, JSON.stringify(wal))
  }
  const progress = new Map(
    Array.from(data.progress, ([sessionId, p]) => {
      if (p.lastMsgIndex === null) return [sessionId, p] as const
      // The last message consolidated, by position: how many messages up to it are still in the log, less one.
      const entries = data.logs.get(sessionId)
      const last = entries === undefined ? p.lastMsgIndex : entries.filter((e) => e.index <= p.lastMsgIndex!).length - 1
      return [sessionId, { ...p, lastMsgIndex: last }] as const
    })
  )
  files.set("meta/consolidated_sessions.json", renderProgress(progress))
  return files
}

/** Whether `dir` is an empty folder; null when nothing is there; false when something else is. */
const isEmptyDir = (dir: string): boolean | null => {
  try {
    if (!fs.lstatSync(dir).isDirectory()) return false
    return fs.readdirSync(dir).length === 0
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === "ENOENT") return null
    // ENOTDIR: a part of the path is a file, so nothing can be made there.
    throw new ExportTargetProblemError("unwritable", code ?? "error")
  }
}

/**
 * Writes the export into `dir`, which must not exist or be empty: everything goes into a temp folder
 * beside it first, which is renamed into place whole, so `dir` holds either nothing or the whole export.
 */
export const writeLiteExport = (dir: string, data: LiteExport): ReadonlyArray<string> => {
  const target = path.resolve(dir)
  const empty = isEmptyDir(target)
  if (empty === false) throw new ExportTargetProblemError("not_empty", "ENOTEMPTY")
  const files = liteExportFiles(data)
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.export-${process.pid}-${randomBytes(4).toString("hex")}`)
  try {
    fs.mkdirSync(tmp, { mode: 0o700 })
    for (const sub of ["logs", "graph", "snapshots", "wal", "meta"]) fs.mkdirSync(path.join(tmp, sub), { mode: 0o700 })
    for (const [rel, text] of files) fs.writeFileSync(path.join(tmp, rel), text, { mode: 0o600 })
    for (const [name, text] of data.meta) if (text !== "") fs.writeFileSync(path.join(tmp, "meta", name), text, { mode: 0o600 })
    if (empty === true) fs.rmdirSync(target)
    fs.renameSync(tmp, target)
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true })
    if (e instanceof ExportTargetProblemError) throw e
    const code = (e as NodeJS.ErrnoException).code ?? "error"
    throw new ExportTargetProblemError(code === "ENOTEMPTY" || code === "EEXIST" ? "not_empty" : "unwritable", code)
  }
  return Array.from(files.keys()).sort()
}
