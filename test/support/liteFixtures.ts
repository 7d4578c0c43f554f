import { execFile, execFileSync } from "node:child_process"
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

// What AWHM Lite's loaders take from a data dir, mirrored: load_graph (version popped, MemoryNode.from_dict's
// required keys, one embedding width for its matrix), RawLogReader (session = unquote(file stem), one
// LogEntry.from_dict per line, the line position is the message index), WALManager.recover (the WAL named
// by wal_path_for_session, BufferEntry.from_dict), the pipeline's progress state (v2 only, no migration
// needed). Any missing key or bad file raises, as the reference would.
const READER = `
import json, sys
from datetime import datetime
from pathlib import Path
from urllib.parse import unquote
d = Path(sys.argv[1])
g = json.load(open(d / "graph" / "memory_graph.json", encoding="utf-8"))
assert g.pop("version", "1.0") == "2.0"
nodes = {}
widths = set()
for nid, n in g.get("nodes", {}).items():
    for k in ("recency", "frequency", "composite"):
        n["strength"][k]
    datetime.fromisoformat(n["created_at"]); datetime.fromisoformat(n["last_accessed"])
    if n.get("embedding"):
        widths.add(len(n["embedding"]))
    nodes[nid] = {"type": n["type"], "content": n["content"], "status": n.get("status", "active"),
                  "refs": [[r["session_id"], int(r["message_index"])] for r in n.get("source_refs", [])]}
assert len(widths) <= 1, "embeddings of different widths"
edges = [[e["source"], e["target"], e["type"], float(e["weight"]), e["created_at"]] for e in g.get("edges", [])]
logs = {}
for f in sorted((d / "logs").glob("*.jsonl")):
    sid = unquote(f.stem)
    lines = [json.loads(l) for l in open(f, encoding="utf-8") if l.strip()]
    for l in lines:
        assert l["session_id"] == sid, "a line of another session"
        l["role"]; datetime.fromisoformat(l["timestamp"]); l.get("metadata", {})
    logs[sid] = [[l["role"], l["content"]] for l in lines]
def wal_name(sid):
    return "".join(c if c.isalnum() or c in ("-", "_", ".") else "_" for c in sid) + ".wal"
wal = {}
for sid in logs:
    p = d / "wal" / wal_name(sid)
    if p.exists():
        wal[sid] = [[e["type"], e["content"], int(e["source_msg"]), e["timestamp"] is not None] for e in json.load(open(p, encoding="utf-8"))]
progress = {}
pf = d / "meta" / "consolidated_sessions.json"
if pf.exists():
    state = json.load(open(pf, encoding="utf-8"))
    assert isinstance(state.get("sessions"), dict)
    for sid, v in state["sessions"].items():
        progress[sid] = int(v.get("last_msg_index", -1)); v["updated_at"]
json.dump({"nodes": nodes, "edges": edges, "logs": logs, "wal": wal, "progress": progress}, sys.stdout)
`

export interface LiteView {
  readonly nodes: Record<string, { readonly type: string; readonly content: string; readonly status: string; readonly refs: Array<[string, number]> }>
  readonly edges: Array<[string, string, string, number, string]>
  readonly logs: Record<string, Array<[string, string]>>
  readonly wal: Record<string, Array<[string, string, number, boolean]>>
  readonly progress: Record<string, number>
}

/** What AWHM Lite's loaders read from `dataDir` (python3, run asynchronously); rejects with its error. */
export const readAsLite = (dataDir: string): Promise<LiteView> =>
  new Promise((resolve, reject) =>
    execFile("python3", ["-c", READER, dataDir], (error, stdout, stderr) =>
      error === null ? resolve(JSON.parse(stdout) as LiteView) : reject(new Error(`the reference's loader failed: ${stderr.trim().split("\n").pop()}`))
    )
  )
