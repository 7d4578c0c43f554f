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

/** A Claude Code settings file awhm will not touch: not valid JSON, or not shaped as Claude Code's. */
export class SettingsFileError extends Schema.TaggedError<SettingsFileError>()("SettingsFileError", {
  path: Schema.String,
  message: Schema.String
}) {}

/** `awhm export` cannot write where it was told: the folder is not empty (exit 1) or cannot be written (exit 3). */
export class ExportTargetError extends Schema.TaggedError<ExportTargetError>()("ExportTargetError", {
  path: Schema.String,
  reason: Schema.Literal("not_empty", "unwritable"),
  message: Schema.String
}) {}

/** Any error as one line for a person: its message's first line, else its tag, else its text. */
export const errorLine = (error: unknown): string => {
  const text =
    typeof error === "object" && error !== null && "message" in error && typeof error.message === "string" && error.message !== ""
      ? error.message
      : typeof error === "object" && error !== null && "_tag" in error
        ? String(error._tag)
        : String(error)
  return text.split("\n")[0] ?? ""
}

/** The system's or SQLite's error code of an error or of one of its causes. */
export const errorCode = (e: unknown): string | undefined => {
  for (let cur: unknown = e, depth = 0; cur !== null && typeof cur === "object" && depth < 5; depth++) {
    const code = (cur as { code?: unknown }).code
    if (typeof code === "string") return code
    cur = (cur as { cause?: unknown }).cause
  }
  return undefined
}

/** The message of an error's innermost cause (a driver's own words; never a SQL error's `detail`, which may quote a row). */
export const innermostMessage = (e: unknown): string => {
  for (let cur: unknown = e, depth = 0; cur !== null && typeof cur === "object" && depth < 5; depth++) {
    const cause = (cur as { cause?: unknown }).cause
    if (cause === undefined || cause === null) return (cur as { message?: string }).message ?? String(cur)
    cur = cause
  }
  return String(e)
}

/** Codes that mean there is no room left: the disk, or this user's quota, is full. */
const DISK_FULL_CODES: ReadonlySet<string> = new Set(["ENOSPC", "EDQUOT", "SQLITE_FULL"])

const DISK_FULL = "the disk is full: "

/** The one line for a write that failed because the disk is full. */
export const diskFull = (operation: string, file: string): StorageError =>
  new StorageError({ operation, path: file, message: `${DISK_FULL}could not ${operation} ${file}; free some space and try again` })

/** Whether an error (a system or SQLite error, or awhm's own) says there is no room left. */
export const isDiskFull = (e: unknown): boolean => {
  if (e instanceof StorageError) return e.message.startsWith(DISK_FULL)
  const code = errorCode(e)
  return code !== undefined && DISK_FULL_CODES.has(code)
}

/** A failed file operation as a StorageError: what was done, to which file, and the system's error code. */
export const storageFailure = (operation: string, file: string) => (e: unknown): StorageError => {
  const code = errorCode(e)
  if (code !== undefined && DISK_FULL_CODES.has(code)) return diskFull(operation, file)
  const why =
    code === "ELOOP"
      ? "it is a symbolic link, and awhm never follows one inside its data dir"
      : code ?? (e instanceof Error ? e.message : String(e))
  return new StorageError({ operation, path: file, message: `could not ${operation} ${file}: ${why}` })
}
