import * as fs from "node:fs"

/**
 * What stdin holds, read with blocking reads when it is a pipe, a socket or a file (process.stdin would first
 * build a stream around it: a few milliseconds of every hook's start). `done` is false when the rest must be
 * read as a stream: a terminal, or a descriptor its maker set non-blocking (EAGAIN before the end).
 */
const readStdinSync = (): { readonly head: Array<Buffer>; readonly done: boolean } => {
  const head: Array<Buffer> = []
  try {
    const st = fs.fstatSync(0)
    if (!st.isFIFO() && !st.isSocket() && !st.isFile()) return { head, done: false }
    for (;;) {
      const buf = Buffer.allocUnsafe(64 * 1024)
      const n = fs.readSync(0, buf, 0, buf.length, null)
      if (n === 0) return { head, done: true }
      head.push(buf.subarray(0, n))
    }
  } catch (e) {
    // A closed write end reads as the end.
    if ((e as NodeJS.ErrnoException).code === "EOF") return { head, done: true }
    return { head, done: false }
  }
}

/** All of the process's stdin as text (empty when it is a terminal: there is no payload to wait for). */
export const readProcessStdin = async (): Promise<string> => {
  const { head, done } = readStdinSync()
  if (done) return Buffer.concat(head).toString("utf8")
  if (head.length === 0 && process.stdin.isTTY) return ""
  const chunks: Array<Buffer> = [...head]
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString("utf8")
}
