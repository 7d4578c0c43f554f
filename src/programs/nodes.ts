import { Effect } from "effect"
import type { MemoryNode } from "../domain/Node.js"
import { GraphStore } from "../services/GraphStore.js"

/** Lists graph nodes in the order they were created, filtered by status and canonical key. */
export const listNodes = (filter: { readonly status: string | null; readonly key: string | null; readonly limit: number | null }) =>
  Effect.gen(function* () {
    const store = yield* GraphStore
    const graph = yield* store.load({ withEmbeddings: false })
    const out: Array<MemoryNode> = []
    for (const n of graph.nodes.values()) {
      if (filter.limit !== null && out.length >= filter.limit) break
      if (filter.status !== null && n.status !== filter.status) continue
      if (filter.key !== null && n.canonicalKey !== filter.key) continue
      out.push(n)
    }
    return out
  })
