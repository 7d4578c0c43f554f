import type { MemoryNode } from "../../domain/Node.js"

type Counts = ReadonlyArray<{ readonly count: number; readonly nodes: number }>

/** A stored access-count distribution with these stored nodes counted as `view` shows them (pending reinforcement). */
export const withPending = (stored: Counts, nodes: ReadonlyArray<MemoryNode>, view: (n: MemoryNode) => MemoryNode): Counts => {
  const counts = new Map(stored.map((r) => [r.count, r.nodes] as const))
  for (const n of nodes) {
    const shown = view(n).accessCount
    if (shown === n.accessCount) continue
    counts.set(n.accessCount, (counts.get(n.accessCount) ?? 0) - 1)
    counts.set(shown, (counts.get(shown) ?? 0) + 1)
  }
  return [...counts].filter(([, k]) => k > 0).sort((a, b) => a[0] - b[0]).map(([count, nodes]) => ({ count, nodes }))
}
