import { Effect, Option, type Redacted } from "effect"
import { parseAsOf, validateQuery } from "../domain/input.js"
import { retrievalLayer } from "../layers/Main.js"
import { formatResults, retrieve } from "../programs/retrieve.js"
import { positional } from "./argv.js"
import { flagMap, output, withConfig } from "./commandRun.js"

/** What `awhm query` was given, parsed (by @effect/cli, or by the short path of queryArgv.ts). */
export interface QueryArgs {
  readonly text: string
  readonly k: Option.Option<number>
  readonly includeHistory: boolean
  readonly trace: boolean
  readonly asOf: Option.Option<string>
  readonly session: Option.Option<string>
  readonly lexicalOnly: boolean
  readonly dataDir: Option.Option<string>
  readonly postgresUrl: Option.Option<Redacted.Redacted>
  readonly json: boolean
}

/** `awhm query TEXT`: retrieve memories and print them. No @effect/cli here: the short path runs it alone. */
export const runQuery = (args: QueryArgs) =>
  withConfig(flagMap(args.dataDir, {}, args.postgresUrl), (config) =>
    Effect.gen(function* () {
      const moment = yield* parseAsOf(Option.getOrNull(args.asOf))
      yield* positional(args.text)
      yield* validateQuery(args.text, config.maxMessageChars)
      const results = yield* retrieve(args.text, {
        ...(Option.isSome(args.k) ? { k: args.k.value } : {}),
        includeHistory: args.includeHistory || config.includeHistoryByDefault,
        trace: args.trace || config.traceRetrieval,
        asOf: moment,
        sessionId: Option.getOrNull(args.session),
        lexicalOnly: args.lexicalOnly
      })
      yield* output(args.json, { results }, () => formatResults(results))
    }).pipe(Effect.provide(retrievalLayer(config)))
  )
