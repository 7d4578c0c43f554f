import { describe, expect, it } from "@effect/vitest"
import { decodeSessionId, encodeSessionId } from "../../src/store/paths.js"

describe("session log file names", () => {
  it("keep [A-Za-z0-9_-] as they are, write every other UTF-8 byte as %XX, and hash very long ids", () => {
    expect(encodeSessionId("scale-42_A")).toBe("scale-42_A")
    expect(encodeSessionId("")).toBe("")
    expect(encodeSessionId("a/b.c")).toBe("a%2Fb%2Ec")
    expect(encodeSessionId("café")).toBe("caf%C3%A9")
    expect(encodeSessionId("x".repeat(180))).toBe("x".repeat(180))
    expect(encodeSessionId("x".repeat(181))).toMatch(/^~[0-9a-f]{64}$/)
    for (const id of ["scale-42_A", "a/b.c", "café", "..", "x".repeat(180)]) expect(decodeSessionId(encodeSessionId(id))).toBe(id)
  })
})
