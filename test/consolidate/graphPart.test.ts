import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, it, vi } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { Graph } from "../../src/domain/Node.js"
import { loadLocomo, turnContent } from "../../src/eval/locomoReplay.js"
import { makeGraphStoreMemory } from "../../src/layers/GraphStoreMemory.js"
import { makeGraphStorePostgres } from "../../src/layers/GraphStorePostgres.js"
import { makeGraphStoreSqlite } from "../../src/layers/GraphStoreSqlite.js"
import { consolidatePending } from "../../src/programs/consolidate.js"
import { GraphStore, type GraphStoreShape } from "../../src/services/GraphStore.js"
import { tempDir } from "../support/graphFixtures.js"
import { freshNamespace, openTestDatabase } from "../support/postgres.js"
import { say, withStores } from "./support.js"

// Consolidation reads only the part of the graph a batch may touch (programs/consolidate/graphPart.ts), and
// plans exactly what it planned over the whole graph: the same nodes, statuses, windows, aliases, access
// counts and edges, on every backend.

type Open = Effect.Effect<GraphStoreShape, unknown, import("effect").Scope.Scope>

const openSqlite: Open = Effect.flatMap(tempDir("awhm-part-"), (dir) =>
  makeGraphStoreSqlite({ file: path.join(dir, "memory_graph.sqlite"), snapshotsDir: path.join(dir, "snapshots") }))
const openMemory: Open = makeGraphStoreMemory()
const openPostgres: Open = Effect.suspend(() => Effect.flatMap(openTestDatabase("awhm_owner", freshNamespace()), (db) => makeGraphStorePostgres(db)))

/** The store, failing (as a defect) any read of the whole graph. */
const neverWhole = (store: GraphStoreShape): GraphStoreShape => ({
  ...store,
  load: () => Effect.dieMessage("the whole graph was read (load)"),
  update: () => Effect.dieMessage("the whole graph was read (update)")
})

/** The store, handing every batch the whole graph as its part: the plan as it was before parts. */
const wholePart = (store: GraphStoreShape): GraphStoreShape => ({
  ...store,
  updatePart: (f) => store.updatePart((reader) => f({ ...reader, nodesByKeys: () => Effect.map(store.load(), (g) => [...g.nodes.values()]) }))
})

/** Crafted sessions touching every rule the part must serve, then LoCoMo's first conversation (real text). */
const sessions = Effect.gen(function* () {
  const crafted: Array<{ id: string; texts: Array<string> }> = [
    { id: "c1", texts: [
      "My name is Alice and I work at Acme Holdings Ltd.", "I prefer tea in the morning.", "My rent is $1200 a month.",
      "We deploy on Fridays at noon.", "John Smith from acme.com called about the staging server.", "The staging server runs on port 8080.",
      "I use Python for scripting.", "Our repo has 150 commits merged.", "My monthly book budget is $35."
    ] },
    { id: "c2", texts: [
      "My name is Alice.", "Actually, I prefer coffee now.", "My rent is $1350 a month since March.",
      "We deploy at noon on Fridays.", "Johnny said the staging server moved.", "The staging server runs on port 9090.",
      "I met John Doe in Lisbon.", "Acme's new office is in Lisbon."
    ] },
    { id: "c3", texts: [
      "I prefer coffee.", "John called again.", "My rent is $1350 a month.", "I moved to Lisbon in 2020.",
      "Apple trees grow in the garden.", "The staging server runs on port 9090.", "Good news: the repo has now reached 165 commits.",
      "I raised my monthly book budget to $50."
    ] },
    { id: "c4", texts: ["My name is Alice.", "I use Python for my scripting.", "Alice from Acme moved to Lisbon.", "I met Priya Natarajan in Porto."] },
    { id: "c5", texts: ["Natarajan Priya sent me the slides from Porto.", "I prefer tabs"] },
    // The session goes on after it was consolidated: a correction within it replaces any preference.
    { id: "c5", texts: ["Actually, I prefer spaces"] }
  ]
  const [conversation] = yield* loadLocomo("/work/shared/data/locomo/locomo10.json")
  const real = conversation!.sessions.slice(0, 10).map((s) => ({ id: s.id, texts: s.turns.map(turnContent) }))
  return [...crafted, ...real]
})

/** Logs each session and consolidates it (as sessions end), then gives the graph as the store holds it. */
const consolidateAll = (open: Open, wrap: (s: GraphStoreShape) => GraphStoreShape) =>
  Effect.gen(function* () {
    const inner = yield* open
    const all = yield* sessions
    return yield* withStores(
      () =>
        Effect.gen(function* () {
          let minute = 0
          for (const s of all) {
            for (const text of s.texts) yield* say(s.id, text, minute++)
            yield* consolidatePending()
          }
          return yield* inner.load()
        }),
      { graphStore: Layer.succeed(GraphStore, wrap(inner)) }
    )
  })

/** The graph without its random ids (each becomes its place in store order). */
const comparable = (graph: Graph) => {
  const place = new Map([...graph.nodes.keys()].map((id, i) => [id, i] as const))
  const nodes = [...graph.nodes.values()].map(({ id, supersedes, ...rest }) => ({ ...rest, at: place.get(id), supersedes: supersedes.map((s) => place.get(s)) }))
  const edges = graph.edges.map(({ source, target, ...rest }) => ({ ...rest, source: place.get(source), target: place.get(target) }))
  return { nodes, edges }
}

describe("consolidation reads only the part of the graph a batch may touch", () => {
  // One fixed "now" for both runs: creation times and strengths must agree to the bit too.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-06-01T00:00:00.000Z") })
  })
  afterEach(() => {
    vi.useRealTimers()
  })
  for (const [name, open] of [["sqlite", openSqlite], ["memory", openMemory], ["postgres", openPostgres]] as const) {
    it.scopedLive(`${name}: the same graph as planning over the whole graph, without ever reading it whole`, () =>
      Effect.gen(function* () {
        const part = comparable(yield* consolidateAll(open, neverWhole))
        const whole = comparable(yield* consolidateAll(open, wholePart))
        expect(part).toEqual(whole)
        // The scenario exercises what the part must hold (leaving out any of its queries but the statement keys,
        // which the restatements here also reach by slot or vector, changes the result):
        // supersession by attribute and by a correction within its family, restatements by key and by embedding,
        // entities by alias, containment and embedding, association edges. "My name is Alice." and "I prefer
        // coffee." say again what the earlier statements of their slots said: they supersede nothing.
        expect(part.nodes.filter((n) => n.status === "superseded").map((n) => n.content)).toEqual([
          "My rent is $1200 a month.",
          "Our repo has 150 commits merged.",
          "My monthly book budget is $35.",
          "My rent is $1350 a month since March.",
          "I prefer tabs"
        ])
        expect(part.nodes.filter((n) => n.accessCount > 1).map((n) => [n.content, n.accessCount])).toEqual([
          ["PERSON: Alice", 3],
          ["ORG: Acme Holdings Ltd", 3],
          ["I use Python for scripting.", 2],
          ["My name is Alice.", 2],
          ["GPE: Lisbon", 3],
          ["PERSON: Priya Natarajan", 2],
          ["GPE: Porto", 2],
          ["PERSON: Mel", 9],
          ["PERSON: Caroline", 10],
          ["PERSON: Melanie", 10],
          ["ORG: LGBTQ", 6]
        ])
        expect(part.nodes.filter((n) => n.aliases.length > 0).map((n) => [n.content, n.aliases])).toEqual([
          ["ORG: Acme Holdings Ltd", ["Acme"]],
          ["PERSON: Priya Natarajan", ["Natarajan Priya"]]
        ])
        expect(part.edges.filter((e) => e.type === "association").length).toBe(14)
      })
    )
  }
})
