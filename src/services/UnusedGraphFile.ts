import { Context, type Effect } from "effect"
import type { CorruptFile, StorageError } from "../domain/errors.js"
import type { MemoryNode } from "../domain/Node.js"

export interface UnusedGraphFileShape {
  /**
   * Removes the matching nodes (and their edges) from the graph file of the backend not in use, left by a
   * backend switch, and scrubs its free pages. Nothing happens when there is no such file. A failure's
   * message starts with the file's path.
   */
  readonly removeNodes: (matches: (n: MemoryNode) => boolean) => Effect.Effect<void, StorageError | CorruptFile>
}

/** The switched-away backend's graph file, which a hard delete must scrub too. */
export class UnusedGraphFile extends Context.Tag("awhm/UnusedGraphFile")<UnusedGraphFile, UnusedGraphFileShape>() {}
