import { errorLine } from "../domain/errors.js"
import { printable } from "../text/printable.js"

/** Exit codes of the CLI contract. */
export const EXIT_FAILURE = 1
export const EXIT_USAGE = 2
/** A folder the command was told to write into cannot be written (`awhm export`). */
export const EXIT_UNWRITABLE = 3

const USAGE_TAGS = new Set(["ConfigurationError", "InvalidInput", "ValidationError"])

/** Turns any expected error into one line and an exit code; never a stack trace, never memory content. */
export const describeFailure = (error: unknown): { readonly line: string; readonly code: number } => {
  const tag = typeof error === "object" && error !== null && "_tag" in error ? String(error._tag) : null
  const code =
    tag !== null && USAGE_TAGS.has(tag)
      ? EXIT_USAGE
      : tag === "ExportTargetError" && (error as { reason?: unknown }).reason === "unwritable"
        ? EXIT_UNWRITABLE
        : EXIT_FAILURE
  return { line: `awhm: ${printable(errorLine(error))}`, code }
}
