import { Schema } from "effect"

/** The viewer could not start serving (the port is taken, or not ours to use). */
export class UiServerError extends Schema.TaggedError<UiServerError>()("UiServerError", {
  message: Schema.String
}) {}
