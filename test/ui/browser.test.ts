import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeTempDir, runAwhm } from "../support/cli.js"
import { launchBrowser, type TestBrowser } from "../support/browser.js"
import { type RunningUi, startUi } from "../support/uiServer.js"

// `awhm ui` as a user meets it: the built bin started as a process on a data dir seeded through the CLI,
// driven in Debian's Chromium. The steps run in order on one data dir (the delete comes last).
// AWHM_UI_SCREENSHOTS=docs/ui keeps the screenshots of each page (otherwise they go to a temp dir).

interface CliNode {
  readonly id: string
  readonly content: string
  readonly canonicalKey: string | null
}

const keepShots = process.env.AWHM_UI_SCREENSHOTS
const shotsDir = keepShots ?? fs.mkdtempSync(path.join(os.tmpdir(), "awhm-ui-shots-"))

let data: { readonly dir: string; readonly cleanup: () => void }
let ui: RunningUi
let browser: TestBrowser
let page: Page

const awhm = async (args: ReadonlyArray<string>) => {
  const r = await runAwhm(args, { dataDir: data.dir })
  if (r.code !== 0) throw new Error(`awhm ${args.join(" ")} exited ${r.code}: ${r.stderr}`)
  return r.stdout
}
const log = (session: string, role: string, timestamp: string, text: string) =>
  awhm(["log", "--session", session, "--role", role, "--timestamp", timestamp, text])
const nodes = async (): Promise<ReadonlyArray<CliNode>> => (JSON.parse(await awhm(["nodes", "--json"])) as { nodes: Array<CliNode> }).nodes
const nodeWith = async (content: string) => {
  const found = (await nodes()).filter((n) => n.content === content)
  if (found.length === 0) throw new Error(`no node holds "${content}"`)
  return found[found.length - 1]!
}

/** Goes to a route of the viewer and waits until that page has rendered its data. */
const open = async (hash: string, ready: string) => {
  await page.goto(`${ui.origin}/${hash}`)
  await page.waitForSelector(`main[data-ready="${ready}"]`)
}
const texts = (selector: string) => page.locator(selector).allInnerTexts()
const shot = (name: string) => page.screenshot({ path: path.join(shotsDir, `${name}.png`), fullPage: true })

beforeAll(async () => {
  data = makeTempDir("awhm-ui-")
  await log("s1", "user", "2026-01-05T10:00:00Z", "My name is Alice")
  await log("s1", "user", "2026-01-05T10:01:00Z", "My favourite editor is vim")
  await awhm(["consolidate"])
  await log("s2", "user", "2026-02-10T09:00:00Z", "My name is Bob")
  await log("s2", "user", "2026-02-10T09:01:00Z", "Actually, my favourite editor is emacs")
  await log("s2", "assistant", "2026-02-10T09:02:00Z", "Noted: emacs from now on.")
  await awhm(["consolidate"])
  await log("s3", "user", "2026-03-15T09:00:00Z", "My name is Alice")
  await log("s3", "user", "2026-03-15T09:05:00Z", "I work at Acme Corp")
  // Markup in a slot's value (no "=": a value with notation in it names no slot, text/canonical.ts).
  await log("s3", "user", "2026-03-15T09:06:00Z", "My favourite snack is <img src onerror>")
  await awhm(["consolidate"])
  ui = await startUi(data.dir)
  browser = await launchBrowser()
  page = await browser.context.newPage()
  page.on("dialog", (d) => void d.dismiss())
}, 180_000)

afterAll(async () => {
  await browser?.close()
  const code = await ui?.stop()
  data?.cleanup()
  if (keepShots === undefined) fs.rmSync(shotsDir, { recursive: true, force: true })
  // Stopping with SIGTERM is the normal way out: exit 0, nothing on stderr.
  expect([code, ui?.stderr()]).toEqual([0, ""])
})

describe("awhm ui in Chromium", () => {
  it("opens at the printed address: the secret becomes a cookie, the URL loses it, Slots lists what it believes now", async () => {
    await page.goto(ui.url)
    await page.waitForSelector('main[data-ready="slots"]')
    expect(page.url()).toBe(`${ui.origin}/`)
    const cookies = await browser.context.cookies(ui.origin)
    expect(cookies.map((c) => [c.name, c.value, c.httpOnly, c.sameSite])).toEqual([[`awhm_ui_${ui.port}`, ui.secret, true, "Strict"]])
    expect(await page.locator("#slot-count").innerText()).toBe("4 canonical keys")
    const rows = await page.locator("table.slots tbody tr").evaluateAll((trs) =>
      trs.map((tr) => Array.from(tr.querySelectorAll("td")).slice(0, 4).map((td) => (td as unknown as { innerText: string }).innerText.trim()))
    )
    expect(rows).toEqual([
      ["fact:my favourite snack", "My favourite snack is <img src onerror>", "active", "1"],
      ["fact:i work at", "I work at Acme Corp", "active", "1"],
      ["fact:my name", "My name is Alice", "active", "3"],
      ["fact:my favourite editor", "Actually, my favourite editor is emacs", "active", "2"]
    ])
    // Memory text is shown as text: the markup in it made no element.
    expect(await page.locator("main img").count()).toBe(0)
  })

  it("draws a slot's timeline: a row per value, superseded windows grey, the re-assertion marked", async () => {
    await page.locator("a.slot-key", { hasText: "fact:my name" }).click()
    await page.waitForSelector("svg.timeline")
    expect(await page.locator("svg.timeline text.row-label").allTextContents()).toEqual(["My name is Alice", "My name is Bob"])
    const bars = await page.locator("svg.timeline rect.bar").evaluateAll((rs) =>
      rs.map((r) => [r.getAttribute("class"), r.querySelector("title")?.textContent?.split(" (")[0]])
    )
    expect(bars).toEqual([
      ["bar superseded", "My name is Alice"],
      ["bar superseded", "My name is Bob"],
      ["bar active current reasserted held", "My name is Alice"]
    ])
    expect(await page.locator("svg.timeline circle.reassert-mark").count()).toBe(1)
    expect(await texts("table.versions tbody tr td:nth-child(3)")).toEqual(["2026-03-15 09:00", "2026-02-10 09:00", "2026-01-05 10:00"])
    expect(await texts("table.versions tbody tr td:nth-child(5)")).toEqual(["s3#0", "s2#0", "s1#0"])
  })

  it("moves the as-of slider: the list and the timeline show what held at that moment", async () => {
    await page.locator("#asof").fill(String(Date.parse("2026-02-20T00:00:00Z")))
    await page.waitForSelector('main[data-ready="slots"] th:has-text("Value then")')
    expect(await page.locator("#asof-label").innerText()).toBe("2026-02-20 00:00")
    const held = await page.locator("table.slots tbody tr").evaluateAll((trs) =>
      trs.map((tr) => Array.from(tr.querySelectorAll("td")).slice(0, 3).map((td) => (td as unknown as { innerText: string }).innerText.trim()))
    )
    expect(held).toEqual([
      ["fact:my favourite snack", "nothing held", ""],
      ["fact:i work at", "nothing held", ""],
      ["fact:my name", "My name is Bob", "superseded"],
      ["fact:my favourite editor", "Actually, my favourite editor is emacs", "active"]
    ])
    expect(await page.locator("svg.timeline line.cursor").count()).toBe(1)
    expect(await page.locator("svg.timeline rect.bar.held title").allTextContents()).toEqual([
      "My name is Bob (superseded) 2026-02-10 09:00 → 2026-03-15 09:00"
    ])
    expect(decodeURIComponent(new URL(page.url()).hash)).toContain("asOf=2026-02-20T00:00:00.000Z")
    await page.locator("#asof").fill(String(Date.parse("2026-01-20T00:00:00Z")))
    await page.locator("#asof-label", { hasText: "2026-01-20 00:00" }).waitFor()
    await page.waitForSelector('main[data-ready="slots"]')
    expect(await page.locator("table.slots tbody tr:nth-child(3) td.held").innerText()).toBe("My name is Alice")
    await shot("slots")
  })

  it("searches as `awhm query` does, with source, score, status, slot, provenance and trace", async () => {
    const cli = JSON.parse(await awhm(["query", "what is my name", "--lexical-only", "--json"])) as {
      results: Array<{ content: string; source: string; status?: string; canonicalKey?: string | null }>
    }
    await open("#/search", "search")
    await page.locator('input[name="q"]').fill("what is my name")
    await page.locator('input[name="lexical"]').check()
    await page.locator("#search button[type=submit]").click()
    await page.waitForSelector('main[data-ready="search"] ol.results')
    expect(await texts("li.result p.content")).toEqual(cli.results.map((r) => r.content))
    expect(await texts("li.result .badge.source")).toEqual(cli.results.map((r) => r.source))
    expect(await texts("li.result:first-child a.slot")).toEqual(["fact:my name"])
    expect(await texts("li.result:first-child .badge.active")).toEqual(["active"])
    expect(await page.locator("li.result:first-child .score").innerText()).toMatch(/^0\.\d{3}$/)
    expect(await texts("li.result:first-child a.prov")).toEqual(["s3 #0"])
    await page.locator("li.result:first-child details.trace summary").click()
    expect(await texts("li.result:first-child details.trace dt")).toEqual(["association", "confidence", "lexicalScore", "semanticSim", "statusBonus", "strength"])
    expect(new URL(page.url()).hash).toBe("#/search?q=what+is+my+name&k=10&lexical=1")

    // The same question as of February: the name then was Bob.
    await open("#/search?q=what+is+my+name&lexical=1&asOf=2026-02-20", "search")
    expect((await texts("li.result p.content"))[0]).toBe("My name is Bob")
    await open("#/search?q=what+is+my+name&asOf=yesterday", "error")
    expect(await page.locator("main .error").innerText()).toBe(
      "invalid as of 'yesterday': expected an ISO date such as 2026-03-01 or 2026-03-01T10:00:00Z"
    )
    await open("#/search?q=what+is+my+name&lexical=1", "search")
    await shot("search")
  })

  it("follows a result's provenance to the session's raw log, with the buffer entries and nodes of each message", async () => {
    await page.locator("li.result:first-child a.prov").click()
    await page.waitForSelector('main[data-ready="sessions"]')
    expect(await texts("li.message .index")).toEqual(["#0", "#1", "#2"])
    expect(await page.locator("li.message.target .content").innerText()).toBe("My name is Alice")
    expect(await texts("li.message.target .buffered")).toEqual(["buffer fact My name is Alice"])
    expect(await texts("li.message.target .produced a")).toEqual(["PERSON: Alice", "My name is Alice"])
    expect(await texts("li.message#msg-2 .content")).toEqual(["My favourite snack is <img src onerror>"])
    await shot("sessions")
  })

  it("walks the graph: a node's neighbourhood, then a click on a neighbour", async () => {
    await page.locator("li.message.target .produced a", { hasText: "My name is Alice" }).click()
    await page.waitForSelector('main[data-ready="graph"] .node-card')
    expect(await page.locator(".node-card .content").innerText()).toBe("My name is Alice")
    expect(await texts("table.neighbours tbody td:first-child")).toEqual(["PERSON: Alice"])
    expect(await texts(".node-card p:has(strong)")).toEqual(["Supersedes My name is Bob"])
    await shot("graph")
    await page.locator("svg.hood g.nb").first().click()
    await page.locator(".node-card .content", { hasText: "PERSON: Alice" }).waitFor()
    expect(await texts("table.neighbours tbody td:first-child")).toEqual(["My name is Alice", "My name is Alice"])
  })

  it("sees another process's writes on refresh, without a restart", async () => {
    await log("s4", "user", "2026-04-01T08:00:00Z", "My favourite colour is green")
    await awhm(["consolidate"])
    await open("#/slots", "slots")
    expect((await texts("table.slots tbody tr:first-child td"))[1]).toBe("My favourite colour is green")
    await open("#/status", "status")
    const status = JSON.parse(await awhm(["status", "--json"])) as { nodes: number; logMessages: number }
    expect(await page.locator("#st-nodes").innerText()).toBe(String(status.nodes))
    expect(await texts("table.status th")).toEqual(["data dir", "graph", "backend", "raw log", "session buffer", "embedder", "hook server", "awhm"])
    expect(await texts("table.status td")).toEqual([
      data.dir,
      `${status.nodes} nodes, ${(JSON.parse(await awhm(["status", "--json"])) as { edges: number }).edges} edges`,
      `sqlite ${path.join(data.dir, "graph", "memory_graph.sqlite")}`,
      `${status.logMessages} messages in 4 sessions`,
      "9 entries",
      "mock mock-hash-384",
      "not running",
      "0.1.0"
    ])
    await shot("status")
  })

  it("consolidates now, from Actions", async () => {
    await log("s5", "user", "2026-04-02T08:00:00Z", "My favourite drink is tea")
    await open("#/actions", "actions")
    await page.locator("#consolidate-now").click()
    await page.waitForSelector("#consolidate-out .done")
    expect(await page.locator("#consolidate-out").innerText()).toBe("Consolidated 1 session(s), 1 new node(s).")
    expect((await nodes()).filter((n) => n.canonicalKey === "fact:my favourite drink").map((n) => n.content)).toEqual(["My favourite drink is tea"])
  })

  it("creates a snapshot and restores it (the state before is kept)", async () => {
    await open("#/actions", "actions")
    await page.locator("#snapshot-create").click()
    await page.waitForSelector("#snapshot-out .done")
    const listed = JSON.parse(await awhm(["snapshot", "list", "--json"])) as { snapshots: Array<{ path: string }> }
    expect(listed.snapshots.length).toBe(1)
    expect(await page.locator("#snapshot-out code").innerText()).toBe(listed.snapshots[0]!.path)
    expect(await texts("table.snapshots td code")).toEqual([listed.snapshots[0]!.path])

    await log("s6", "user", "2026-04-03T08:00:00Z", "My favourite fruit is mango")
    await awhm(["consolidate"])
    expect((await nodes()).some((n) => n.content === "My favourite fruit is mango")).toBe(true)
    await page.locator("button.restore").click()
    await page.locator("#confirm-restore").click()
    await page.waitForSelector("#snapshot-out .done")
    expect((await nodes()).some((n) => n.content === "My favourite fruit is mango")).toBe(false)
    const after = JSON.parse(await awhm(["snapshot", "list", "--json"])) as { snapshots: Array<{ path: string }> }
    expect(after.snapshots.length).toBe(2)
    expect(await page.locator("#snapshot-out").innerText()).toBe(
      `Restored ${listed.snapshots[0]!.path}. The state before is in ${after.snapshots.find((s) => s.path !== listed.snapshots[0]!.path)!.path}.`
    )
  })

  it("refuses requests without the secret (401), without the CSRF token, or from another origin (403)", async () => {
    const bob = await nodeWith("My name is Bob")
    const ask = (options: { method?: string; path: string; headers?: Record<string, string>; body?: string }) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request(`${ui.origin}${options.path}`, { method: options.method ?? "GET", headers: options.headers }, (res) => {
          let body = ""
          res.setEncoding("utf8").on("data", (d: string) => (body += d))
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }))
        })
        req.on("error", reject)
        req.end(options.body)
      })
    const deleteBody = JSON.stringify({ id: bob.id })
    const json = { "content-type": "application/json" }
    expect(await ask({ path: "/" })).toEqual({ status: 401, body: expect.stringContaining("no secret: open the address `awhm ui` printed") })
    expect(await ask({ path: "/api/status" })).toEqual({ status: 401, body: JSON.stringify({ error: "no secret: open the address `awhm ui` printed (it carries this run's secret)" }) })
    expect((await ask({ path: "/?s=not-the-secret" })).status).toBe(401)
    expect((await ask({ method: "POST", path: "/api/delete", headers: json, body: deleteBody })).status).toBe(401)

    const cookie = { cookie: `awhm_ui_${ui.port}=${ui.secret}` }
    const csrf = await page.locator('meta[name="awhm-csrf"]').getAttribute("content")
    expect(await ask({ method: "POST", path: "/api/delete", headers: { ...json, ...cookie, origin: ui.origin }, body: deleteBody })).toEqual({
      status: 403,
      body: JSON.stringify({ error: "missing or wrong CSRF token" })
    })
    expect(
      await ask({ method: "POST", path: "/api/delete", headers: { ...json, ...cookie, "x-awhm-csrf": csrf!, origin: "http://127.0.0.1:9" }, body: deleteBody })
    ).toEqual({ status: 403, body: JSON.stringify({ error: "refused a request from another origin" }) })
    expect((await ask({ path: "/api/status", headers: { ...cookie, "x-awhm-csrf": csrf!, host: `evil.example:${ui.port}` } })).status).toBe(403)

    // A page of another origin on the same machine, in the same browser (which holds the cookie), tries a
    // fetch without CORS (it goes out and is refused; the answer is not even its to see, Cross-Origin-Resource-
    // Policy), a fetch with a token header (its preflight fails, so it never goes out), a read of the status
    // (refused, and unreadable), then a form post (refused).
    const attacker = http.createServer((_, res) => {
      res.setHeader("content-type", "text/html")
      res.end(`<!doctype html><body><form id="f" method="POST" action="${ui.origin}/api/delete" enctype="text/plain"><input name='{"id":"${bob.id}","x":"' value='"}'></form><script>
        const target = ${JSON.stringify(ui.origin)}
        const body = ${JSON.stringify(deleteBody)}
        Promise.allSettled([
          fetch(target + "/api/delete", { method: "POST", mode: "no-cors", credentials: "include", headers: { "content-type": "text/plain" }, body }),
          fetch(target + "/api/delete", { method: "POST", credentials: "include", headers: { "content-type": "application/json", "x-awhm-csrf": "guess" }, body }),
          fetch(target + "/api/status", { credentials: "include" }).then((r) => r.text())
        ]).then((outcomes) => (document.title = outcomes.map((o) => o.status).join(",")))
      </script></body>`)
    })
    await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve))
    const evil = await browser.context.newPage()
    try {
      await evil.goto(`http://127.0.0.1:${(attacker.address() as { port: number }).port}/`)
      await evil.waitForFunction("document.title !== ''")
      expect(await evil.title()).toBe("rejected,rejected,rejected")
      const [formAnswer] = await Promise.all([
        evil.waitForResponse((r) => r.url() === `${ui.origin}/api/delete` && r.request().isNavigationRequest()),
        evil.evaluate("document.getElementById('f').submit()")
      ])
      expect([formAnswer.status(), await formAnswer.text()]).toEqual([403, JSON.stringify({ error: "missing or wrong CSRF token" })])
    } finally {
      await evil.close()
      attacker.closeAllConnections()
      await new Promise((resolve) => attacker.close(resolve))
    }
    expect((await nodes()).map((n) => n.id)).toContain(bob.id)
  })

  it("deletes a node after showing what the cascade removes, with the same program as `awhm delete`", async () => {
    const work = await nodeWith("I work at Acme Corp")
    await open(`#/actions?delete=${work.id}`, "actions-preview")
    expect(await page.locator("#cascade > ul > li").allInnerTexts()).toEqual([
      "the node I work at Acme Corp active",
      "1 other node from the same message or with the same text:\nORG: Acme Corp",
      "1 edge",
      "1 raw-log message (source refs):\ns3 #1 user I work at Acme Corp",
      "1 session-buffer entry:\nfact I work at Acme Corp s3",
      "its copies in 2 snapshots"
    ])
    await shot("actions")
    await page.locator("#confirm-delete").click()
    await page.waitForSelector('main[data-ready="actions-deleted"] #delete-result')
    expect(await page.locator("#delete-result p:first-child").innerText()).toBe(
      "Deleted. 1 edges, 1 sibling nodes, 1 raw-log messages, 1 buffer entries removed; 2 snapshots scrubbed."
    )
    expect((await nodes()).filter((n) => n.content.includes("Acme"))).toEqual([])
    const query = JSON.parse(await awhm(["query", "Acme Corp", "--include-history", "--lexical-only", "--json"])) as { results: Array<{ content: string }> }
    expect(query.results.filter((r) => r.content.includes("Acme"))).toEqual([])
    await open("#/status", "status")
    await open(`#/actions?delete=${work.id}`, "actions-preview")
    expect(await page.locator("#delete-out .error").innerText()).toBe(`node ${work.id} not found`)
  })

  it("left a screenshot of every page", () => {
    for (const name of ["slots", "search", "sessions", "graph", "status", "actions"]) {
      const png = fs.readFileSync(path.join(shotsDir, `${name}.png`))
      expect([name, png.subarray(1, 4).toString("latin1"), png.length > 10_000]).toEqual([name, "PNG", true])
    }
  })
})
