import * as fs from "node:fs"

// Files inside the data dir are opened without following a symbolic link: a link planted there could
// make awhm read someone else's file as memory, or write memory into someone else's folder.

const NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0

/** Flags to open a file for reading, never through a symbolic link. */
export const READ_NOFOLLOW = fs.constants.O_RDONLY | NOFOLLOW

/** Flags to append to a file (created when missing), never through a symbolic link. */
const APPEND_NOFOLLOW = fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | NOFOLLOW

/** Opens a file for reading, refusing a symbolic link (ELOOP); the caller closes the descriptor. */
export const openNoFollow = (file: string): number => fs.openSync(file, READ_NOFOLLOW)

/** Runs `use` on a file opened for reading, refusing a symbolic link (ELOOP); closes it after. */
export const withFileNoFollow = <A>(file: string, use: (fd: number) => A): A => {
  const fd = openNoFollow(file)
  try {
    return use(fd)
  } finally {
    fs.closeSync(fd)
  }
}

/** Reads a whole file, refusing a symbolic link (ELOOP). */
export const readFileNoFollow = (file: string): Buffer => withFileNoFollow(file, (fd) => fs.readFileSync(fd))

/**
 * Appends all of `data` in one O_APPEND descriptor. When a write fails part-way (a full disk), the file is
 * cut back to its old length: no torn line is left behind. The caller holds the file's lock.
 */
export const appendNoFollow = (file: string, data: Buffer | string): void => {
  const buf = typeof data === "string" ? Buffer.from(data, "utf8") : data
  const fd = fs.openSync(file, APPEND_NOFOLLOW, 0o600)
  try {
    const start = fs.fstatSync(fd).size
    try {
      let off = 0
      while (off < buf.length) off += fs.writeSync(fd, buf, off, buf.length - off)
    } catch (e) {
      try {
        fs.ftruncateSync(fd, start)
      } catch {
        // nothing more can be done; the reader skips a torn last line
      }
      throw e
    }
  } finally {
    fs.closeSync(fd)
  }
}

/** Throws when `file` is a symbolic link (for files opened by a library that follows links, like SQLite). */
export const refuseLink = (file: string): void => {
  let link = false
  try {
    link = fs.lstatSync(file).isSymbolicLink()
  } catch {
    return // missing: created by the caller
  }
  if (link) throw new Error(`refusing to use ${file}: it is a symbolic link, and awhm never follows one inside its data dir`)
}
