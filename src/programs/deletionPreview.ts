import { Effect } from "effect"
import type { BufferEntryType } from "../domain/BufferEntry.js"
import { NodeNotFound } from "../domain/errors.js"
import type { Role } from "../domain/Message.js"
import { AppConfig } from "../services/AppConfig.js"
import { GraphStore } from "../services/GraphStore.js"
import { RawLog } from "../services/RawLog.js"
import { SessionBuffer } from "../services/SessionBuffer.js"
import { listSnapshotFiles } from "../store/snapshotFile.js"
import { dataPaths } from "../store/paths.js"
import { normalizeContent } from "../store/tombstones.js"
import { deletionSiblings, type DeletionResult, type HardDeleteOptions, makeTarget, messageKey } from "./hardDelete.js"
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

/** The hard-delete cascade of a node, worked out by the same rules as `hardDelete`, for a confirmation. */
export const previewDeletion = Effect.fn("previewDeletion")(function* (nodeId: string, options: HardDeleteOptions = {}) {
  const config = yield* AppConfig
  const rawLog = yield* RawLog
  const buffer = yield* SessionBuffer
  const graph = yield* (yield* GraphStore).load({ withEmbeddings: false })
  const node = graph.nodes.get(nodeId)
  if (node === undefined) return yield* new NodeNotFound({ nodeId, message: `node ${nodeId} not found` })
  const keepSiblings = options.keepSiblings ?? !config.deleteSiblingsOnHardDelete
  const siblings = deletionSiblings(graph, node, keepSiblings)

  const deletedMessages = new Set(node.sourceRefs.map((r) => messageKey(r.sessionId, r.messageIndex)))
  const messages: Array<DeletionPreview["messages"][number]> = []
  let matchStrategy: DeletionResult["matchStrategy"] = "none"
  const refSessions = node.sourceRefs.length > 0 ? new Set(node.sourceRefs.map((r) => r.sessionId)) : new Set(node.sourceSessions)
  const text = normalizeContent(node.content)
  for (const sessionId of refSessions) {
    for (const e of yield* rawLog.read(sessionId)) {
      const doomed = node.sourceRefs.length > 0 ? deletedMessages.has(messageKey(sessionId, e.index)) : normalizeContent(e.content) === text
      if (!doomed) continue
      deletedMessages.add(messageKey(sessionId, e.index))
      messages.push({ sessionId, index: e.index, role: e.role, content: e.content })
    }
  }
  if (node.sourceRefs.length > 0) matchStrategy = "source_refs"
  else if (messages.length > 0) matchStrategy = "exact_content"

  const target = makeTarget([node, ...siblings], deletedMessages, !keepSiblings)
  const sessions = new Set(yield* buffer.sessionsWithWal)
  for (const key of deletedMessages) sessions.add(key.slice(key.indexOf(":") + 1))
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
