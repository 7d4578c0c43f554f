import { Effect, Layer } from "effect"
import type { AwhmConfigShape } from "../domain/Config.js"
import { makeWarmRecall } from "../hooks/warmRecall.js"
import { configLayer, rawLogLayer, sessionBufferLayer, stage2Layer, storesLayer } from "../layers/Main.js"
import type { AppConfig } from "../services/AppConfig.js"
import type { Embedder } from "../services/Embedder.js"
import type { GraphStore } from "../services/GraphStore.js"
import type { RawLog } from "../services/RawLog.js"
import type { Retriever } from "../services/Retriever.js"
import type { SessionBuffer } from "../services/SessionBuffer.js"
import type { Stage2Client } from "../services/Stage2Client.js"
import type { UnusedGraphFile } from "../services/UnusedGraphFile.js"
import type { DeletionRecords } from "../services/DeletionRecords.js"

/** What a viewer request may use: the services `awhm` commands are built from. */
export type UiServices = AppConfig | GraphStore | Embedder | Retriever | RawLog | SessionBuffer | Stage2Client

/**
 * The viewer's access to the data dir. The graph store, the embedder and the retrieval indexes stay open
 * between requests (the hook server's warm recall: they follow other processes' writes by themselves);
 * the raw log and the session buffers are opened per request, so every page shows what is on disk now.
 * One request at a time: they share the indexes, as the hook server's prompts do.
 */
export const makeUiStores = (config: AwhmConfigShape) =>
  Effect.gen(function* () {
    const recall = makeWarmRecall()
    yield* Effect.addFinalizer(() => recall.release)
    const lock = yield* Effect.makeSemaphore(1)
    const fresh = Layer.mergeAll(rawLogLayer(config), sessionBufferLayer(config), configLayer(config), stage2Layer(config))
    const warn = (line: string) => void process.stderr.write(line + "\n")

    /** Runs a program over the warm graph store, embedder and retriever, and this moment's logs and buffers. */
    const run = <A, E>(program: Effect.Effect<A, E, UiServices>) =>
      lock.withPermits(1)(
        Effect.gen(function* () {
          const warm = yield* recall.context(config)
          const retriever = yield* recall.services.retriever(config, warn)
          return yield* program.pipe(
            Effect.provide(Layer.provideMerge(retriever, Layer.merge(fresh, Layer.succeedContext(warm)))),
            Effect.scoped
          )
        })
      )

    /**
     * Runs a program that scrubs or replaces the stores' files (delete, restore) the way its command
     * does, with nothing of this process holding the graph or logged text meanwhile.
     */
    const exclusive = <A, E>(program: Effect.Effect<A, E, AppConfig | GraphStore | RawLog | SessionBuffer | UnusedGraphFile | DeletionRecords>) =>
      lock.withPermits(1)(
        Effect.zipRight(
          recall.release,
          program.pipe(Effect.provide(Layer.merge(storesLayer(config), configLayer(config))), Effect.scoped)
        )
      )

    return { run, exclusive }
  })

export type UiStores = Effect.Effect.Success<ReturnType<typeof makeUiStores>>
