import type { Neighbourhood, NodeBrief } from "../../../programs/neighbourhood.js"
import { esc, fmtTime } from "../../view/html.js"
import { neighbourhoodSvg } from "../../view/neighbourhood.js"
import { get } from "../api.js"
import { $, badge, pager, ready, view } from "../dom.js"
import { go, href, type Route } from "../route.js"

const LIMIT = 50

export const nodeLink = (n: NodeBrief): string =>
  `<a class="node-link ${esc(n.status)}" href="${href("graph", { id: n.id })}">${esc(n.content)}</a>`

const listPage = async (text: string, offset: number) => {
  const page = await get<{ total: number; items: ReadonlyArray<NodeBrief> }>("nodes", { q: text, offset, limit: LIMIT })
  view().innerHTML = `<h1>Graph</h1>
    <form class="bar" id="node-filter"><input type="search" name="q" value="${esc(text)}" placeholder="find a node by its text, id or key" aria-label="find a node"><button type="submit">Find</button></form>
    <table class="list nodes"><thead><tr><th>Node</th><th>Type</th><th>Status</th><th>Key</th></tr></thead><tbody>${
      page.items
        .map((n) => `<tr><td>${nodeLink(n)}</td><td>${esc(n.entityType ?? n.type)}</td><td>${badge(n.status)}</td><td>${esc(n.canonicalKey ?? "")}</td></tr>`)
        .join("") || '<tr><td colspan="4" class="none">no nodes</td></tr>'
    }</tbody></table>${pager("graph", { q: text }, { offset, limit: LIMIT, total: page.total })}`
  $<HTMLFormElement>("#node-filter")!.addEventListener("submit", (e) => {
    e.preventDefault()
    go(href("graph", { q: new FormData(e.target as HTMLFormElement).get("q") as string }))
  })
}

const nodePage = async (id: string, offset: number) => {
  const hood = await get<Neighbourhood>("node", { id, offset, limit: LIMIT })
  const n = hood.node
  const links = (label: string, nodes: ReadonlyArray<NodeBrief>) =>
    nodes.length === 0 ? "" : `<p><strong>${label}</strong> ${nodes.map(nodeLink).join(", ")}</p>`
  view().innerHTML = `<h1>Graph <small><a href="${href("graph")}">all nodes</a></small></h1>
    <div class="node-card">
      <p class="content">${esc(n.content)}</p>
      <p class="meta">${badge(n.status)} ${badge(n.entityType ?? n.type, "type")} ${n.canonicalKey === null ? "" : `<a class="slot" href="${href("slots", { key: n.canonicalKey, scope: n.scope })}">${esc(n.canonicalKey)}</a>`}</p>
      <dl class="facts">
        <dt>id</dt><dd><code>${esc(n.id)}</code></dd>
        <dt>valid</dt><dd>${fmtTime(n.validFrom)} → ${n.validTo === null ? "open" : fmtTime(n.validTo)}</dd>
        <dt>created</dt><dd>${fmtTime(n.createdAt)}</dd>
        <dt>confidence</dt><dd>${n.confidence.toFixed(2)}</dd>
        <dt>strength</dt><dd>${n.strength.toFixed(3)} (used ${n.accessCount}×, last ${fmtTime(n.lastAccessed)})</dd>
        ${n.scope === null ? "" : `<dt>scope</dt><dd>${esc(n.scope)}</dd>`}
        ${n.aliases.length === 0 ? "" : `<dt>aliases</dt><dd>${n.aliases.map(esc).join(", ")}</dd>`}
        <dt>from</dt><dd>${n.sourceRefs.map((r) => `<a href="${href("sessions", { id: r.sessionId, at: r.messageIndex })}">${esc(r.sessionId)} #${r.messageIndex}</a>`).join(" ") || n.sourceSessions.map((s) => `<a href="${href("sessions", { id: s })}">${esc(s)}</a>`).join(" ") || "—"}</dd>
      </dl>
      ${links("Supersedes", hood.supersedes)}${links("Superseded by", hood.supersededBy)}
      <p><a class="danger-link" href="${href("actions", { delete: n.id })}">Delete this memory…</a></p>
    </div>
    <div class="hood-wrap">${hood.total === 0 ? '<p class="none">No edges.</p>' : neighbourhoodSvg(hood)}</div>
    <table class="list neighbours"><thead><tr><th>Neighbour</th><th>Edge</th><th>Weight</th><th>Status</th></tr></thead><tbody>${hood.neighbours
      .map((nb) => `<tr><td>${nodeLink(nb.node)}</td><td>${esc(nb.edgeType)} ${nb.direction === "out" ? "→" : "←"}</td><td class="num">${nb.weight.toFixed(2)}</td><td>${badge(nb.node.status)}</td></tr>`)
      .join("")}</tbody></table>${pager("graph", { id }, { offset, limit: LIMIT, total: hood.total })}`
}

/** Graph: find a node, then walk its neighbourhood (entities, temporal and association edges). */
export const graphPage = async (route: Route): Promise<void> => {
  const id = route.params.get("id")
  const offset = Number(route.params.get("offset") ?? 0) || 0
  if (id === null) await listPage(route.params.get("q") ?? "", offset)
  else await nodePage(id, offset)
  ready("graph")
}
