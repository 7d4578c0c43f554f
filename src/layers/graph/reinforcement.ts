import { Cause, Effect, Schedule } from "effect"
import { noteUnsaved } from "../../runtime/unsavedNotice.js"
import type { Graph, MemoryNode, Strength } from "../../domain/Node.js"
import type { Reinforcement } from "../../services/GraphStore.js"

interface Pending {
  readonly content: string
  readonly validTo: string | null
  readonly count: number
  readonly at: string
  readonly strength: Strength
}

/** How often a file-backed store writes the reinforcement it has gathered (and once more at close). */
export const REINFORCE_FLUSH_MS = 5_000

/**
 * Reinforcement gathered in the process and written in batches: one write every few seconds instead of
 * one per query, so processes reading one store stop invalidating each other's caches.
 */
export class PendingReinforcement {
  private pending = new Map<string, Pending>()

  get size(): number {
    return this.pending.size
  }

  /** The ids with something pending. */
  ids(): IterableIterator<string> {
    return this.pending.keys()
  }

  add(items: ReadonlyArray<Reinforcement>): void {
    for (const r of items) {
      const p = this.pending.get(r.id)
      const same = p !== undefined && p.content === r.content && p.validTo === r.validTo
      this.pending.set(r.id, {
        content: r.content,
        validTo: r.validTo,
        count: same ? p.count + 1 : 1,
        at: same && p.at > r.at ? p.at : r.at,
        strength: r.strength
      })
    }
  }

  /** The node with what is pending for it, or the node itself. */
  overlay(node: MemoryNode): MemoryNode {
    const p = this.pending.get(node.id)
    return p === undefined ? node : (applyOne(node, p) ?? node)
  }

  /** A copy of the graph (as `copyGraph`) with what is pending shown on its nodes. */
  overlayGraph(graph: Graph): Graph {
    const nodes = new Map(graph.nodes)
    if (this.pending.size > 0) for (const [id, n] of nodes) nodes.set(id, this.overlay(n))
    return { nodes, edges: graph.edges.slice() }
  }

  /** Takes everything pending (put it back with `restore` when the write fails). */
  take(): Map<string, Pending> {
    const out = this.pending
    this.pending = new Map()
    return out
  }

  restore(taken: ReadonlyMap<string, Pending>): void {
    for (const [id, p] of taken) {
      const now = this.pending.get(id)
      if (now === undefined || now.content !== p.content || now.validTo !== p.validTo) {
        if (now === undefined) this.pending.set(id, p)
        continue
      }
      this.pending.set(id, { ...now, count: now.count + p.count, at: now.at > p.at ? now.at : p.at })
    }
  }
}

/** The reinforced node, or null when it changed since it was returned (superseded, edited, window ended). */
const applyOne = (node: MemoryNode, p: Pending): MemoryNode | null =>
  node.status !== "active" || node.content !== p.content || node.validTo !== p.validTo
    ? null
    : { ...node, lastAccessed: p.at, accessCount: node.accessCount + p.count, strength: p.strength }

/** The nodes to write for what was taken, given their current stored state (`stored`: by id). */
export const reinforced = (
  taken: ReadonlyMap<string, Pending>,
  stored: (id: string) => MemoryNode | undefined
): Array<MemoryNode> =>
  [...taken].flatMap(([id, p]) => {
    const n = stored(id)
    const next = n === undefined ? null : applyOne(n, p)
    return next === null ? [] : [next]
  })

/**
 * Runs `flush` every `everyMs` while the scope is open and once more when it closes (a failure is logged:
 * reinforcement is a hint, never worth failing a command for).
 */
export const flushPeriodically = <E>(flush: Effect.Effect<void, E>, everyMs: number) =>
  Effect.gen(function* () {
    const quiet = flush.pipe(
      Effect.catchAllCause((cause) =>
        noteUnsaved("the reinforcement of the memories returned", Cause.squash(cause))
          ? Effect.void
          : Effect.logDebug("reinforcement not written", cause)
      )
    )
    yield* Effect.forkScoped(Effect.repeat(Effect.delay(quiet, `${everyMs} millis`), Schedule.forever))
    yield* Effect.addFinalizer(() => quiet)
  })
