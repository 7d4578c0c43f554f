// A separate process writing to a graph store (built by processes.test.ts with esbuild, run with node).
// Usage: worker <sqlite|json> <dataDir> increment <count> <tag>
//        worker <sqlite|json> <dataDir> churn <nodes>
import { Effect } from "effect"
import { makeNode } from "../../src/domain/Node.js"
import { openGraphStoreFile } from "../../src/layers/graph/openStore.js"

const [backend, dir, mode, countText, tag] = process.argv.slice(2) as [string, string, string, string, string]
const count = Number(countText)
const at = "2026-03-01T10:00:00.000Z"

const open = openGraphStoreFile(backend === "json" ? "json" : "sqlite", dir)

const graphOf = (prefix: string, n: number) => ({
  nodes: new Map(
    Array.from({ length: n }, (_, i) => {
      const node = makeNode({
        id: `${prefix}${i}`,
        type: "semantic",
        content: `${prefix} memory ${i} `.repeat(4),
        createdAt: at,
        embedding: new Float32Array(64).fill(i)
      })
      return [node.id, node] as const
    })
  ),
  edges: []
})

const program = Effect.gen(function* () {
  const store = yield* open
  if (mode === "increment") {
    for (let i = 0; i < count; i++) {
      yield* store.update((graph) => {
        const counter = graph.nodes.get("counter")!
        return Effect.succeed([
          undefined,
          {
            upsertNodes: [
              { ...counter, accessCount: counter.accessCount + 1 },
              makeNode({ id: `${tag}-${i}`, type: "episodic", content: `${tag} ${i}`, createdAt: at })
            ]
          }
        ] as const)
      })
    }
  } else {
    // Alternate between two whole graphs (n and n+1 nodes) until killed.
    for (let k = 0; ; k++) {
      const next = k % 2 === 0 ? graphOf("a", count) : graphOf("b", count + 1)
      process.stdout.write(`saving ${k}\n`)
      yield* store.replaceAll(next)
    }
  }
})

Effect.runPromise(Effect.scoped(program)).then(
  () => process.stdout.write("done\n"),
  (e: unknown) => {
    process.stderr.write(String(e) + "\n")
    process.exitCode = 1
  }
)
