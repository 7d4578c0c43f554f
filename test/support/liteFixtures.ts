import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

// Data dirs in AWHM Lite's own formats, written the way the reference writes them (its SQLite store is
// Python's sqlite3 module: default rollback journal, one row per node, the embedding as a float32 BLOB).

/** A node as the reference's `MemoryNode.to_dict()` gives it (the embedding goes in its own column). */
export const liteNode = (id: string, content: string, extra: Record<string, unknown> = {}) => ({
  id,
  type: "semantic",
  content,
  embed_model: "all-MiniLM-L6-v2",
  strength: { recency: 1.0, frequency: 1.0, composite: 1.0 },
  created_at: "2026-03-01T10:00:00.123456+00:00",
  last_accessed: "2026-03-01T10:00:00.123456+00:00",
  source_sessions: ["s1"],
  source_refs: [{ session_id: "s1", message_index: 0 }],
  access_count: 0,
  canonical_key: null,
  status: "active",
  supersedes: [],
  valid_from: "2026-03-01T10:00:00+00:00",
  valid_to: null,
  confidence: 0.6,
  entity_type: null,
  aliases: [],
  mentioned_dates: [],
  ...extra
})

export interface LiteEdge {
  readonly source: string
  readonly target: string
  readonly type: string
  readonly weight: number
  readonly created_at: string
}

const WRITER = `
import json, sqlite3, struct, sys
spec = json.load(open(sys.argv[2]))
conn = sqlite3.connect(sys.argv[1])
conn.executescript("""
CREATE TABLE IF NOT EXISTS nodes (id TEXT PRIMARY KEY, data TEXT NOT NULL, embedding BLOB, embed_dim INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS edges (source TEXT NOT NULL, target TEXT NOT NULL, type TEXT NOT NULL, weight REAL NOT NULL, created_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS edges_source ON edges(source);
CREATE INDEX IF NOT EXISTS edges_target ON edges(target);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
""")
for n in spec["nodes"]:
    emb = n.pop("embedding", [])
    data = n.pop("raw_data", None) or json.dumps(n)
    blob = struct.pack("<%df" % len(emb), *emb) if emb else None
    conn.execute("INSERT INTO nodes (id, data, embedding, embed_dim) VALUES (?, ?, ?, ?)", (n["id"], data, blob, len(emb)))
for e in spec["edges"]:
    conn.execute("INSERT INTO edges VALUES (?, ?, ?, ?, ?)", (e["source"], e["target"], e["type"], e["weight"], e["created_at"]))
conn.execute("INSERT INTO meta (key, value) VALUES ('version', '2.0')")
conn.commit()
conn.close()
`

/** Writes `<dataDir>/graph/memory_graph.sqlite` as AWHM Lite's SqliteGraphStore does. `raw_data` replaces a node's JSON text. */
export const writeLiteSqlite = (
  dataDir: string,
  nodes: ReadonlyArray<Record<string, unknown> & { readonly embedding?: ReadonlyArray<number> }>,
  edges: ReadonlyArray<LiteEdge> = []
): string => {
  const file = path.join(dataDir, "graph", "memory_graph.sqlite")
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 })
  const spec = path.join(dataDir, "lite-spec.json")
  fs.writeFileSync(spec, JSON.stringify({ nodes, edges }))
  try {
    execFileSync("python3", ["-c", WRITER, file, spec])
  } finally {
    fs.rmSync(spec)
  }
  return file
}

const writeJson = (file: string, value: unknown, indent?: number) => {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 })
  fs.writeFileSync(file, JSON.stringify(value, null, indent))
}

/** `<dataDir>/graph/memory_graph.json` as the reference's `save_graph` writes it (indent 2, version first). */
export const writeLiteJsonGraph = (
  dataDir: string,
  nodes: ReadonlyArray<Record<string, unknown> & { readonly id: string }>,
  edges: ReadonlyArray<LiteEdge> = []
): string => {
  const file = path.join(dataDir, "graph", "memory_graph.json")
  writeJson(file, { version: "2.0", nodes: Object.fromEntries(nodes.map((n) => [n.id, { embedding: [], ...n }])), edges }, 2)
  return file
}

/** Python's `" ".join(text.lower().split())`. */
const liteNormalize = (text: string) => text.toLowerCase().split(/\s+/).filter((w) => w !== "").join(" ")

/** A tombstone line as the reference's hard_delete appends it: the first 64 normalized characters in plain text. */
export const liteTombstone = (nodeId: string, content: string, affectedSessions: ReadonlyArray<string> = ["s1"]) => ({
  tombstone_id: `t-${nodeId}`,
  timestamp: "2026-03-02T11:00:00.000000+00:00",
  node_id: nodeId,
  content_hash_hint: Array.from(liteNormalize(content)).slice(0, 64).join(""),
  affected_sessions: affectedSessions,
  match_strategy: "source_refs"
})

/** A buffer entry as the reference's `BufferEntry.to_dict()` gives it (no session id). */
export const liteBufferEntry = (content: string, sourceMsg: number, timestamp: string, type = "fact") => ({
  type,
  content,
  timestamp,
  source_msg: sourceMsg
})

/** A session's WAL as the reference's WALManager writes it: `wal/<stem>.wal`, a JSON array of entries. */
export const writeLiteWal = (dataDir: string, stem: string, entries: ReadonlyArray<unknown>): string => {
  const file = path.join(dataDir, "wal", `${stem}.wal`)
  writeJson(file, entries)
  return file
}

/** A snapshot as the reference's SnapshotManager.create writes it (the creating session's buffer in wal_state). */
export const writeLiteSnapshot = (
  dataDir: string,
  stamp: string,
  nodes: ReadonlyArray<Record<string, unknown> & { readonly id: string }>,
  walState: ReadonlyArray<unknown>
): string => {
  const file = path.join(dataDir, "snapshots", `snapshot_${stamp}.json`)
  writeJson(
    file,
    { version: "2.0", created_at: "2026-03-02T10:00:00.000000+00:00", graph: { nodes: Object.fromEntries(nodes.map((n) => [n.id, { embedding: [], ...n }])), edges: [] }, wal_state: walState },
    2
  )
  return file
}

/** One raw-log line as the reference's RawLogger writes it (no index: the line's position is its index). */
export const liteLogLine = (sessionId: string, content: string, timestamp: string, role = "user") =>
  JSON.stringify({ timestamp, session_id: sessionId, role, content, metadata: {} })
