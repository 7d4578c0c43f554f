import { Args, Command, Options } from "@effect/cli"
import { positional } from "./argv.js"
import { printable } from "../text/printable.js"
import { Console, Effect } from "effect"
import { storesLayer } from "../layers/Main.js"
import { type DeletionResult, hardDelete } from "../programs/hardDelete.js"
import { dataDirOption, flagMap, jsonOption, output, postgresUrlOption, withConfig } from "./common.js"

const nodeId = Args.text({ name: "NODE_ID" }).pipe(Args.withDescription("The node to delete (ids: `awhm nodes`, `awhm query --json`)"))
const keepSiblings = Options.boolean("keep-siblings").pipe(
  Options.withDescription("Keep the other nodes derived from the same source message (removed by default)")
)

const human = (r: DeletionResult) =>
  [
    `deleted node: ${r.nodeDeleted ? "yes" : "no"}; edges removed: ${r.edgesRemoved}`,
    `sibling nodes removed: ${r.siblingsRemoved.length === 0 ? "none" : r.siblingsRemoved.join(", ")}`,
    `raw-log messages removed: ${r.logEntriesRemoved} (${r.matchStrategy}); buffer entries removed: ${r.bufferEntriesRemoved}`,
    `sessions affected: ${r.affectedSessions.length === 0 ? "none" : r.affectedSessions.map(printable).join(", ")}; snapshots scrubbed: ${r.snapshotsTouched}`,
    `tombstone ${r.tombstoneId}, ledger record ${r.ledgerRecordId}`
  ].join("\n")

/** `awhm delete NODE_ID`: the hard-delete cascade. */
export const deleteCommand = Command.make(
  "delete",
  { nodeId, keepSiblings, dataDir: dataDirOption, postgresUrl: postgresUrlOption, json: jsonOption },
  (args) =>
    withConfig(flagMap(args.dataDir, {}, args.postgresUrl), (config) =>
      positional(args.nodeId).pipe(
        Effect.flatMap((id) => hardDelete(id, args.keepSiblings ? { keepSiblings: true } : {})),
        Effect.tap(({ warnings }) => Effect.forEach(warnings, (w) => Console.error(`awhm: ${w}`), { discard: true })),
        Effect.flatMap(({ result }) => output(args.json, result, () => human(result))),
        Effect.provide(storesLayer(config))
      )
    )
).pipe(
  Command.withDescription(
    "Hard-delete a node: its edges, source messages, sibling nodes, buffer entries, snapshot copies; leaves a salted-hash tombstone"
  )
)
