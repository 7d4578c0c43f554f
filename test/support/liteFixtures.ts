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
