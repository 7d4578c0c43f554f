import { errorBox, view } from "./dom.js"
import { actionsPage } from "./pages/actions.js"
import { graphPage } from "./pages/graph.js"
import { searchPage } from "./pages/search.js"
import { sessionsPage } from "./pages/sessions.js"
import { slotsPage } from "./pages/slots.js"
import { statusPage } from "./pages/status.js"
import { currentRoute, go, href, type Route } from "./route.js"

// The viewer's one script: a hash router over six pages, each asking the server for one page of data.

const PAGES: Record<string, (route: Route) => Promise<void>> = {
  slots: slotsPage,
  search: searchPage,
  graph: graphPage,
  sessions: sessionsPage,
  actions: actionsPage,
  status: statusPage
}

let rendering = 0

const render = async () => {
  const route = currentRoute()
  const page = PAGES[route.page] ?? slotsPage
  const mine = ++rendering
  for (const a of document.querySelectorAll<HTMLAnchorElement>("nav.pages a")) {
    a.classList.toggle("active", a.dataset.page === route.page)
  }
  view().dataset.ready = ""
  try {
    await page(route)
  } catch (e) {
    if (mine !== rendering) return
    view().innerHTML = errorBox((e as Error).message)
    view().dataset.ready = "error"
  }
}

// Timeline bars and neighbourhood nodes are SVG: a click on one walks to that node.
document.addEventListener("click", (e) => {
  const target = (e.target as Element).closest("[data-walk], [data-node]")
  if (target === null) return
  const id = target.getAttribute("data-walk") ?? target.getAttribute("data-node")
  if (id !== null) go(href("graph", { id }))
})

window.addEventListener("hashchange", () => void render())
void render()
