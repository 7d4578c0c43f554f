import type { UiStatus } from "../../status.js"
import { esc, fmtCount } from "../../view/html.js"
import { get } from "../api.js"
import { ready, view } from "../dom.js"

/** Status: what `awhm status` counts, and which embedder, backend and hook server are in use. */
export const statusPage = async (): Promise<void> => {
  const s = await get<UiStatus>("status")
  const row = (k: string, v: string) => `<tr><th>${k}</th><td>${v}</td></tr>`
  view().innerHTML = `<h1>Status</h1><table class="facts status">
    ${row("data dir", `<code>${esc(s.dataDir)}</code>`)}
    ${row("graph", `<span id="st-nodes">${fmtCount(s.nodes)}</span> nodes, ${fmtCount(s.edges)} edges`)}
    ${row("backend", `${esc(s.storageBackend)}${s.graphLocation === null ? "" : ` <code>${esc(s.graphLocation)}</code>`}`)}
    ${row("raw log", `${fmtCount(s.logMessages)} messages in ${fmtCount(s.sessions)} sessions`)}
    ${row("session buffer", `${fmtCount(s.bufferEntries)} entries`)}
    ${row("embedder", `${esc(s.embedder)} <code>${esc(s.embedderModel)}</code>`)}
    ${row("hook server", s.hookServers === 0 ? "not running" : `running (${s.hookServers})`)}
    ${row("awhm", esc(s.version))}</table>`
  ready("status")
}
