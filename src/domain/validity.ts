import type { MemoryNode } from "./Node.js"
import { validAt } from "./time.js"

/** Where a node's validity window starts: its validFrom, else when it was created. */
export const windowStart = (node: Pick<MemoryNode, "validFrom" | "createdAt">): string => node.validFrom ?? node.createdAt

/** Current = active and inside its validity window now (an ended window is history, "does better" 4). */
export const isCurrent = (node: MemoryNode, now: string): boolean =>
  node.status === "active" && validAt(windowStart(node), node.validTo, now)

/**
 * Whether a node was what held at a moment: with `asOf`, its half-open window holds that moment whatever
 * its status (time travel, as retrieval answers it); without, it is current now.
 */
export const heldAt = (node: MemoryNode, asOf: string | null, now: string): boolean =>
  asOf === null ? isCurrent(node, now) : validAt(windowStart(node), node.validTo, asOf)
