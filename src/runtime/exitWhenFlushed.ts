// A short command's natural exit waits for Node to tear down the whole heap after the last line is written:
// ~40 ms of wall time at a query's 100-120 MB, paid on every `awhm query` and hook. Once the work is done and
// stdout and stderr have handed over what was written, the process ends at once instead.

const flushed = (stream: NodeJS.WriteStream): Promise<void> =>
  stream.writableLength === 0 ? Promise.resolve() : new Promise((resolve) => stream.once("drain", () => resolve()))

/** Exits with `code` (default: `process.exitCode`, else 0) as soon as stdout and stderr are flushed. */
export const exitWhenFlushed = (code?: number): void => {
  const exit = () => process.exit(code ?? (typeof process.exitCode === "number" ? process.exitCode : 0))
  if (process.stdout.writableLength === 0 && process.stderr.writableLength === 0) return exit()
  void Promise.all([flushed(process.stdout), flushed(process.stderr)]).then(exit)
}
