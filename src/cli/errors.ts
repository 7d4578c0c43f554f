/** Exit codes of the CLI contract. */
export const EXIT_FAILURE = 1
export const EXIT_USAGE = 2

const USAGE_TAGS = new Set(["ConfigurationError", "InvalidInput", "ValidationError"])

/** Turns any expected error into one line and an exit code; never a stack trace, never memory content. */
export const describeFailure = (error: unknown): { readonly line: string; readonly code: number } => {
  if (typeof error === "object" && error !== null && "_tag" in error) {
    const tag = String((error as { _tag: unknown })._tag)
    const message = "message" in error && typeof error.message === "string" && error.message !== "" ? error.message : tag
    return { line: `awhm: ${message.split("\n")[0]}`, code: USAGE_TAGS.has(tag) ? EXIT_USAGE : EXIT_FAILURE }
  }
  if (error instanceof Error) return { line: `awhm: ${error.message.split("\n")[0]}`, code: EXIT_FAILURE }
  return { line: `awhm: ${String(error).split("\n")[0]}`, code: EXIT_FAILURE }
}
