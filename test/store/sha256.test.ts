import { createHash, createHmac } from "node:crypto"
import { describe, expect, it } from "vitest"
import { randomHex } from "../../src/store/randomHex.js"
import { hmacSha256Hex, sha256Hex } from "../../src/store/sha256.js"

// The hook client's handshake hashes without node:crypto: it must give node:crypto's answers exactly.
describe("plain-JavaScript SHA-256 and HMAC-SHA-256", () => {
  const texts = ["", "abc", "a".repeat(55), "a".repeat(56), "a".repeat(63), "a".repeat(64), "a".repeat(65), "é’🙂 ünïcödé", "x".repeat(1000)]

  it("give node:crypto's digests, across padding boundaries and for any UTF-8", () => {
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    for (const t of texts) expect(sha256Hex(t)).toBe(createHash("sha256").update(t).digest("hex"))
    for (let i = 0; i < 200; i++) {
      const t = randomHex(i)
      expect(sha256Hex(t)).toBe(createHash("sha256").update(t).digest("hex"))
    }
  })

  it("give node:crypto's HMACs, for keys shorter and longer than a block", () => {
    const keys = ["", "k", randomHex(32), "k".repeat(64), "k".repeat(65), "ключ", "k".repeat(300)]
    for (const key of keys) {
      for (const t of [...texts, `server\0${randomHex(16)}`]) expect(hmacSha256Hex(key, t)).toBe(createHmac("sha256", key).update(t).digest("hex"))
    }
  })

  it("random hex is as long as asked and differs every time", () => {
    expect(randomHex(16)).toMatch(/^[0-9a-f]{32}$/)
    expect(randomHex(0)).toBe("")
    expect(new Set(Array.from({ length: 100 }, () => randomHex(16))).size).toBe(100)
  })
})
