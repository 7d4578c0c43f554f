import { describe, expect, it } from "vitest"
import { runAwhm } from "../support/cli.js"

describe("awhm --help", () => {
  it("lists every command of the contract, in plain text when stdout is not a terminal", async () => {
    const r = await runAwhm(["--help"])
    expect(r.code).toBe(0)
    expect(r.stdout).not.toContain("\x1b[")
    const commands = [...new Set([...r.stdout.matchAll(/^ {2}- (\w+)/gm)].map((m) => m[1]))]
    expect(commands).toEqual(["log", "query", "consolidate", "nodes", "status", "delete", "snapshot", "export", "hook", "doctor", "eval", "mcp", "model", "ui", "migrate"])
  })

  it("a missing option is one line on stderr and exit 2", async () => {
    const r = await runAwhm(["log", "--session", "s", "hello"])
    expect(r.code).toBe(2)
    expect(r.stderr).toBe("awhm: Expected to find option: '--role'\n")
    expect(r.stdout).toBe("")
  })
})
