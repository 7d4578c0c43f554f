import { Effect } from "effect"
import type { MemoryNode, NodeStatus } from "../domain/Node.js"
import { nowIso } from "../domain/time.js"
import { heldAt, isCurrent, windowStart } from "../domain/validity.js"
import { GraphStore } from "../services/GraphStore.js"
import { statementKey } from "../text/canonical.js"
import type { SourceRef } from "../domain/Message.js"

/** One value a slot has held: a node with its validity window. */
export interface SlotVersion {
  readonly id: string
  readonly content: string
  readonly status: NodeStatus
  /** Where its window starts (validFrom, else createdAt) and ends (validTo; null = open). */
  readonly start: string
  readonly end: string | null
  /** The value it states (correction markers and case removed): equal values are the same value said again. */
  readonly value: string
  /** An earlier version of the slot stated the same value, and another value came in between. */
  readonly reasserted: boolean
  /** Active and inside its window now. */
  readonly current: boolean
  readonly confidence: number
  readonly supersedes: ReadonlyArray<string>
  readonly sourceRefs: ReadonlyArray<SourceRef>
}

/** A canonical key (within one scope) and the value that held at the moment asked about. */
export interface SlotSummary {
  readonly key: string
  readonly scope: string | null
  readonly versions: number
  /** The version that held (now, or at asOf), or null when none did. */
  readonly held: SlotVersion | null
  /** The latest window start among its versions: when it last changed. */
  readonly lastChange: string
}

export interface SlotsPage {
  readonly total: number
  readonly offset: number
  readonly items: ReadonlyArray<SlotSummary>
  /** The span the slots' history covers (earliest window start to now): the as-of slider's range. */
  readonly range: { readonly from: string; readonly to: string }
}

export interface SlotHistory {
  readonly key: string
  readonly scope: string | null
  /** Oldest window start first. */
  readonly versions: ReadonlyArray<SlotVersion>
  readonly range: { readonly from: string; readonly to: string }
}

const slotId = (key: string, scope: string | null) => `${scope ?? ""}\u0000${key}`

const byStart = (a: MemoryNode, b: MemoryNode) => {
  const sa = windowStart(a)
  const sb = windowStart(b)
  return sa < sb ? -1 : sa > sb ? 1 : a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0
}

/** A slot's nodes as versions, oldest first, with re-assertions marked. */
export const slotVersions = (nodes: ReadonlyArray<MemoryNode>, now: string): Array<SlotVersion> => {
  const sorted = [...nodes].sort(byStart)
  const seen = new Set<string>()
  let previous: string | null = null
  return sorted.map((n) => {
    const value = statementKey(n.content)
    const reasserted = seen.has(value) && previous !== value
    seen.add(value)
    previous = value
    return {
      id: n.id,
      content: n.content,
      status: n.status,
      start: windowStart(n),
      end: n.validTo,
      value,
      reasserted,
      current: isCurrent(n, now),
      confidence: n.confidence,
      supersedes: n.supersedes,
      sourceRefs: n.sourceRefs
    }
  })
}

/** Every node with a canonical key, grouped by (scope, key). */
export const groupSlots = (nodes: Iterable<MemoryNode>): Map<string, Array<MemoryNode>> => {
  const slots = new Map<string, Array<MemoryNode>>()
  for (const n of nodes) {
    if (n.canonicalKey === null) continue
    const id = slotId(n.canonicalKey, n.scope)
    const group = slots.get(id)
    if (group === undefined) slots.set(id, [n])
    else group.push(n)
  }
  return slots
}

const earliest = (nodes: Iterable<MemoryNode>, now: string): string => {
  let from = now
  for (const n of nodes) if (n.canonicalKey !== null && windowStart(n) < from) from = windowStart(n)
  return from
}

export interface SlotsQuery {
  /** Keeps slots whose key or held value contains this text (case-insensitive); "" keeps all. */
  readonly text: string
  /** The moment the held values are taken at (canonical ISO), null for now. */
  readonly asOf: string | null
  readonly offset: number
  readonly limit: number
}

/** Summarises one slot's nodes at a moment. */
export const summarizeSlot = (nodes: ReadonlyArray<MemoryNode>, asOf: string | null, now: string): SlotSummary => {
  const first = nodes[0]!
  let heldNode: MemoryNode | null = null
  let lastChange = windowStart(first)
  for (const n of nodes) {
    const start = windowStart(n)
    if (start > lastChange) lastChange = start
    if (heldAt(n, asOf, now) && (heldNode === null || byStart(heldNode, n) < 0)) heldNode = n
  }
  const versions = slotVersions(nodes, now)
  return {
    key: first.canonicalKey!,
    scope: first.scope,
    versions: versions.length,
    held: heldNode === null ? null : versions.find((v) => v.id === heldNode.id)!,
    lastChange
  }
}

/**
 * One page of the slots (every canonical key with the value that held now or at `asOf`), most recently
 * changed first. The whole graph is read on the server; only the page goes out.
 */
export const listSlots = Effect.fn("listSlots")(function* (q: SlotsQuery) {
  const store = yield* GraphStore
  const graph = yield* store.load({ withEmbeddings: false })
  const now = nowIso()
  const needle = q.text.trim().toLowerCase()
  const matching: Array<{ readonly nodes: Array<MemoryNode>; readonly lastChange: string; readonly key: string }> = []
  for (const nodes of groupSlots(graph.nodes.values()).values()) {
    const key = nodes[0]!.canonicalKey!
    if (needle !== "" && !key.toLowerCase().includes(needle) && !nodes.some((n) => n.content.toLowerCase().includes(needle))) continue
    let lastChange = ""
    for (const n of nodes) if (windowStart(n) > lastChange) lastChange = windowStart(n)
    matching.push({ nodes, lastChange, key })
  }
  matching.sort((a, b) => (a.lastChange > b.lastChange ? -1 : a.lastChange < b.lastChange ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  const items = matching.slice(q.offset, q.offset + q.limit).map((s) => summarizeSlot(s.nodes, q.asOf, now))
  return {
    total: matching.length,
    offset: q.offset,
    items,
    range: { from: earliest(graph.nodes.values(), now), to: now }
  } satisfies SlotsPage
})

/** Every value one slot has held, oldest first (an unknown key has none). */
export const slotHistory = Effect.fn("slotHistory")(function* (key: string, scope: string | null) {
  const store = yield* GraphStore
  const graph = yield* store.load({ withEmbeddings: false })
  const now = nowIso()
  const nodes = Array.from(graph.nodes.values()).filter((n) => n.canonicalKey === key && n.scope === scope)
  return {
    key,
    scope,
    versions: slotVersions(nodes, now),
    range: { from: earliest(nodes, now), to: now }
  } satisfies SlotHistory
})
