import { Args, Command, Options } from "@effect/cli"
import { positional } from "./argv.js"
import { Effect } from "effect"
import { InvalidInput } from "../domain/errors.js"
import { storesLayer } from "../layers/Main.js"
import { exportLite } from "../programs/exportLite.js"
import { dataDirOption, flagMap, jsonOption, output, withConfig } from "./common.js"

const FORMATS = ["awhm-lite"] as const

const format = Options.text("format").pipe(Options.withDescription(`What to write: ${FORMATS.join(", ")} (a data dir AWHM Lite opens)`))
const dir = Args.text({ name: "DIR" }).pipe(Args.withDescription("A new or empty folder to write into"))

/** `awhm export --format awhm-lite DIR`: the memory as a data dir of the reference. */
export const exportCommand = Command.make("export", { format, dir, dataDir: dataDirOption, json: jsonOption }, (args) =>
  withConfig(flagMap(args.dataDir), (config) =>
    Effect.gen(function* () {
      if (!(FORMATS as ReadonlyArray<string>).includes(args.format)) {
        return yield* new InvalidInput({ message: `unknown export format "${args.format}" (known: ${FORMATS.join(", ")})` })
      }
      yield* positional(args.dir)
      const result = yield* exportLite(args.dir).pipe(Effect.provide(storesLayer(config)))
      yield* output(args.json, { dir: result.dir, format: args.format, files: result.files }, () => `exported to ${result.dir} (${args.format}): ${result.files.length} files`)
    })
  )
).pipe(Command.withDescription("Write the memory as a data dir another program opens (--format awhm-lite: AWHM Lite's)"))
