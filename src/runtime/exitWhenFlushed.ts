// A short command's natural exit waits, after its last line, for Node to tear down the whole heap (a query's
// 100-120 MB). Once the work is done and stdout and stderr have handed over what was written, the process
// ends at once instead, with the exit code the command set.

const flushed = (stream: NodeJS.WriteStream): Promise<void> =>
  stream.writableLength === 0 ? Promise.resolve() : new Promise((resolve) => stream.once("drain", () => resolve()))

/** Exits with `process.exitCode` (0 when unset) as soon as stdout and stderr are flushed. */
export const exitWhenFlushed = (): void => {
  void Promise.all([flushed(process.stdout), flushed(process.stderr)]).then(() =>
    process.exit(typeof process.exitCode === "number" ? process.exitCode : 0)
  )
}
