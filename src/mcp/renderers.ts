import type { Renderers } from "./register.js"
import { consolidateText, deleteText, logText, queryText, snapshotText } from "./render.js"

/** The text content of each tool's result. */
export const renderers: Renderers = {
  memory_query: (r) => queryText(r.results),
  memory_log: (r) => logText(r.buffer_entries),
  memory_consolidate: (r) => consolidateText(r.sessions),
  memory_status: (r) => JSON.stringify(r, null, 2),
  memory_snapshot_create: (r) => snapshotText(r.path),
  memory_delete_node: (r) => deleteText(r)
}
