import { Effect } from "effect"
import type { Graph, MemoryNode } from "../../domain/Node.js"
import type { GraphReader } from "../../services/GraphStore.js"
import { isSlot } from "../../text/attributes.js"
import { statementKey } from "../../text/canonical.js"
import { normalizeEntity } from "../../text/entities.js"
import { firstTokenLookup, headLookup, statementKeyLookup } from "../../text/lookupKeys.js"
import { candidateKey, candidateSlots, correctsAcrossFamily, family, type PreparedCandidate } from "./commit.js"

// The part of the graph one batch's plan reads (planCommit), asked of the store under its write lock instead
// of reading the whole graph: every node the plan could look at, in store order, so the plan is the same.
//   restatements       nodes with a candidate's statement key
//   slots              nodes with a candidate's canonical key; the active ones of a correction's family
//   attribute updates  nodes stating a value of a candidate's attribute
//   entity resolution  entities with a form sharing a candidate name's first token (alias, containment)
//   vectors            nodes whose vector scores at least the dedup or entity-link threshold against a candidate's

export interface PartSettings {
  readonly dedupThreshold: number
  readonly entityLinkThreshold: number
  readonly modelId: string | null
  readonly now: string
}

/** Below a threshold by less than this still counts: the store scores its own copy of a vector (int8 with a scale). */
const SCORE_SLACK = 1e-4

/** Every node whose vector scores at least `min` against `vector`: top k, widened while the k-th still does. */
const scoringAtLeast = (reader: GraphReader, vector: Float32Array, modelId: string, min: number, now: string) =>
  Effect.gen(function* () {
    const filter = { asOf: null, includeHistory: true, now, scope: null }
    for (let k = 16; ; k *= 4) {
      const hits = yield* reader.vectorTopK({ vector, modelId, k, filter })
      if (hits === null) return []
      const above = hits.filter((h) => h.score >= min - SCORE_SLACK).map((h) => h.id)
      if (above.length < hits.length || hits.length < k) return above
    }
  })

/** The graph part (no edges: the plan only adds them) and the whole graph's access-count distribution. */
export const graphPart = (reader: GraphReader, prepared: ReadonlyArray<PreparedCandidate>, settings: PartSettings) =>
  Effect.gen(function* () {
    const lookupKeys = new Set<string>()
    const canonicalKeys = new Set<string>()
    const keyFamilies = new Set<string>()
    const near = new Set<string>()
    for (const { candidate: c, vector } of prepared) {
      const withVector = vector !== null && settings.modelId !== null
      if (c.entityType !== null) {
        const norm = normalizeEntity(c.content.slice(c.entityType.length + 2))
        if (norm !== "") lookupKeys.add(firstTokenLookup(norm))
        if (withVector) for (const id of yield* scoringAtLeast(reader, vector, settings.modelId!, settings.entityLinkThreshold, settings.now)) near.add(id)
        continue
      }
      lookupKeys.add(statementKeyLookup(statementKey(c.content)))
      const slots = candidateSlots(c)
      for (const m of slots) if (isSlot(m)) lookupKeys.add(headLookup(m.head))
      const key = candidateKey(c, slots)
      if (key !== null) {
        canonicalKeys.add(key)
        if (correctsAcrossFamily(c, key)) keyFamilies.add(family(key))
      } else if (withVector) {
        for (const id of yield* scoringAtLeast(reader, vector, settings.modelId!, settings.dedupThreshold, settings.now)) near.add(id)
      }
    }
    const nodes = yield* reader.nodesByKeys({
      ids: [...near],
      lookupKeys: [...lookupKeys],
      canonicalKeys: [...canonicalKeys],
      keyFamilies: [...keyFamilies]
    })
    const graph: Graph = { nodes: new Map(nodes.map((n): [string, MemoryNode] => [n.id, n])), edges: [] }
    return { graph, accessCounts: yield* reader.accessCounts }
  })
