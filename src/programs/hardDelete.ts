import * as fs from "node:fs"
import { Effect } from "effect"
import type { BufferEntry } from "../domain/BufferEntry.js"
import { NodeNotFound, StorageError } from "../domain/errors.js"
import type { Graph, MemoryNode } from "../domain/Node.js"
import { listSnapshotFiles, scrubSnapshotFileSync, type SnapshotWalEntry } from "../store/snapshotFile.js"
import { removeStaleTempFiles } from "../store/tempFiles.js"
import { newRecordId, normalizeContent } from "../store/tombstones.js"
import { shutdownHookServers } from "../store/hookSocket.js"
import { dataPaths, type DataPaths } from "../store/paths.js"
import { beginDeletion } from "../store/deletionNotices.js"
import { purgeRetrievalIndex } from "../store/indexFiles.js"
import { AppConfig } from "../services/AppConfig.js"
import { DeletionRecords } from "../services/DeletionRecords.js"
import { GraphStore } from "../services/GraphStore.js"
import { RawLog } from "../services/RawLog.js"
import { SessionBuffer } from "../services/SessionBuffer.js"
import { UnusedGraphFile } from "../services/UnusedGraphFile.js"

/** The reference's DeletionResult (camelCase) plus the sibling nodes removed with it. */
export interface DeletionResult {
  readonly nodeDeleted: boolean
  readonly edgesRemoved: number
  readonly logEntriesRemoved: number
  readonly bufferEntriesRemoved: number
  readonly affectedSessions: ReadonlyArray<string>
  readonly matchStrategy: "none" | "source_refs" | "exact_content"
  readonly exactMatchesRemoved: number
  readonly snapshotsTouched: number
  readonly tombstoneId: string
  readonly ledgerRecordId: string
  /** Other nodes removed with it: derived from the same source message, or holding the same text. */
  readonly siblingsRemoved: ReadonlyArray<string>
}

export interface DeletionReport {
  readonly result: DeletionResult
  /** Things the user should know (for stderr); never memory content. */
  readonly warnings: ReadonlyArray<string>
}

export interface HardDeleteOptions {
  /** Keep nodes derived from the same source message (default: the `delete_siblings_on_hard_delete` setting). */
  readonly keepSiblings?: boolean
}

/** How a deletion names one message (session and index). */
export const messageKey = (sessionId: string, index: number) => `${index}:${sessionId}`

/** What a deletion removes, as predicates every copy (graph, snapshots, other backend) is scrubbed with. */
export interface Target {
  readonly nodeMatches: (n: MemoryNode) => boolean
  readonly entryMatches: (e: Pick<BufferEntry, "content" | "source_msg"> & { readonly session_id?: string | undefined }, sessionId?: string) => boolean
  /** Raw (UTF-8) forms of the deleted texts, to recognise them in files that cannot be parsed. */
  readonly texts: ReadonlyArray<string>
}

/** The predicates for what a deletion of these nodes (and these source messages) removes. */
export const makeTarget = (doomed: ReadonlyArray<MemoryNode>, messages: ReadonlySet<string>, bySourceMessage: boolean): Target => {
  const ids = new Set(doomed.map((n) => n.id))
  const contents = new Set(doomed.map((n) => normalizeContent(n.content)))
  return {
    nodeMatches: (n) =>
      ids.has(n.id) ||
      contents.has(normalizeContent(n.content)) ||
      (bySourceMessage && n.sourceRefs.some((r) => messages.has(messageKey(r.sessionId, r.messageIndex)))),
    entryMatches: (e, sessionId) => {
      const sid = e.session_id ?? sessionId
      return (sid !== undefined && messages.has(messageKey(sid, e.source_msg))) || contents.has(normalizeContent(e.content))
    },
    texts: Array.from(new Set(doomed.map((n) => n.content))).filter((t) => t.length > 0)
  }
}

/** True when a file's bytes hold one of the texts, plainly or JSON-escaped. */
const fileHolds = (file: string, texts: ReadonlyArray<string>): boolean => {
  const bytes = fs.readFileSync(file)
  return texts.some((t) => bytes.includes(Buffer.from(t, "utf8")) || bytes.includes(Buffer.from(JSON.stringify(t).slice(1, -1), "utf8")))
}

/** Scrubs every snapshot; a damaged one that still holds the text is removed (privacy wins over a broken backup). */
const scrubSnapshots = (paths: DataPaths, target: Target, warnings: Array<string>) =>
  Effect.try({
    try: () => {
      let touched = 0
      removeStaleTempFiles(paths.snapshots)
      for (const { path: file } of listSnapshotFiles(paths.snapshots)) {
        const outcome = scrubSnapshotFileSync(file, target.nodeMatches, (e: SnapshotWalEntry) => target.entryMatches(e))
        if (outcome === "touched") touched++
        if (outcome === "damaged") {
          if (fileHolds(file, target.texts)) {
            fs.rmSync(file, { force: true })
            touched++
            warnings.push(`removed the damaged snapshot ${file}: it held the deleted memory and could not be rewritten`)
          } else {
            warnings.push(`the snapshot ${file} is damaged and was left as it is`)
          }
        }
      }
      return touched
    },
    catch: (e) =>
      e instanceof StorageError
        ? e
        : new StorageError({ operation: "scrub", path: paths.snapshots, message: `could not scrub snapshots in ${paths.snapshots}: ${(e as NodeJS.ErrnoException).code ?? String(e)}` })
  })

/** The graph file of the backend not in use (left by a backend switch) is scrubbed too. */
const scrubOtherBackend = (target: Target, warnings: Array<string>) =>
  Effect.flatMap(UnusedGraphFile, (unused) => unused.removeNodes(target.nodeMatches)).pipe(
    Effect.catchAll((e) => Effect.sync(() => void warnings.push(`could not scrub the unused graph file ${e.message}`)))
  )

/** Every copy goes: raw-log messages, buffers and their WALs, snapshots, the unused backend's file, the graph. */
const scrubEverywhere = (
  nodeId: string,
  siblings: ReadonlyArray<MemoryNode>,
  bySession: ReadonlyMap<string, ReadonlySet<number>>,
  target: Target,
  warnings: Array<string>
) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const store = yield* GraphStore
    const rawLog = yield* RawLog
    const buffer = yield* SessionBuffer
    const paths = dataPaths(config.dataDir)
    // Hook servers hold the graph and logged text in memory, and save indexes: stopped before anything is
    // scrubbed, none can write the text back afterwards (the next prompt starts a fresh one).
    yield* Effect.promise(() => shutdownHookServers(config.dataDir))
    const affected = new Set<string>()
    let logEntriesRemoved = 0
    for (const [sessionId, indices] of bySession) {
      const removed = yield* rawLog.removeEntries(sessionId, indices)
      logEntriesRemoved += removed
      if (removed > 0) affected.add(sessionId)
    }

    // Session buffers and their WALs (rewritten now, not at the next flush), in every session that has one.
    const sessions = new Set([...(yield* buffer.sessionsWithWal), ...bySession.keys()])
    let bufferEntriesRemoved = 0
    for (const sessionId of sessions) {
      const removed = yield* buffer.removeWhere(sessionId, (e) => target.entryMatches(e, sessionId))
      bufferEntriesRemoved += removed
      if (removed > 0) affected.add(sessionId)
    }

    const snapshotsTouched = config.deleteSnapshotsOnHardDelete ? yield* scrubSnapshots(paths, target, warnings) : 0
    yield* scrubOtherBackend(target, warnings)

    // The graph, then its file's free pages and write-ahead log.
    const [nodeDeleted, edgesRemoved, removedIds] = yield* store.update((g) => {
      const gone = new Set([nodeId, ...siblings.map((n) => n.id)].filter((id) => g.nodes.has(id)))
      const edges = g.edges.filter((e) => gone.has(e.source) || gone.has(e.target)).length
      return Effect.succeed([[g.nodes.has(nodeId), edges, gone] as const, { deleteNodes: Array.from(gone) }] as const)
    })
    yield* store.scrub
    yield* Effect.try({
      // Temp files of killed writers may hold the text too.
      try: () => {
        for (const dir of [paths.logs, paths.wal, paths.graphDir, paths.meta]) removeStaleTempFiles(dir)
      },
      catch: (e) =>
        new StorageError({ operation: "scrub", path: config.dataDir, message: `could not clear temp files under ${config.dataDir}: ${(e as NodeJS.ErrnoException).code ?? String(e)}` })
    })
    return { affected, logEntriesRemoved, bufferEntriesRemoved, snapshotsTouched, nodeDeleted, edgesRemoved, removedIds }
  })

/** The other nodes a deletion takes along: the same text, and (unless kept) the same source message. */
export const deletionSiblings = (graph: Graph, node: MemoryNode, keepSiblings: boolean): Array<MemoryNode> => {
  const sourceMessages = new Set(node.sourceRefs.map((r) => messageKey(r.sessionId, r.messageIndex)))
  const text = normalizeContent(node.content)
  return Array.from(graph.nodes.values()).filter(
    (n) =>
      n.id !== node.id &&
      (normalizeContent(n.content) === text ||
        (!keepSiblings && n.sourceRefs.some((r) => sourceMessages.has(messageKey(r.sessionId, r.messageIndex)))))
  )
}

/** What a hard delete of a node removes, worked out before anything is touched (the confirmation shows it too). */
export interface DeletionPlan {
  readonly graph: Graph
  readonly node: MemoryNode
  readonly keepSiblings: boolean
  readonly siblings: ReadonlyArray<MemoryNode>
  /** The raw-log messages that go, by session. */
  readonly bySession: ReadonlyMap<string, ReadonlySet<number>>
  readonly target: Target
}

/**
 * 1. What goes: the node, nodes from the same source message (unless kept), nodes holding the same text.
 * 2. Raw-log messages: exactly the source messages; without refs, entries whose normalized text equals the node's.
 */
export const planDeletion = Effect.fn("planDeletion")(function* (nodeId: string, options: HardDeleteOptions = {}) {
  const config = yield* AppConfig
  const rawLog = yield* RawLog
  const keepSiblings = options.keepSiblings ?? !config.deleteSiblingsOnHardDelete
  const graph = yield* (yield* GraphStore).load({ withEmbeddings: false })
  const node = graph.nodes.get(nodeId)
  if (node === undefined) return yield* new NodeNotFound({ nodeId, message: `node ${nodeId} not found` })
  const siblings = deletionSiblings(graph, node, keepSiblings)
  const bySession = new Map<string, Set<number>>()
  for (const r of node.sourceRefs) bySession.set(r.sessionId, (bySession.get(r.sessionId) ?? new Set()).add(r.messageIndex))
  if (node.sourceRefs.length === 0) {
    const text = normalizeContent(node.content)
    for (const sessionId of node.sourceSessions) {
      const matches = (yield* rawLog.read(sessionId)).filter((e) => normalizeContent(e.content) === text)
      if (matches.length > 0) bySession.set(sessionId, new Set(matches.map((e) => e.index)))
    }
  }
  const deletedMessages = new Set<string>()
  for (const [sessionId, indices] of bySession) for (const i of indices) deletedMessages.add(messageKey(sessionId, i))
  const target = makeTarget([node, ...siblings], deletedMessages, !keepSiblings)
  return { graph, node, keepSiblings, siblings, bySession, target } satisfies DeletionPlan
})

/**
 * The hard-delete cascade (REFERENCE-BEHAVIOUR 4.12, plus: siblings from the same source message, the
 * WAL rewritten at once, a salted-hash tombstone, and no copy of the text left in any file). Files are
 * scrubbed before the graph node goes, so a crash midway leaves a node that `delete` can still find.
 */
export const hardDelete = Effect.fn("hardDelete")(function* (nodeId: string, options: HardDeleteOptions = {}) {
  const config = yield* AppConfig
  const paths = dataPaths(config.dataDir)
  const warnings: Array<string> = []

  const { node, siblings, bySession, target } = yield* planDeletion(nodeId, options)

  // 3. Announced before anything is scrubbed, 4. scrubbed everywhere: processes holding memory (MCP servers, library sessions) drop
  // what goes before their next answer or write. Ended (with the index purge) however the scrub ends.
  const deletionId = yield* Effect.try({
    try: () =>
      beginDeletion(
        paths,
        Array.from(bySession, ([sessionId, indices]) => Array.from(indices, (i) => [sessionId, i] as const)).flat(),
        target.texts
      ),
    catch: (e) => new StorageError({ operation: "write", path: paths.meta, message: `could not announce the delete in ${paths.meta}: ${(e as NodeJS.ErrnoException).code ?? String(e)}` })
  })
  const purgeIndex = Effect.try({
    // The retrieval cache holds copies of logged text and its embeddings (the next query rebuilds it).
    try: () => purgeRetrievalIndex(config.dataDir, deletionId),
    catch: (e) =>
      new StorageError({ operation: "scrub", path: config.dataDir, message: `could not clear the retrieval index under ${config.dataDir}: ${(e as NodeJS.ErrnoException).code ?? String(e)}` })
  })
  const scrubbed = yield* scrubEverywhere(nodeId, siblings, bySession, target, warnings).pipe(Effect.onError(() => Effect.ignore(purgeIndex)))
  yield* purgeIndex
  const { affected, logEntriesRemoved, bufferEntriesRemoved, snapshotsTouched, nodeDeleted, edgesRemoved, removedIds } = scrubbed
  const exactMatchesRemoved = node.sourceRefs.length > 0 ? 0 : logEntriesRemoved
  const matchStrategy: DeletionResult["matchStrategy"] =
    node.sourceRefs.length > 0 ? "source_refs" : exactMatchesRemoved > 0 ? "exact_content" : "none"

  // 5. Tombstone (a salted hash, never the text) and ledger.
  const siblingsRemoved = siblings.map((n) => n.id).filter((id) => removedIds.has(id))
  const timestamp = new Date().toISOString()
  const tombstoneId = newRecordId()
  const ledgerRecordId = newRecordId()
  const affectedSessions = Array.from(affected).sort()
  const records = yield* DeletionRecords
  const content_hash = yield* records.contentHash(node.content)
  yield* records.append(
    {
      tombstone_id: tombstoneId,
      timestamp,
      node_id: nodeId,
      content_hash,
      affected_sessions: affectedSessions,
      match_strategy: matchStrategy,
      siblings_removed: siblingsRemoved
    },
    {
      record_id: ledgerRecordId,
      timestamp,
      node_id: nodeId,
      node_deleted: nodeDeleted,
      edges_removed: edgesRemoved,
      log_entries_removed: logEntriesRemoved,
      buffer_entries_removed: bufferEntriesRemoved,
      snapshots_touched: snapshotsTouched,
      tombstone_id: tombstoneId,
      siblings_removed: siblingsRemoved
    }
  )

  const result: DeletionResult = {
    nodeDeleted,
    edgesRemoved,
    logEntriesRemoved,
    bufferEntriesRemoved,
    affectedSessions,
    matchStrategy,
    exactMatchesRemoved,
    snapshotsTouched,
    tombstoneId,
    ledgerRecordId,
    siblingsRemoved
  }
  return { result, warnings } satisfies DeletionReport
})
