import { Command, Options } from "@effect/cli"
import { Console, Effect, Layer, Option } from "effect"
import type { AwhmConfigShape } from "../domain/Config.js"
import { InvalidInput } from "../domain/errors.js"
import { graphStoreLayer, progressLayer, rawLogLayer } from "../layers/Main.js"
import { SessionBufferLive } from "../layers/SessionBufferLive.js"
import { dataPaths } from "../store/paths.js"
import { createSnapshot, listSnapshots, readSnapshot, restoreSnapshot, setAsideDamagedGraph } from "../programs/snapshot.js"
import { dataDirOption, flagMap, jsonOption, output, withConfig } from "./common.js"

const stores = (config: AwhmConfigShape) => Layer.mergeAll(SessionBufferLive, graphStoreLayer(config), progressLayer(config))
// A restore reads the raw logs: the reference's buffer entries go back to the sessions they came from.
const restoreStores = (config: AwhmConfigShape) => Layer.merge(stores(config), rawLogLayer(config))
const graphFile = (config: AwhmConfigShape) =>
  config.storageBackend === "json" ? dataPaths(config.dataDir).graphJson : dataPaths(config.dataDir).graphSqlite

const create = Command.make("create", { dataDir: dataDirOption, json: jsonOption }, (args) =>
  withConfig(flagMap(args.dataDir), (config) =>
    createSnapshot().pipe(
      Effect.flatMap((s) => output(args.json, { path: s.path }, () => `snapshot created: ${s.path}`)),
      Effect.provide(stores(config))
    )
  )
).pipe(Command.withDescription("Save the graph and every session buffer to a new snapshot file"))

const list = Command.make("list", { dataDir: dataDirOption, json: jsonOption }, (args) =>
  withConfig(flagMap(args.dataDir), () =>
    listSnapshots().pipe(
      Effect.flatMap((snapshots) =>
        output(args.json, { snapshots }, () =>
          snapshots.length === 0 ? "no snapshots" : snapshots.map((s) => `${s.createdAt}  ${s.path}`).join("\n")
        )
      )
    )
  )
).pipe(Command.withDescription("List snapshots, newest first"))

const pathOption = Options.text("path").pipe(Options.withDescription("The snapshot file to restore"), Options.optional)

/**
 * Restores a snapshot. If the current graph file is damaged (the reason one restores), it is moved aside
 * (kept, never deleted) and the restore starts from an empty store; otherwise the current state is
 * snapshotted first so the restore can be undone.
 */
const restore = Command.make("restore", { path: pathOption, dataDir: dataDirOption, json: jsonOption }, (args) =>
  withConfig(flagMap(args.dataDir), (config) =>
    Effect.gen(function* () {
      if (Option.isNone(args.path)) {
        return yield* new InvalidInput({ message: "snapshot restore needs --path FILE (see `awhm snapshot list`)" })
      }
      const file = args.path.value
      const damaged = graphFile(config)
      const result = yield* restoreSnapshot(file).pipe(
        Effect.provide(restoreStores(config)),
        Effect.catchTag("CorruptFile", (e) =>
          e.path !== damaged
            ? Effect.fail(e)
            : Effect.gen(function* () {
                yield* readSnapshot(file) // a bad snapshot must not cost the damaged graph its place
                const aside = yield* setAsideDamagedGraph(damaged)
                yield* Console.error(`awhm: the damaged graph was moved to ${aside}`)
                return yield* restoreSnapshot(file, { backup: false }).pipe(Effect.provide(restoreStores(config)))
              })
        )
      )
      if (result.skippedBufferEntries > 0) {
        yield* Console.error(`awhm: ${result.skippedBufferEntries} buffer entries of the snapshot name no session and match no logged message: not restored`)
      }
      yield* output(args.json, { restored: result.restored, backup: result.backup }, () =>
        `restored ${result.restored}` + (result.backup === null ? "" : `\nthe state before is in ${result.backup} (restore it to undo)`)
      )
    })
  )
).pipe(Command.withDescription("Replace the graph and session buffers with a snapshot's (undoable)"))

/** `awhm snapshot create|list|restore --path FILE`. */
export const snapshotCommand = Command.make("snapshot").pipe(
  Command.withDescription("Snapshots of the memory graph and session buffers"),
  Command.withSubcommands([create, list, restore])
)
