import { Effect } from "effect"
import { printable } from "../text/printable.js"
import type { RetrievalResult } from "../domain/Result.js"
import { Retriever, type RetrieveOptions } from "../services/Retriever.js"

/** One ranked answer from the session buffer, the graph and the raw log. */
export const retrieve = Effect.fn("retrieve")(function* (query: string, options: RetrieveOptions = {}) {
  const retriever = yield* Retriever
  return yield* retriever.retrieve(query, options)
})

/** The human form: `1. [source] (score: 0.123) content`, plus `   trace={...}` lines when traced. */
export const formatResults = (results: ReadonlyArray<RetrievalResult>): string =>
  results.length === 0
    ? "No memories found."
    : results
        .flatMap((r, i) => {
          const line = `${i + 1}. [${r.source}] (score: ${r.score.toFixed(3)}) ${printable(r.content)}`
          if (r.trace === undefined) return [line]
          const sorted = Object.fromEntries(Object.entries(r.trace).sort(([a], [b]) => (a < b ? -1 : 1)))
          return [line, `   trace=${JSON.stringify(sorted)}`]
        })
        .join("\n")
