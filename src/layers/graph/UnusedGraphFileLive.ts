import * as fs from "node:fs"
import { Effect, Layer } from "effect"
import { StorageError } from "../../domain/errors.js"
import { dataPaths } from "../../store/paths.js"
import { AppConfig } from "../../services/AppConfig.js"
import { UnusedGraphFile } from "../../services/UnusedGraphFile.js"
import { openGraphStoreFile } from "./openStore.js"

/** The data dir's graph file of the other backend than the configured one. */
export const UnusedGraphFileLive = Layer.effect(
  UnusedGraphFile,
  Effect.map(AppConfig, (config) => {
    const paths = dataPaths(config.dataDir)
    const otherBackend = config.storageBackend === "sqlite" ? "json" : "sqlite"
    const file = otherBackend === "json" ? paths.graphJson : paths.graphSqlite
    return UnusedGraphFile.of({
      removeNodes: (matches) =>
        fs.existsSync(file)
          ? Effect.gen(function* () {
              const store = yield* openGraphStoreFile(otherBackend, paths.root)
              yield* store.update((g) => {
                const gone = Array.from(g.nodes.values()).filter(matches).map((n) => n.id)
                return Effect.succeed([undefined, { deleteNodes: gone }] as const)
              })
              yield* store.scrub
            }).pipe(
              Effect.scoped,
              Effect.mapError((e) => new StorageError({ operation: "scrub", path: file, message: `${file}: ${e.message}` }))
            )
          : Effect.void
    })
  })
)

/** No other graph file (a store in memory, or a backend without local files). */
export const UnusedGraphFileNone = Layer.succeed(UnusedGraphFile, UnusedGraphFile.of({ removeNodes: () => Effect.void }))
