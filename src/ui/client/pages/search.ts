import type { RetrievalResult } from "../../../domain/Result.js"
import { esc, fmtTime } from "../../view/html.js"
import { get } from "../api.js"
import { $, badge, ready, view } from "../dom.js"
import { go, href, type Route } from "../route.js"

const provenance = (r: RetrievalResult) =>
  r.sourceRefs
    .map((s) => `<a class="prov" href="${href("sessions", { id: s.sessionId, at: s.messageIndex })}">${esc(s.sessionId)} #${s.messageIndex}</a>`)
    .join(" ")

const traceHtml = (r: RetrievalResult) =>
  r.trace === undefined
    ? ""
    : `<details class="trace"><summary>trace</summary><dl>${Object.entries(r.trace)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, v]) => `<dt>${esc(k)}</dt><dd>${v.toFixed(3)}</dd>`)
        .join("")}</dl></details>`

const resultHtml = (r: RetrievalResult, i: number) => `<li class="result ${esc(r.source)}">
  <div class="meta"><span class="rank">${i + 1}</span>${badge(r.source, "source " + r.source)}<span class="score">${r.score.toFixed(3)}</span>${r.status === undefined ? "" : badge(r.status)}
  ${r.canonicalKey ? `<a class="slot" href="${href("slots", { key: r.canonicalKey })}">${esc(r.canonicalKey)}</a>` : ""}
  ${r.validFrom || r.validTo ? `<span class="window">${fmtTime(r.validFrom)} → ${r.validTo ? fmtTime(r.validTo) : "open"}</span>` : ""}</div>
  <p class="content">${r.nodeId === undefined ? esc(r.content) : `<a href="${href("graph", { id: r.nodeId })}">${esc(r.content)}</a>`}</p>
  <div class="from">${r.sourceRefs.length === 0 ? "" : "from " + provenance(r)}</div>
  ${traceHtml(r)}</li>`

/** Search: the same options and ranking as `awhm query`, answered by the server. */
export const searchPage = async (route: Route): Promise<void> => {
  const p = route.params
  const q = p.get("q") ?? ""
  const opts = {
    k: p.get("k") ?? "10",
    history: p.get("history") === "1",
    asOf: p.get("asOf") ?? "",
    lexical: p.get("lexical") === "1",
    session: p.get("session") ?? ""
  }
  view().innerHTML = `<h1>Search</h1>
    <form id="search" class="search">
      <input type="search" name="q" value="${esc(q)}" placeholder="a question or keywords" aria-label="query" autofocus>
      <button type="submit">Search</button>
      <fieldset>
        <label>k <input type="number" name="k" min="1" max="100" value="${esc(opts.k)}"></label>
        <label><input type="checkbox" name="history"${opts.history ? " checked" : ""}> include history</label>
        <label>as of <input type="text" name="asOf" value="${esc(opts.asOf)}" placeholder="2026-03-01"></label>
        <label><input type="checkbox" name="lexical"${opts.lexical ? " checked" : ""}> lexical only</label>
        <label>session <input type="text" name="session" value="${esc(opts.session)}" placeholder="its buffer first"></label>
      </fieldset>
    </form>
    <div id="results"></div>`
  $<HTMLFormElement>("#search")!.addEventListener("submit", (e) => {
    e.preventDefault()
    const f = new FormData(e.target as HTMLFormElement)
    go(
      href("search", {
        q: f.get("q") as string,
        k: f.get("k") as string,
        history: f.get("history") === "on",
        asOf: f.get("asOf") as string,
        lexical: f.get("lexical") === "on",
        session: f.get("session") as string
      })
    )
  })
  if (q.trim() !== "") {
    const { results } = await get<{ results: ReadonlyArray<RetrievalResult> }>("search", { q, ...opts })
    $("#results")!.innerHTML =
      results.length === 0 ? '<p class="none">No memories found.</p>' : `<ol class="results">${results.map(resultHtml).join("")}</ol>`
  }
  ready("search")
}
