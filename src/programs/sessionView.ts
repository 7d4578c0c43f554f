import { Effect } from "effect"
import type { BufferEntry } from "../domain/BufferEntry.js"
import type { Role } from "../domain/Message.js"
import { GraphStore } from "../services/GraphStore.js"
import { RawLog } from "../services/RawLog.js"
import { SessionBuffer } from "../services/SessionBuffer.js"
import { nodeBrief, type NodeBrief } from "./neighbourhood.js"

export interface SessionSummary {
  readonly sessionId: string
  /** When its log last changed (ISO). */
  readonly updatedAt: string
}

/** One page of the sessions that have a raw log, most recently changed first. */
export const listSessions = Effect.fn("listSessions")(function* (q: {
  readonly text: string
  readonly offset: number
  readonly limit: number
}) {
  const sessions = yield* (yield* RawLog).sessions
  const needle = q.text.trim().toLowerCase()
  const matching = sessions.filter((s) => needle === "" || s.sessionId.toLowerCase().includes(needle)).reverse()
  return {
    total: matching.length,
    offset: q.offset,
    items: matching
      .slice(q.offset, q.offset + q.limit)
      .map((s): SessionSummary => ({ sessionId: s.sessionId, updatedAt: new Date(s.mtimeMs).toISOString() }))
  }
})

export interface SessionMessage {
  readonly index: number
  readonly role: Role
  readonly timestamp: string
  readonly content: string
  /** What the session buffer caught from this message. */
  readonly buffer: ReadonlyArray<Pick<BufferEntry, "type" | "content" | "timestamp">>
  /** Graph nodes whose provenance is this message. */
  readonly nodes: ReadonlyArray<NodeBrief>
}

export interface SessionLog {
  readonly sessionId: string
  readonly total: number
  readonly offset: number
  readonly messages: ReadonlyArray<SessionMessage>
}

/** One page of a session's raw log, each message with the buffer entries and the nodes it produced. */
export const sessionLog = Effect.fn("sessionLog")(function* (
  sessionId: string,
  page: { readonly offset: number; readonly limit: number; readonly at?: number | null }
) {
  const entries = yield* (yield* RawLog).read(sessionId)
  // A link to one message opens the page that holds it (indices keep their gaps after a delete).
  const position = page.at === null || page.at === undefined ? -1 : entries.findIndex((e) => e.index === page.at)
  const offset = position === -1 ? page.offset : Math.floor(position / page.limit) * page.limit
  const buffered = yield* (yield* SessionBuffer).entries(sessionId)
  const graph = yield* (yield* GraphStore).load({ withEmbeddings: false })
  const shown = entries.slice(offset, offset + page.limit)
  const wanted = new Set(shown.map((e) => e.index))
  const nodesByMessage = new Map<number, Array<NodeBrief>>()
  for (const n of graph.nodes.values()) {
    for (const r of n.sourceRefs) {
      if (r.sessionId !== sessionId || !wanted.has(r.messageIndex)) continue
      const list = nodesByMessage.get(r.messageIndex) ?? []
      if (!list.some((b) => b.id === n.id)) list.push(nodeBrief(n))
      nodesByMessage.set(r.messageIndex, list)
    }
  }
  return {
    sessionId,
    total: entries.length,
    offset,
    messages: shown.map(
      (e): SessionMessage => ({
        index: e.index,
        role: e.role,
        timestamp: e.timestamp,
        content: e.content,
        buffer: buffered.filter((b) => b.source_msg === e.index).map((b) => ({ type: b.type, content: b.content, timestamp: b.timestamp })),
        nodes: nodesByMessage.get(e.index) ?? []
      })
    )
  } satisfies SessionLog
})
