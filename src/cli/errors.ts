import { errorLine } from "../domain/errors.js"
import { printable } from "../text/printable.js"

/** Exit codes of the CLI contract. */
export const EXIT_FAILURE = 1
export const EXIT_USAGE = 2

const USAGE_TAGS = new Set(["ConfigurationError", "InvalidInput", "ValidationError"])

/** Turns any expected error into one line and an exit code; never a stack trace, never memory content. */
export const describeFailure = (error: unknown): { readonly line: string; readonly code: number } => {
  const tag = typeof error === "object" && error !== null && "_tag" in error ? String(error._tag) : null
  return { line: `awhm: ${printable(errorLine(error))}`, code: tag !== null && USAGE_TAGS.has(tag) ? EXIT_USAGE : EXIT_FAILURE }
}
