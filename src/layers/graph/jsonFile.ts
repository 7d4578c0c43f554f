import { readFileNoFollow } from "../../store/noFollow.js"
import { Effect, Either } from "effect"
import { CorruptFile, StorageError } from "../../domain/errors.js"
import type { Graph } from "../../domain/Node.js"
import { atomicWriteFileSync } from "../../store/atomicWrite.js"
import { corruptGraph } from "./corrupt.js"
import { decodeGraph, encodeJsonGraph } from "../../store/graphSerialization.js"

/** Reads and decodes a reference-format graph file. Missing file: an empty graph. */
export const readJsonGraphFileSync = (file: string, snapshotsDir: string): Graph => {
  let text: string
  try {
    text = readFileNoFollow(file).toString("utf8")
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { nodes: new Map(), edges: [] }
    throw new StorageError({ operation: "read", path: file, message: `cannot read ${file}: ${(e as Error).message}` })
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    // The parser's message quotes the file's text (memory content): say only what is wrong.
    throw corruptGraph(file, text.trim() === "" ? "empty file" : "not valid JSON, maybe truncated", snapshotsDir)
  }
  const decoded = decodeGraph(parsed)
  if (Either.isLeft(decoded)) throw corruptGraph(file, decoded.left, snapshotsDir)
  return decoded.right
}

/** Writes the graph atomically (temp file, fsync, rename). */
export const writeJsonGraphFileSync = (file: string, graph: Graph): void => {
  let text: string
  try {
    text = encodeJsonGraph(graph)
  } catch (e) {
    throw new StorageError({
      operation: "save",
      path: file,
      message: `the graph is too large for one JSON file (${(e as Error).message}); use storage_backend=sqlite`
    })
  }
  try {
    atomicWriteFileSync(file, text)
  } catch (e) {
    throw new StorageError({ operation: "save", path: file, message: `cannot write ${file}: ${(e as Error).message}` })
  }
}

const asStoreError = (file: string) => (e: unknown): StorageError | CorruptFile =>
  e instanceof StorageError || e instanceof CorruptFile
    ? e
    : new StorageError({ operation: "read", path: file, message: `cannot read ${file}: ${String(e)}` })

export const readJsonGraphFile = (file: string, snapshotsDir: string) =>
  Effect.try({ try: () => readJsonGraphFileSync(file, snapshotsDir), catch: asStoreError(file) })
