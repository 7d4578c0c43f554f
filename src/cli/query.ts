import { Args, Command, Options } from "@effect/cli"
import { Option } from "effect"
import { dataDirOption, jsonOption, postgresUrlOption } from "./common.js"
import { runQuery } from "./queryRun.js"

const text = Args.text({ name: "text" }).pipe(Args.withDescription("What to look for (a question or keywords)"))
const k = Options.integer("k").pipe(
  Options.withDescription("How many results (default: the k parameter, 10)"),
  Options.filterMap((n) => (n >= 1 ? Option.some(n) : Option.none()), "-k must be a whole number >= 1"),
  Options.optional
)
const includeHistory = Options.boolean("include-history").pipe(
  Options.withDescription("Also show superseded and ended memories (ranked below current ones)")
)
const trace = Options.boolean("trace").pipe(Options.withDescription("Show each result's ranking features"))
const asOf = Options.text("as-of").pipe(
  Options.withDescription("Answer with what was true at this moment (ISO date or time)"),
  Options.optional
)
const session = Options.text("session").pipe(
  Options.withDescription("Session whose live buffer is searched first"),
  Options.optional
)
const lexicalOnly = Options.boolean("lexical-only").pipe(
  Options.withDescription("Rank by words only: never loads the embedding model")
)

/** `awhm query TEXT`: retrieve memories. */
export const queryCommand = Command.make(
  "query",
  { text, k, includeHistory, trace, asOf, session, lexicalOnly, dataDir: dataDirOption, postgresUrl: postgresUrlOption, json: jsonOption },
  runQuery
).pipe(Command.withDescription("Retrieve the memories relevant to a question (buffer, graph and raw log)"))
