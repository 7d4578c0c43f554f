import { Context, Effect, Layer } from "effect"
import { ConfigFromValues } from "../../src/layers/ConfigLive.js"
import { RawLogLive } from "../../src/layers/RawLogLive.js"
import { RawLogMemory } from "../../src/layers/RawLogMemory.js"
import { makeRawLogPostgres } from "../../src/layers/RawLogPostgres.js"
import { RawLog } from "../../src/services/RawLog.js"
import { scopedTempDir } from "../support/cli.js"
import { freshNamespace, openTestDatabase } from "../support/postgres.js"
import { rawLogContract } from "./contract.js"

/** The RawLog a layer builds, living as long as the test's scope. */
const built = <E>(layer: Layer.Layer<RawLog, E>) => Effect.map(Layer.build(layer), Context.get(RawLog)).pipe(Effect.orDie)

rawLogContract("files", () => Effect.flatMap(scopedTempDir(), (dir) => built(RawLogLive.pipe(Layer.provide(ConfigFromValues(dir))))))
rawLogContract("memory", () => built(RawLogMemory))
rawLogContract("postgres", () => Effect.flatMap(openTestDatabase("awhm_owner", freshNamespace()), makeRawLogPostgres))
