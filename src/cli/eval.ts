import { Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { InvalidInput } from "../domain/errors.js"
import { runEval } from "../eval/run.js"
import { dataDirOption, flagMap, jsonOption, output } from "./common.js"

const corpusOption = Options.text("corpus").pipe(
  Options.withDescription("Replay this corpus instead of the built-in benchmark"),
  Options.optional
)
const formatOption = Options.choice("format", ["native", "longmemeval", "locomo", "beam"]).pipe(
  Options.withDescription("Corpus format (default native)"),
  Options.optional
)
// The reference's spelling of --format longmemeval, kept for its users' scripts.
const longMemEvalOption = Options.boolean("longmemeval").pipe(Options.withDescription("Same as --format longmemeval"))
const kOption = Options.integer("k").pipe(Options.withDescription("Top-k for the metrics (default 5)"), Options.withDefault(5))
const limitOption = Options.integer("limit").pipe(
  Options.withDescription("Replay only the first N instances (LongMemEval, LoCoMo), chats (BEAM) or questions (native)"),
  Options.optional
)
const noScopeOption = Options.boolean("no-session-scope").pipe(
  Options.withDescription("Replay every session into one shared store instead of one store per instance")
)

const rawLogOption = Options.boolean("raw-log").pipe(
  Options.withDescription("Native/LongMemEval replay: search the raw log too, as a normal query does (the reference's replay did not)")
)

const lexicalOnlyOption = Options.boolean("lexical-only").pipe(
  Options.withDescription("BEAM replay: ask the questions without embeddings (consolidation still uses the embedder)")
)

/** `awhm eval`: the built-in benchmark, or a corpus replay (native, LongMemEval, LoCoMo). */
export const evalCommand = Command.make(
  "eval",
  {
    dataDir: dataDirOption,
    json: jsonOption,
    corpus: corpusOption,
    format: formatOption,
    longmemeval: longMemEvalOption,
    k: kOption,
    limit: limitOption,
    noSessionScope: noScopeOption,
    rawLog: rawLogOption,
    lexicalOnly: lexicalOnlyOption
  },
  (o) =>
    Effect.gen(function* () {
      if (o.k < 1) return yield* new InvalidInput({ message: "-k must be at least 1" })
      const limit = Option.getOrUndefined(o.limit)
      if (limit !== undefined && limit < 1) return yield* new InvalidInput({ message: "--limit must be at least 1" })
      const format = o.longmemeval ? "longmemeval" : Option.getOrElse(o.format, () => "native" as const)
      if (Option.isNone(o.corpus) && (Option.isSome(o.format) || o.longmemeval)) {
        return yield* new InvalidInput({ message: format === "beam" ? "--format beam needs --corpus DIR (a folder of BEAM chats)" : "--format needs --corpus FILE" })
      }
      const outcome = yield* runEval({
        flags: flagMap(o.dataDir),
        corpus: Option.getOrNull(o.corpus),
        format,
        k: o.k,
        ...(limit !== undefined ? { limit } : {}),
        sessionScope: !o.noSessionScope,
        rawLog: o.rawLog,
        lexicalOnly: o.lexicalOnly
      })
      yield* output(o.json, outcome.report, () => outcome.summary)
    })
).pipe(Command.withDescription("Benchmark: the built-in correction set and deletion audit, or a corpus replay"))
