import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { makeNode, type MemoryNode } from "../../src/domain/Node.js"
import { decodeNode, decodeRowNode, nodeToRow, nodeToStored } from "../../src/store/graphSerialization.js"
import { fullNode, plainNode } from "../support/graphFixtures.js"

const viaRow = (n: MemoryNode) => decodeRowNode(JSON.parse(JSON.stringify(nodeToRow(n))), n.embedding)

describe("a node's SQL row", () => {
  it("leaves out the fields at their defaults", () => {
    expect(JSON.stringify(nodeToRow(plainNode("a")))).toBe(
      `{"id":"a","type":"episodic","content":"memory a","created_at":"2026-03-01T10:00:00.000Z"}`
    )
    // Every field of this node differs from its default: nothing is left out.
    expect(nodeToRow(fullNode("n1"))).toEqual(nodeToStored(fullNode("n1"), false))
  })

  it("reads back as the same node, and so does a full row of an older version", () => {
    const nodes = [
      fullNode("n1"),
      plainNode("a"),
      // A window explicitly open (null) is not the default (created_at), nor is a later last access.
      makeNode({ id: "b", type: "semantic", content: "x", createdAt: "2026-03-01T10:00:00.000Z", validFrom: null, lastAccessed: "2026-03-05T10:00:00.000Z" }),
      makeNode({ id: "c", type: "semantic", content: "y", createdAt: "2026-03-01T10:00:00.000Z", accessCount: 1, confidence: 0.6, status: "active", strength: { recency: 1, frequency: 1, composite: 0.5 } })
    ]
    for (const n of nodes) {
      expect(viaRow(n)).toEqual(Either.right(n))
      expect(decodeNode(JSON.parse(JSON.stringify(nodeToStored(n, false))), n.embedding)).toEqual(Either.right(n))
    }
    expect(nodeToRow(nodes[2]!)).toMatchObject({ valid_from: null, last_accessed: "2026-03-05T10:00:00.000Z" })
  })
})
