import { Effect } from "effect"
import { InvalidInput } from "../domain/errors.js"
import type { RetrievalResult } from "../domain/Result.js"
import { parseTimestamp } from "../domain/time.js"
import { Retriever, type RetrieveOptions } from "../services/Retriever.js"

/** Parses a user-supplied --as-of / as_of into canonical UTC ISO (null when absent). */
export const parseAsOf = (input: string | null | undefined): Effect.Effect<string | null, InvalidInput> => {
  if (input === null || input === undefined) return Effect.succeed(null)
  const parsed = parseTimestamp(input)
  return parsed === null
    ? Effect.fail(
        new InvalidInput({ message: `invalid --as-of '${input.slice(0, 64)}': expected an ISO date such as 2026-03-01 or 2026-03-01T10:00:00Z` })
      )
    : Effect.succeed(parsed)
}

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
          const line = `${i + 1}. [${r.source}] (score: ${r.score.toFixed(3)}) ${r.content}`
          if (r.trace === undefined) return [line]
          const sorted = Object.fromEntries(Object.entries(r.trace).sort(([a], [b]) => (a < b ? -1 : 1)))
          return [line, `   trace=${JSON.stringify(sorted)}`]
        })
        .join("\n")
