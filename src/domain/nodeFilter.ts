import type { MemoryNode } from "./Node.js"
import { validAt } from "./time.js"

/**
 * Which nodes a search may return. With `asOf`: nodes whose window [validFrom ?? createdAt, validTo) holds
 * that moment, whatever their status. Without: every node when `includeHistory`, else current ones (active,
 * window holding `now`). A `scope` admits that scope and global (null-scope) nodes; null admits every scope.
 * Timestamps are canonical UTC ISO strings, compared as strings.
 */
export interface NodeFilter {
  readonly asOf: string | null
  readonly includeHistory: boolean
  readonly now: string
  readonly scope: string | null
}

/** Start of a node's validity window: validFrom, else its creation time. */
export const windowStart = (node: MemoryNode): string => node.validFrom ?? node.createdAt

/** Current = active and inside its validity window now (an ended window is history). */
export const isCurrent = (node: MemoryNode, now: string): boolean =>
  node.status === "active" && validAt(windowStart(node), node.validTo, now)

/** Whether `filter` admits the node. */
export const admits = (node: MemoryNode, filter: NodeFilter): boolean => {
  if (filter.scope !== null && node.scope !== null && node.scope !== filter.scope) return false
  if (filter.asOf !== null) return validAt(windowStart(node), node.validTo, filter.asOf)
  return filter.includeHistory || isCurrent(node, filter.now)
}
