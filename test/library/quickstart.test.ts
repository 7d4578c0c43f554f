import { describe, expect, it } from "vitest"
import { readmeExample, runExample } from "./readme.js"

// The README's library quick starts, run exactly as shown (with `awhm` resolved to this repo).
describe("README quick starts", () => {
  it("plain TypeScript: the buffer answers at once, the graph answers a later session", async () => {
    const { stdout } = await runExample(readmeExample("plain"), { AWHM_EMBEDDER: "mock" })
    expect(stdout).toBe(
      [
        "[buffer] I prefer Python over JavaScript",
        "new memories: 4",
        "[graph] The API endpoint is https://api.example.com/v2",
        ""
      ].join("\n")
    )
  })

  it("Effect: the correction is current, history keeps the superseded value", async () => {
    const { stdout } = await runExample(readmeExample("effect"))
    expect(stdout).toBe(
      [
        "[ 'active: Actually, my preferred language is Rust' ]",
        "[",
        "  'active: Actually, my preferred language is Rust',",
        "  'superseded: My preferred language is Python'",
        "]",
        ""
      ].join("\n")
    )
  })
})
