/**
 * Whether this process serves many requests (an MCP or hook server) rather than one command. On a full
 * disk a one-command process may open the SQLite graph in exclusive mode to answer a read (it ends in a
 * moment); a server must not, as it would hold every other process off the graph for its lifetime.
 */
let longLived = false

export const markLongLived = (): void => {
  longLived = true
}

export const isLongLived = (): boolean => longLived
