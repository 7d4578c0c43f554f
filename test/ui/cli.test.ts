import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { makeTempDir, runAwhm } from "../support/cli.js"
import { startUi } from "../support/uiServer.js"

// `awhm ui` as a process: its arguments, its address, how it stops. The pages are tested in Chromium
// (browser.test.ts).

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port
      s.close(() => resolve(port))
    })
  })

describe("awhm ui", () => {
  it("refuses a port out of range with one line and exit 2", async () => {
    const r = await runAwhm(["ui", "--port", "70000"])
    expect([r.code, r.stdout, r.stderr]).toEqual([2, "", "awhm: --port must be a whole number from 0 to 65535\n"])
  })

  it("says a taken port is taken, with exit 1", async () => {
    const { dir, cleanup } = makeTempDir()
    const taken = net.createServer()
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve))
    const port = (taken.address() as net.AddressInfo).port
    try {
      const r = await runAwhm(["ui", "--port", String(port)], { dataDir: dir })
      expect([r.code, r.stdout, r.stderr]).toEqual([1, "", `awhm: port ${port} on 127.0.0.1 is in use; choose another --port, or leave it out for a free one\n`])
    } finally {
      taken.close()
      cleanup()
    }
  })

  it("listens on the port asked for, prints one JSON value with --json, and exits 0 on SIGTERM and SIGINT", async () => {
    const { dir, cleanup } = makeTempDir()
    try {
      const port = await freePort()
      const ui = await startUi(dir, ["--json", "--port", String(port)])
      expect(ui.port).toBe(port)
      expect(JSON.parse(ui.stdout())).toEqual({ url: `http://127.0.0.1:${port}/?s=${ui.secret}`, port, dataDir: dir })
      expect(ui.secret).toMatch(/^[A-Za-z0-9_-]{32}$/)
      expect(await ui.stop()).toBe(0)
      expect([ui.stdout().trim().split("\n").length, ui.stderr()]).toEqual([1, ""])

      const again = await startUi(dir)
      expect(again.secret).not.toBe(ui.secret)
      expect(again.stdout()).toBe(`awhm ui: serving ${dir}\nopen ${again.url}\n(Ctrl-C stops it)\n`)
      expect(await again.stop("SIGINT")).toBe(0)
    } finally {
      cleanup()
    }
  })

  it("--open hands the printed address to the desktop's opener", async () => {
    const { dir, cleanup } = makeTempDir()
    try {
      const bin = path.join(dir, "bin")
      const opened = path.join(dir, "opened.txt")
      fs.mkdirSync(bin)
      fs.writeFileSync(path.join(bin, "xdg-open"), `#!/bin/sh\nprintf '%s' "$1" > ${JSON.stringify(opened)}\n`, { mode: 0o755 })
      const ui = await startUi(path.join(dir, "data"), ["--open"], { PATH: `${bin}:${process.env.PATH ?? ""}` })
      try {
        for (let i = 0; i < 100 && !fs.existsSync(opened); i++) await new Promise((r) => setTimeout(r, 50))
        expect(fs.readFileSync(opened, "utf8")).toBe(ui.url)
      } finally {
        expect(await ui.stop()).toBe(0)
      }
    } finally {
      cleanup()
    }
  })

  it("reads a JSON-backend data dir through the same programs (Bearer secret for scripts)", async () => {
    const { dir, cleanup } = makeTempDir()
    const env = { AWHM_STORAGE_BACKEND: "json" }
    try {
      for (const [text, at] of [["My name is Alice", "2026-01-05T10:00:00Z"], ["My name is Bob", "2026-02-10T09:00:00Z"]] as const) {
        expect((await runAwhm(["log", "--session", "s1", "--role", "user", "--timestamp", at, text], { dataDir: dir, env })).code).toBe(0)
        expect((await runAwhm(["consolidate"], { dataDir: dir, env })).code).toBe(0)
      }
      const ui = await startUi(dir, [], env)
      try {
        const get = (p: string) => fetch(`${ui.origin}${p}`, { headers: { authorization: `Bearer ${ui.secret}` } }).then((r) => r.json())
        const slots = (await get("/api/slots")) as { items: Array<{ key: string; held: { content: string } | null; versions: number }> }
        expect(slots.items.map((s) => [s.key, s.held?.content, s.versions])).toEqual([["fact:my name", "My name is Bob", 2]])
        const status = (await get("/api/status")) as { storageBackend: string; graphLocation: string }
        expect([status.storageBackend, status.graphLocation]).toEqual(["json", path.join(dir, "graph", "memory_graph.json")])
        expect(await get("/api/node?id=nope")).toEqual({ error: "node nope not found" })
        expect(await get("/api/slots?limit=500")).toEqual({ error: "limit: Expected a number between 0 and 200, actual 500" })
      } finally {
        expect(await ui.stop()).toBe(0)
      }
    } finally {
      cleanup()
    }
  })
})
