import { makeNode, type MemoryNode } from "../../src/domain/Node.js"
import { storedVector } from "../../src/store/compactVector.js"
import { scopedTempDir } from "./cli.js"

/** A fresh temp directory, removed when the scope closes. */
export const tempDir = scopedTempDir

/** A node with every field set to a non-default value, so a round trip that drops one is noticed. */
export const fullNode = (id: string, overrides: Partial<MemoryNode> = {}): MemoryNode =>
  makeNode({
    id,
    type: "semantic",
    content: `content of ${id}`,
    createdAt: "2026-03-01T10:00:00.000Z",
    embedding: Float32Array.from([0.25, -0.5, 0.125, 1 / 3]),
    embedModel: "mock-4",
    strength: { recency: 0.75, frequency: 0.5, composite: 0.6 },
    lastAccessed: "2026-03-02T11:00:00.000Z",
    sourceSessions: ["s1", "s/2"],
    sourceRefs: [
      { sessionId: "s1", messageIndex: 3 },
      { sessionId: "s/2", messageIndex: 0 }
    ],
    accessCount: 4,
    canonicalKey: "fact:my city",
    status: "superseded",
    supersedes: ["older"],
    validFrom: "2026-02-01T00:00:00.000Z",
    validTo: "2026-03-03T00:00:00.000Z",
    confidence: 0.8,
    entityType: "GPE",
    aliases: ["NYC", "New York City"],
    mentionedDates: ["2026-02-01T00:00:00.000Z"],
    scope: "/home/me/project",
    ...overrides
  })

/** The node as a store that keeps vectors compact (SQLite, PostgreSQL) gives it back. */
export const compactNode = (n: MemoryNode): MemoryNode => (n.embedding === null ? n : { ...n, embedding: storedVector(n.embedding) })

/** fullNode's embedding [0.25, -0.5, 0.125, 1/3] read back compact: int8 steps of 0.5 / 127. */
export const FULL_NODE_COMPACT_EMBEDDING = [64, -127, 32, 85].map((q) => Math.fround((q * 0.5) / 127))

/** A small node (no embedding) for bulk tests. */
export const plainNode = (id: string, content = `memory ${id}`): MemoryNode =>
  makeNode({ id, type: "episodic", content, createdAt: "2026-03-01T10:00:00.000Z" })
