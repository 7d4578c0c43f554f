import { describe, expect, it } from "@effect/vitest"
import type { Candidate } from "../../src/domain/Candidate.js"
import { makeNode, type MemoryNode } from "../../src/domain/Node.js"
import { DEFAULT_STRENGTH_PARAMS } from "../../src/domain/strength.js"
import { planCommit } from "../../src/programs/consolidate/commit.js"

// planCommit over a part of the graph with the whole graph's access-count distribution gives the strengths
// it gives over the whole graph (the 90th percentile moves with what the batch reinforces and creates).

const at = "2026-03-01T10:00:00.000Z"
const candidate = (content: string, sessionId: string): Candidate => ({
  content, type: "semantic", confidence: 0.9, isCorrection: false, keyOverride: null, sessionId, messageIndex: 0,
  sourceRefs: [{ sessionId, messageIndex: 0 }], timestamp: at, validFrom: null, validTo: null, mentionedDates: [],
  entityType: null, origin: "rule"
})

describe("planCommit with an access-count distribution", () => {
  it("gives the strengths and changes of planning over the whole graph", () => {
    // 20 nodes: access counts 1..5 (four each); "name" is restated by a new session (its count moves 3 → 4).
    const nodes: Array<MemoryNode> = Array.from({ length: 20 }, (_, i) =>
      makeNode({ id: `n${i}`, type: "semantic", content: `Fact number ${i} about the garden`, createdAt: at, accessCount: 1 + (i % 5) }))
    nodes[2] = makeNode({ id: "name", type: "semantic", content: "My name is Alice", canonicalKey: "fact:my name", createdAt: at, accessCount: 3 })
    const whole = { nodes: new Map(nodes.map((n) => [n.id, n] as const)), edges: [] }
    const counts = [1, 2, 3, 4, 5].map((count) => ({ count, nodes: 4 }))
    let id = 0
    const settings = () => {
      id = 0
      return {
        dedupThreshold: 0.92, entityLinkThreshold: 0.85, correctionWindow: 3, modelId: null, now: "2026-06-01T00:00:00.000Z",
        newId: () => `new${id++}`, strength: DEFAULT_STRENGTH_PARAMS
      }
    }
    const prepared = [
      { candidate: candidate("My name is Alice", "s9"), vector: null, scope: null },
      { candidate: candidate("I keep bees in the garden", "s9"), vector: null, scope: null }
    ]
    const full = planCommit(whole, prepared, settings())
    const part = planCommit({ nodes: new Map([["name", whole.nodes.get("name")!]]), edges: [] }, prepared, settings(), counts)
    expect(part).toEqual(full)
    expect(full.changes.upsertNodes!.map((n) => [n.id, n.accessCount])).toEqual([["name", 4], ["new0", 1]])
    // Against p90 = 5 (the 21 sorted counts 1×5, 2×4, 3×3, 4×5, 5×4: element floor(0.9 × 21) = 18), not the
    // part's own p90 (4, which would make the restated node's frequency 1).
    expect(full.changes.upsertNodes!.map((n) => n.strength.frequency)).toEqual([0.8, 0.2])
  })
})
