import { Schema } from "effect"

/** Bad configuration or arguments: the CLI exits 2. */
export class ConfigurationError extends Schema.TaggedError<ConfigurationError>()("ConfigurationError", {
  message: Schema.String
}) {}

/** Bad user input (an unknown node id, a malformed timestamp): the CLI exits 1 or 2 as the contract says. */
export class InvalidInput extends Schema.TaggedError<InvalidInput>()("InvalidInput", {
  message: Schema.String
}) {}

/** A file under the data directory could not be read or written. Never carries memory content. */
export class StorageError extends Schema.TaggedError<StorageError>()("StorageError", {
  operation: Schema.String,
  path: Schema.String,
  message: Schema.String
}) {}

/** A stored file is damaged: names the file and what to do. */
export class CorruptFile extends Schema.TaggedError<CorruptFile>()("CorruptFile", {
  path: Schema.String,
  message: Schema.String
}) {}

/** A node id that is not in the graph. */
export class NodeNotFound extends Schema.TaggedError<NodeNotFound>()("NodeNotFound", {
  nodeId: Schema.String,
  message: Schema.String
}) {}
