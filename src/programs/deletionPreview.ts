import { Effect } from "effect"
import type { BufferEntryType } from "../domain/BufferEntry.js"
import type { Role } from "../domain/Message.js"
import { AppConfig } from "../services/AppConfig.js"
import { RawLog } from "../services/RawLog.js"
import { SessionBuffer } from "../services/SessionBuffer.js"
import { listSnapshotFiles } from "../store/snapshotFile.js"
import { dataPaths } from "../store/paths.js"
import { type DeletionResult, type HardDeleteOptions, planDeletion } from "./hardDelete.js"
import { nodeBrief, type NodeBrief } from "./neighbourhood.js"

/** What `hardDelete` with the same options would remove, read without changing anything. */
export interface DeletionPreview {
  readonly node: NodeBrief
  readonly keepSiblings: boolean
  readonly siblings: ReadonlyArray<NodeBrief>
  readonly edges: number
  readonly matchStrategy: DeletionResult["matchStrategy"]
  readonly messages: ReadonlyArray<{ readonly sessionId: string; readonly index: number; readonly role: Role; readonly content: string }>
  readonly bufferEntries: ReadonlyArray<{ readonly sessionId: string; readonly type: BufferEntryType; readonly content: string }>
  /** Snapshot files that are scrubbed (0 when `delete_snapshots_on_hard_delete` is off). */
  readonly snapshots: number
}

/** The hard-delete cascade of a node, as `hardDelete` plans it, for a confirmation. */
export const previewDeletion = Effect.fn("previewDeletion")(function* (nodeId: string, options: HardDeleteOptions = {}) {
  const config = yield* AppConfig
  const rawLog = yield* RawLog
  const buffer = yield* SessionBuffer
  const { graph, node, keepSiblings, siblings, bySession, target } = yield* planDeletion(nodeId, options)
  const messages: Array<DeletionPreview["messages"][number]> = []
  for (const [sessionId, indices] of bySession) {
    for (const e of yield* rawLog.read(sessionId)) {
      if (indices.has(e.index)) messages.push({ sessionId, index: e.index, role: e.role, content: e.content })
    }
  }
  const matchStrategy: DeletionResult["matchStrategy"] =
    node.sourceRefs.length > 0 ? "source_refs" : messages.length > 0 ? "exact_content" : "none"

  const sessions = new Set([...(yield* buffer.sessionsWithWal), ...bySession.keys()])
  const bufferEntries: Array<DeletionPreview["bufferEntries"][number]> = []
  for (const sessionId of sessions) {
    for (const e of yield* buffer.entries(sessionId)) {
      if (target.entryMatches(e, sessionId)) bufferEntries.push({ sessionId, type: e.type, content: e.content })
    }
  }
  const gone = new Set([node.id, ...siblings.map((n) => n.id)])
  const edges = graph.edges.filter((e) => gone.has(e.source) || gone.has(e.target)).length
  const snapshots = config.deleteSnapshotsOnHardDelete
    ? yield* Effect.sync(() => {
        try {
          return listSnapshotFiles(dataPaths(config.dataDir).snapshots).length
        } catch {
          return 0
        }
      })
    : 0
  return {
    node: nodeBrief(node),
    keepSiblings,
    siblings: siblings.map(nodeBrief),
    edges,
    matchStrategy,
    messages,
    bufferEntries,
    snapshots
  } satisfies DeletionPreview
})
