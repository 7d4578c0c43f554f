import { isDiskFull } from "../domain/errors.js"

/**
 * What a command could not save, besides its answer, because the disk is full (a query's retrieval index,
 * the reinforcement of the memories it returned). Said once, in one line on stderr: when the process exits,
 * or when a long-lived server calls sayUnsaved after a request.
 */
const pending = new Set<string>()
const said = new Set<string>()
let hooked = false

/** One line for a person: nothing is said twice by one process. */
const unsavedLine = (items: ReadonlyArray<string>): string =>
  `awhm: the disk is full: ${items.join(" and ")} ${items.length === 1 ? "was" : "were"} not saved (the answer is complete); free some space`

/** Prints the line for what is pending and not yet said. */
export const sayUnsaved = (write: (line: string) => void = (line) => process.stderr.write(line + "\n")): void => {
  const items = [...pending].filter((i) => !said.has(i))
  pending.clear()
  if (items.length === 0) return
  for (const i of items) said.add(i)
  write(unsavedLine(items))
}

/**
 * Notes that `what` was not saved because of `error`, when that error is a full disk; returns whether it
 * was (the caller reports any other failure itself).
 */
export const noteUnsaved = (what: string, error: unknown): boolean => {
  if (!isDiskFull(error)) return false
  pending.add(what)
  if (!hooked) {
    hooked = true
    // Synchronous, so it is written even by a process that is ending.
    process.once("exit", () => sayUnsaved((line) => process.stderr.write(line + "\n")))
  }
  return true
}
