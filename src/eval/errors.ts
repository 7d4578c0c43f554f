import { Schema } from "effect"

/**
 * A corpus file could not be read or does not have the expected shape. Names the file and the first
 * bad record; the CLI exits 1 (the user can fix the file).
 */
export class CorpusError extends Schema.TaggedError<CorpusError>()("CorpusError", {
  path: Schema.String,
  message: Schema.String
}) {}
