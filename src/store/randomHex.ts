import * as fs from "node:fs"

// Random bytes without node:crypto, which the hook client would otherwise load for a 16-byte nonce (~5 ms of
// a prompt the server answers): the system's random device, or Web Crypto where there is none.

/** `bytes` cryptographically random bytes, as lowercase hex. */
export const randomHex = (bytes: number): string => {
  const out = Buffer.alloc(bytes)
  try {
    const fd = fs.openSync("/dev/urandom", "r")
    try {
      let got = 0
      while (got < bytes) got += fs.readSync(fd, out, got, bytes - got, null)
    } finally {
      fs.closeSync(fd)
    }
  } catch {
    globalThis.crypto.getRandomValues(out)
  }
  return out.toString("hex")
}
