import { describe, expect, it } from "@effect/vitest"
import { makeNode, type MemoryNode } from "../../src/domain/Node.js"
import { EntityIndex, mentionedEntities, normalizeEntity, registerAlias } from "../../src/text/entities.js"

const entity = (id: string, label: string, name: string, extra: Partial<MemoryNode> = {}) =>
  makeNode({ id, type: "semantic", content: `${label}: ${name}`, createdAt: "2026-03-01T10:00:00.000Z", entityType: label, ...extra })

const unit = (values: Array<number>) => {
  const n = Math.hypot(...values)
  return Float32Array.from(values.map((v) => v / n))
}

describe("normalizeEntity", () => {
  it("folds case, possessives, punctuation, corporate suffixes, domains and URLs", () => {
    expect(normalizeEntity("Acme Holdings Ltd")).toBe("acme")
    expect(normalizeEntity("acme.com")).toBe("acme")
    expect(normalizeEntity("https://www.acme-corp.com/about")).toBe("acme corp")
    expect(normalizeEntity("Acme's")).toBe("acme")
    expect(normalizeEntity("John Smith")).toBe("john smith")
    expect(normalizeEntity("  Zentrox Labs, Inc. ")).toBe("zentrox labs")
    // Letters outside ASCII are letters.
    expect(normalizeEntity("Kraków")).toBe("kraków")
    // A suffix alone is a name.
    expect(normalizeEntity("Group")).toBe("group")
  })
})

describe("EntityIndex", () => {
  const acme = entity("acme", "ORG", "Acme Holdings Ltd")
  const index = new EntityIndex([
    acme,
    entity("js", "PERSON", "John Smith"),
    entity("jd", "PERSON", "John Doe"),
    entity("paris", "GPE", "Paris"),
    makeNode({ id: "stmt", type: "semantic", content: "My name is Acme", createdAt: "2026-03-01T10:00:00.000Z" })
  ])

  it("resolves every written form of a name to one node", () => {
    for (const form of ["Acme", "acme.com", "Acme's", "ACME LTD", "Acme Holdings"]) {
      expect(index.resolveByName(form, "ORG")?.nodeId).toBe("acme")
    }
    expect(index.resolveByName("acme.com", "ORG")?.via).toBe("alias")
    // "acme corp" contains the known form "acme" (one more token, same first token).
    expect(index.resolveByName("https://www.acme-corp.com/about", "ORG")).toEqual({ nodeId: "acme", via: "containment" })
  })

  it("containment must be unambiguous, share the first token, and stay within 2 tokens", () => {
    expect(index.resolveByName("John", "PERSON")).toBeNull()
    expect(index.resolveByName("Smith", "PERSON")).toBeNull()
    expect(index.resolveByName("John Smith Junior", "PERSON")).toEqual({ nodeId: "js", via: "containment" })
    expect(index.resolveByName("Paris France Europe Earth", "GPE")).toBeNull()
  })

  it("labels must agree; statements are not entities", () => {
    expect(index.resolveByName("Acme", "PERSON")).toBeNull()
    expect(index.resolveByName("Paris", "PERSON")).toBeNull()
    expect(index.resolveByName("Paris", null)?.nodeId).toBe("paris")
  })

  it("links by embedding only with the same label, above the threshold, and a name at least 0.3 alike", () => {
    const v = unit([1, 0.1, 0])
    const idx = new EntityIndex([
      entity("priya", "PERSON", "Priya Natarajan", { embedding: unit([1, 0, 0]), embedModel: "m" }),
      entity("stripe", "ORG", "Stripe", { embedding: unit([1, 0.1, 0]), embedModel: "m" })
    ])
    expect(idx.resolveByEmbedding("Priya N.", "PERSON", v, "m", 0.85)).toEqual({ nodeId: "priya", via: "embedding" })
    // Same vector, different label: never.
    expect(idx.resolveByEmbedding("Priya N.", "GPE", v, "m", 0.85)).toBeNull()
    // Close vectors but unrelated names (ratio("zq", "priya natarajan") < 0.3): no link.
    expect(idx.resolveByEmbedding("Zq", "PERSON", v, "m", 0.85)).toBeNull()
    // Below the threshold, or vectors of another model: no link.
    expect(idx.resolveByEmbedding("Priya N.", "PERSON", unit([0, 1, 0]), "m", 0.85)).toBeNull()
    expect(idx.resolveByEmbedding("Priya N.", "PERSON", v, "other-model", 0.85)).toBeNull()
  })

  it("sees aliases added later", () => {
    const idx = new EntityIndex([acme])
    const updated = registerAlias(acme, "Roadrunner Supplies")!
    idx.add(updated)
    expect(idx.resolveByName("Roadrunner Supplies", "ORG")?.nodeId).toBe("acme")
  })
})

describe("registerAlias", () => {
  it("adds a new surface form once, never the node's own name", () => {
    const acme = entity("acme", "ORG", "Acme Holdings Ltd")
    const once = registerAlias(acme, " Acme ")!
    expect(once.aliases).toEqual(["Acme"])
    expect(registerAlias(once, "Acme")).toBeNull()
    expect(registerAlias(acme, "Acme Holdings Ltd")).toBeNull()
  })
})

describe("mentionedEntities", () => {
  it("finds entities whose name or alias occurs as a token phrase", () => {
    const pool = [
      entity("acme", "ORG", "Acme Holdings Ltd", { aliases: ["Roadrunner"] }),
      entity("js", "PERSON", "John Smith"),
      entity("al", "PERSON", "Al")
    ]
    expect(mentionedEntities("I work at Acme now", pool)).toEqual(["acme"])
    expect(mentionedEntities("roadrunner shipped it; john smith signed", pool)).toEqual(["acme", "js"])
    // Not a phrase ("John ... Smith"), not a substring of a word, and 2-letter names never match.
    expect(mentionedEntities("John and Smith met at Acmeville with Al", pool)).toEqual([])
  })
})
