import type { DeletionPreview } from "../../../programs/deletionPreview.js"
import type { ConsolidationReport } from "../../../programs/consolidate.js"
import type { DeletionResult } from "../../../programs/hardDelete.js"
import type { SnapshotInfo } from "../../../store/snapshotFile.js"
import { esc, fmtTime } from "../../view/html.js"
import { get, post } from "../api.js"
import { $, badge, errorBox, ready, view } from "../dom.js"
import { href, type Route } from "../route.js"
import { nodeLink } from "./graph.js"

const previewHtml = (p: DeletionPreview) => `<div class="cascade" id="cascade">
  <h3>Deleting removes, for good:</h3>
  <ul>
    <li>the node ${nodeLink(p.node)} ${badge(p.node.status)}</li>
    <li>${p.siblings.length} other node${p.siblings.length === 1 ? "" : "s"} from the same message or with the same text${p.siblings.length === 0 ? "" : ":<ul>" + p.siblings.map((n) => `<li>${nodeLink(n)}</li>`).join("") + "</ul>"}</li>
    <li>${p.edges} edge${p.edges === 1 ? "" : "s"}</li>
    <li>${p.messages.length} raw-log message${p.messages.length === 1 ? "" : "s"} (${esc(p.matchStrategy.replace("_", " "))})${p.messages.length === 0 ? "" : ":<ul>" + p.messages.map((m) => `<li><a href="${href("sessions", { id: m.sessionId, at: m.index })}">${esc(m.sessionId)} #${m.index}</a> ${badge(m.role, "role")} ${esc(m.content)}</li>`).join("") + "</ul>"}</li>
    <li>${p.bufferEntries.length} session-buffer entr${p.bufferEntries.length === 1 ? "y" : "ies"}${p.bufferEntries.length === 0 ? "" : ":<ul>" + p.bufferEntries.map((b) => `<li>${badge(b.type, "entry")} ${esc(b.content)} <span class="scope">${esc(b.sessionId)}</span></li>`).join("") + "</ul>"}</li>
    <li>its copies in ${p.snapshots} snapshot${p.snapshots === 1 ? "" : "s"}</li>
  </ul>
  <p>A tombstone keeps a salted hash of the text, never the text.</p>
  <button type="button" class="danger" id="confirm-delete">Delete permanently</button> <button type="button" id="cancel-delete">Cancel</button>
</div>`

const resultHtml = (r: DeletionResult, warnings: ReadonlyArray<string>) => `<div class="done" id="delete-result" role="status">
  <p><strong>Deleted.</strong> ${r.edgesRemoved} edges, ${r.siblingsRemoved.length} sibling nodes, ${r.logEntriesRemoved} raw-log messages, ${r.bufferEntriesRemoved} buffer entries removed; ${r.snapshotsTouched} snapshots scrubbed.</p>
  <p>tombstone <code>${esc(r.tombstoneId)}</code></p>${warnings.map((w) => `<p class="warning">${esc(w)}</p>`).join("")}</div>`

const deleteSection = (target: string) => `<section class="action" id="delete">
  <h2>Delete a memory</h2>
  <form class="bar" id="delete-form">
    <input type="text" name="id" value="${esc(target)}" placeholder="node id (from Graph or Search)" aria-label="node id" size="40">
    <label><input type="checkbox" name="keepSiblings"> keep nodes from the same message</label>
    <button type="submit">Show what it removes</button>
  </form><div id="delete-out"></div></section>`

const snapshotRows = (snapshots: ReadonlyArray<SnapshotInfo>) =>
  snapshots.length === 0
    ? '<p class="none">No snapshots.</p>'
    : `<table class="list snapshots"><thead><tr><th>Created</th><th>File</th><th></th></tr></thead><tbody>${snapshots
        .map((s) => `<tr><td class="time">${fmtTime(s.createdAt)}</td><td><code>${esc(s.path)}</code></td><td><button type="button" class="restore" data-path="${esc(s.path)}">Restore…</button></td></tr>`)
        .join("")}</tbody></table>`

const wireDelete = () => {
  const form = $<HTMLFormElement>("#delete-form")!
  const out = $("#delete-out")!
  const options = () => {
    const f = new FormData(form)
    return { id: String(f.get("id") ?? "").trim(), keepSiblings: f.get("keepSiblings") === "on" }
  }
  form.addEventListener("submit", async (e) => {
    e.preventDefault()
    const { id, keepSiblings } = options()
    if (id === "") return
    out.innerHTML = '<p class="hint">Working out the cascade…</p>'
    try {
      const preview = await get<DeletionPreview>("delete-preview", { id, keepSiblings })
      out.innerHTML = previewHtml(preview)
      $("#cancel-delete")!.addEventListener("click", () => (out.innerHTML = ""))
      $("#confirm-delete")!.addEventListener("click", async () => {
        out.innerHTML = '<p class="hint">Deleting…</p>'
        try {
          const { result, warnings } = await post<{ result: DeletionResult; warnings: ReadonlyArray<string> }>("delete", { id, keepSiblings })
          out.innerHTML = resultHtml(result, warnings)
        } catch (err) {
          out.innerHTML = errorBox((err as Error).message)
        }
        view().dataset.ready = "actions-deleted"
      })
    } catch (err) {
      out.innerHTML = errorBox((err as Error).message)
    }
    view().dataset.ready = "actions-preview"
  })
}

const wireSnapshots = () => {
  const out = $("#snapshot-out")!
  $("#snapshot-create")!.addEventListener("click", async () => {
    try {
      const s = await post<{ path: string }>("snapshots", {})
      out.innerHTML = `<p class="done" role="status">Snapshot created: <code>${esc(s.path)}</code></p>`
      await showSnapshots()
    } catch (err) {
      out.innerHTML = errorBox((err as Error).message)
    }
  })
  $("#snapshot-list")!.addEventListener("click", (e) => {
    const button = (e.target as HTMLElement).closest<HTMLButtonElement>("button.restore")
    if (button === null) return
    const file = button.dataset.path!
    out.innerHTML = `<div class="confirm"><p>Replace the graph and the session buffers with <code>${esc(file)}</code>? The current state is snapshotted first, so this can be undone.</p>
      <button type="button" class="danger" id="confirm-restore">Restore</button> <button type="button" id="cancel-restore">Cancel</button></div>`
    $("#cancel-restore")!.addEventListener("click", () => (out.innerHTML = ""))
    $("#confirm-restore")!.addEventListener("click", async () => {
      try {
        const r = await post<{ restored: string; backup: string | null }>("snapshots/restore", { path: file })
        out.innerHTML = `<p class="done" role="status">Restored <code>${esc(r.restored)}</code>.${r.backup === null ? "" : ` The state before is in <code>${esc(r.backup)}</code>.`}</p>`
        await showSnapshots()
      } catch (err) {
        out.innerHTML = errorBox((err as Error).message)
      }
    })
  })
}

const showSnapshots = async () => {
  const { snapshots } = await get<{ snapshots: ReadonlyArray<SnapshotInfo> }>("snapshots")
  $("#snapshot-list")!.innerHTML = snapshotRows(snapshots)
}

const wireConsolidate = () => {
  const out = $("#consolidate-out")!
  $("#consolidate-now")!.addEventListener("click", async () => {
    out.innerHTML = '<p class="hint">Consolidating…</p>'
    try {
      const r = await post<ConsolidationReport>("consolidate", {})
      const ids = Object.keys(r.sessions)
      out.innerHTML = `<p class="done" role="status">${ids.length === 0 ? "No pending sessions to consolidate." : `Consolidated ${ids.length} session(s), ${r.newNodes} new node(s).`}</p>`
    } catch (err) {
      out.innerHTML = errorBox((err as Error).message)
    }
  })
}

/** Actions: hard delete (after showing the cascade), snapshots, consolidation. */
export const actionsPage = async (route: Route): Promise<void> => {
  const target = route.params.get("delete") ?? ""
  view().innerHTML = `<h1>Actions</h1>${deleteSection(target)}
    <section class="action" id="snapshots"><h2>Snapshots</h2>
      <p><button type="button" id="snapshot-create">Create a snapshot</button></p><div id="snapshot-out"></div><div id="snapshot-list"></div></section>
    <section class="action" id="consolidate"><h2>Consolidate</h2>
      <p>Turn the sessions' new messages into long-term memory now (Stage 1).</p>
      <p><button type="button" id="consolidate-now">Consolidate now</button></p><div id="consolidate-out"></div></section>`
  wireDelete()
  wireSnapshots()
  wireConsolidate()
  await showSnapshots()
  if (target !== "") $<HTMLFormElement>("#delete-form")!.requestSubmit()
  else ready("actions")
}
