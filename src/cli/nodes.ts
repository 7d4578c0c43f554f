import { Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import type { MemoryNode } from "../domain/Node.js"
import { graphStoreLayer } from "../layers/Main.js"
import { listNodes } from "../programs/nodes.js"
import { dataDirOption, flagMap, jsonOption, output, postgresUrlOption, withConfig } from "./common.js"

/** A node as the CLI contract prints it (`awhm nodes --json`). */
export const nodeView = (n: MemoryNode) => ({
  id: n.id,
  type: n.type,
  content: n.content,
  status: n.status,
  canonicalKey: n.canonicalKey,
  supersedes: n.supersedes,
  validFrom: n.validFrom,
  validTo: n.validTo,
  confidence: n.confidence,
  accessCount: n.accessCount,
  sourceSessions: n.sourceSessions,
  sourceRefs: n.sourceRefs,
  entityType: n.entityType,
  aliases: n.aliases,
  createdAt: n.createdAt
})

const status = Options.choice("status", ["active", "superseded", "retracted"]).pipe(
  Options.withDescription("Only nodes with this status"),
  Options.optional
)
const key = Options.text("key").pipe(Options.withDescription("Only nodes with this canonical key, e.g. fact:my city"), Options.optional)
const limit = Options.integer("limit").pipe(
  Options.withDescription("At most this many nodes (oldest first)"),
  Options.filterMap((n) => (n >= 0 ? Option.some(n) : Option.none()), "--limit must be a whole number >= 0"),
  Options.optional
)

const human = (nodes: ReadonlyArray<MemoryNode>) =>
  nodes.length === 0
    ? "no nodes"
    : [
        ...nodes.map((n) => `${n.id}  ${n.status.padEnd(10)} ${n.type.padEnd(10)} ${n.canonicalKey ?? "-"}  ${n.content.replace(/\s+/g, " ")}`),
        `${nodes.length} node${nodes.length === 1 ? "" : "s"}`
      ].join("\n")

/** `awhm nodes`: list graph nodes. */
export const nodesCommand = Command.make("nodes", { status, key, limit, dataDir: dataDirOption, postgresUrl: postgresUrlOption, json: jsonOption }, (args) =>
  withConfig(flagMap(args.dataDir, {}, args.postgresUrl), (config) =>
    listNodes({
      status: Option.getOrNull(args.status),
      key: Option.getOrNull(args.key),
      limit: Option.getOrNull(args.limit)
    }).pipe(
      Effect.flatMap((nodes) => output(args.json, { nodes: nodes.map(nodeView) }, () => human(nodes))),
      Effect.provide(graphStoreLayer(config))
    )
  )
).pipe(Command.withDescription("List memory graph nodes (oldest first), optionally by status or canonical key"))
