import type { SlotHistory, SlotsPage } from "../../../programs/slots.js"
import { esc, fmtCount, fmtTime } from "../../view/html.js"
import { heldAtMoment, timelineLayout, timelineSvg } from "../../view/timeline.js"
import { get } from "../api.js"
import { $, badge, pager, ready, view } from "../dom.js"
import { go, href, type Route } from "../route.js"

const LIMIT = 50
const HOUR = 3_600_000

const timelineWidth = () => Math.max(480, Math.min(1100, view().clientWidth - 32))

/** Slots: every canonical key with the value that held now (or at the slider's moment), and one key's timeline. */
export const slotsPage = async (route: Route): Promise<void> => {
  const p = route.params
  const text = p.get("q") ?? ""
  const offset = Number(p.get("offset") ?? 0) || 0
  const key = p.get("key")
  const scope = p.get("scope")
  let asOf = p.get("asOf")
  const [first, slot] = await Promise.all([
    get<SlotsPage>("slots", { q: text, asOf, offset, limit: LIMIT }),
    key === null ? Promise.resolve(null) : get<SlotHistory>("slot", { key, scope })
  ])
  const from = Date.parse(first.range.from)
  const to = Date.parse(first.range.to)
  const at = asOf === null ? to : Math.min(Math.max(Date.parse(asOf), from), to)
  view().innerHTML = `
    <h1>Slots <small id="slot-count"></small></h1>
    <form class="bar" id="slot-filter">
      <input type="search" name="q" placeholder="filter by key or value" value="${esc(text)}" aria-label="filter">
      <button type="submit">Filter</button>
    </form>
    <div class="asof">
      <label for="asof">As of <output id="asof-label">${asOf === null ? "now" : fmtTime(new Date(at).toISOString())}</output></label>
      <input type="range" id="asof" min="${from}" max="${to}" step="${HOUR}" value="${at}">
      <button type="button" id="asof-now">Now</button>
    </div>
    <section id="timeline">${slot === null ? '<p class="hint">Pick a key to see its timeline.</p>' : timelineSection(slot, asOf)}</section>
    <div id="slot-list"></div>`
  const state = () => ({ q: text, asOf, offset, key, scope })
  const showList = (page: SlotsPage) => {
    $("#slot-count")!.textContent = `${fmtCount(page.total)} canonical keys`
    $("#slot-list")!.innerHTML = listHtml(page, { q: text, asOf, key, scope }, offset)
  }
  showList(first)

  $<HTMLFormElement>("#slot-filter")!.addEventListener("submit", (e) => {
    e.preventDefault()
    go(href("slots", { ...state(), q: new FormData(e.target as HTMLFormElement).get("q") as string, offset: 0 }))
  })
  const slider = $<HTMLInputElement>("#asof")!
  let pending: ReturnType<typeof setTimeout> | undefined
  let asked = 0
  // The list follows the moment once the thumb rests; the route is replaced, so dragging is one history entry.
  const refresh = () => {
    clearTimeout(pending)
    const mine = ++asked
    history_replace(href("slots", state()))
    void get<SlotsPage>("slots", { q: text, asOf, offset, limit: LIMIT }).then((page) => {
      if (mine !== asked) return
      showList(page)
      ready("slots")
    })
  }
  const setMoment = (value: number) => {
    asOf = value >= to ? null : new Date(value).toISOString()
    $("#asof-label")!.textContent = asOf === null ? "now" : fmtTime(asOf)
    if (slot !== null) $("#timeline")!.innerHTML = timelineSection(slot, asOf)
  }
  slider.addEventListener("input", () => {
    setMoment(Number(slider.value))
    view().dataset.ready = "slots-pending"
    clearTimeout(pending)
    pending = setTimeout(refresh, 200)
  })
  slider.addEventListener("change", refresh)
  $("#asof-now")!.addEventListener("click", () => {
    slider.value = String(to)
    setMoment(to)
    refresh()
  })
  ready("slots")
}

const history_replace = (hash: string) => history.replaceState(null, "", hash)

const listHtml = (
  page: SlotsPage,
  params: { readonly q: string; readonly asOf: string | null; readonly key: string | null; readonly scope: string | null },
  offset: number
): string => {
  const rows = page.items
    .map((s) => {
      const held = s.held
      const link = href("slots", { ...params, offset, key: s.key, scope: s.scope })
      return `<tr class="${s.key === params.key && s.scope === params.scope ? "selected" : ""}">
        <td><a class="slot-key" href="${link}">${esc(s.key)}</a>${s.scope === null ? "" : ` <span class="scope">${esc(s.scope)}</span>`}</td>
        <td class="held">${held === null ? '<span class="none">nothing held</span>' : esc(held.content)}</td>
        <td>${held === null ? "" : badge(held.status)}</td>
        <td class="num">${s.versions}</td>
        <td class="time">${fmtTime(s.lastChange)}</td></tr>`
    })
    .join("")
  return `<table class="list slots"><thead><tr><th>Key</th><th>Value ${params.asOf === null ? "now" : "then"}</th><th>Status</th><th>Versions</th><th>Last change</th></tr></thead>
      <tbody>${rows || '<tr><td colspan="5" class="none">no slots</td></tr>'}</tbody></table>
    ${pager("slots", params, { offset, limit: LIMIT, total: page.total })}`
}

const timelineSection = (slot: SlotHistory, asOf: string | null): string => {
  const from = asOf !== null && asOf < slot.range.from ? asOf : slot.range.from
  const layout = timelineLayout(slot.versions, { width: timelineWidth(), from, to: slot.range.to, asOf })
  const held = slot.versions.filter((v) => heldAtMoment(v, asOf))
  const rows = [...slot.versions]
    .reverse()
    .map(
      (v) => `<tr class="${v.status}${held.includes(v) ? " held" : ""}">
        <td><a href="${href("graph", { id: v.id })}">${esc(v.content)}</a>${v.reasserted ? ' <span class="badge reasserted">re-asserted</span>' : ""}</td>
        <td>${badge(v.status)}</td><td class="time">${fmtTime(v.start)}</td><td class="time">${v.end === null ? "open" : fmtTime(v.end)}</td>
        <td>${v.sourceRefs.map((r) => `<a href="${href("sessions", { id: r.sessionId, at: r.messageIndex })}">${esc(r.sessionId)}#${r.messageIndex}</a>`).join(" ")}</td></tr>`
    )
    .join("")
  return `<h2>${esc(slot.key)}${slot.scope === null ? "" : ` <span class="scope">${esc(slot.scope)}</span>`}</h2>
    <div class="timeline-wrap">${timelineSvg(layout)}</div>
    <p class="legend"><span class="swatch current"></span>current <span class="swatch superseded"></span>superseded <span class="swatch retracted"></span>retracted <span class="swatch reasserted"></span>re-asserted <span class="swatch cursor"></span>as of</p>
    <table class="list versions"><thead><tr><th>Value</th><th>Status</th><th>From</th><th>To</th><th>Said in</th></tr></thead><tbody>${rows}</tbody></table>`
}
