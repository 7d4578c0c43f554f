import type { SessionLog, SessionSummary } from "../../../programs/sessionView.js"
import { esc, fmtTime } from "../../view/html.js"
import { get } from "../api.js"
import { $, badge, pager, ready, view } from "../dom.js"
import { go, href, type Route } from "../route.js"
import { nodeLink } from "./graph.js"

const LIMIT = 50

const listPage = async (text: string, offset: number) => {
  const page = await get<{ total: number; items: ReadonlyArray<SessionSummary> }>("sessions", { q: text, offset, limit: LIMIT })
  view().innerHTML = `<h1>Sessions</h1>
    <form class="bar" id="session-filter"><input type="search" name="q" value="${esc(text)}" placeholder="session id" aria-label="find a session"><button type="submit">Find</button></form>
    <table class="list sessions"><thead><tr><th>Session</th><th>Last message</th></tr></thead><tbody>${
      page.items.map((s) => `<tr><td><a href="${href("sessions", { id: s.sessionId })}">${esc(s.sessionId)}</a></td><td class="time">${fmtTime(s.updatedAt)}</td></tr>`).join("") ||
      '<tr><td colspan="2" class="none">no sessions</td></tr>'
    }</tbody></table>${pager("sessions", { q: text }, { offset, limit: LIMIT, total: page.total })}`
  $<HTMLFormElement>("#session-filter")!.addEventListener("submit", (e) => {
    e.preventDefault()
    go(href("sessions", { q: new FormData(e.target as HTMLFormElement).get("q") as string }))
  })
}

const logPage = async (id: string, offset: number, at: number | null) => {
  const log = await get<SessionLog>("session", { id, offset, at, limit: LIMIT })
  view().innerHTML = `<h1>Session <code>${esc(id)}</code> <small><a href="${href("sessions")}">all sessions</a></small></h1>
    ${log.total === 0 ? '<p class="none">This session has no raw log.</p>' : ""}
    <ol class="messages">${log.messages
      .map(
        (m) => `<li id="msg-${m.index}" class="message ${esc(m.role)}${m.index === at ? " target" : ""}">
      <div class="meta"><span class="index">#${m.index}</span>${badge(m.role, "role")}<span class="time">${fmtTime(m.timestamp)}</span></div>
      <p class="content">${esc(m.content)}</p>
      ${m.buffer.length === 0 ? "" : `<div class="buffered"><strong>buffer</strong> ${m.buffer.map((b) => `${badge(b.type, "entry")} ${esc(b.content)}`).join("<br>")}</div>`}
      ${m.nodes.length === 0 ? "" : `<div class="produced"><strong>nodes</strong> ${m.nodes.map((n) => `${nodeLink(n)} ${badge(n.status)}`).join("<br>")}</div>`}
    </li>`
      )
      .join("")}</ol>${pager("sessions", { id }, { offset: log.offset, limit: LIMIT, total: log.total })}`
  if (at !== null) document.getElementById(`msg-${at}`)?.scrollIntoView({ block: "center" })
}

/** Sessions: the raw log of a session, with the buffer entries and the nodes each message produced. */
export const sessionsPage = async (route: Route): Promise<void> => {
  const id = route.params.get("id")
  const offset = Number(route.params.get("offset") ?? 0) || 0
  const at = route.params.get("at")
  if (id === null) await listPage(route.params.get("q") ?? "", offset)
  else await logPage(id, offset, at === null || at === "" ? null : Number(at))
  ready("sessions")
}
