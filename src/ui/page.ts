import { createHash } from "node:crypto"
import { esc } from "./view/html.js"

// The page's script and style are built by scripts/build.mjs (esbuild, from src/ui/client/) into the
// bin itself: the viewer ships as one file and needs no network.
declare const __AWHM_UI_JS__: string | undefined
declare const __AWHM_UI_CSS__: string | undefined

export interface Asset {
  readonly body: string
  readonly contentType: string
  /** A content hash: the page asks for `/app.js?v=<hash>`, so a cached copy is never a stale one. */
  readonly version: string
}

const asset = (body: string, contentType: string): Asset => ({
  body,
  contentType,
  version: createHash("sha256").update(body).digest("hex").slice(0, 12)
})

export const script = asset(typeof __AWHM_UI_JS__ === "string" ? __AWHM_UI_JS__ : "", "text/javascript; charset=utf-8")
export const style = asset(typeof __AWHM_UI_CSS__ === "string" ? __AWHM_UI_CSS__ : "", "text/css; charset=utf-8")

const PAGES = [
  ["slots", "Slots"],
  ["search", "Search"],
  ["graph", "Graph"],
  ["sessions", "Sessions"],
  ["actions", "Actions"],
  ["status", "Status"]
] as const

/** The one HTML page; the script renders every view into `main`. `csrf` is URL-safe base64. */
export const pageHtml = (csrf: string): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="awhm-csrf" content="${csrf}"><title>awhm memory</title><link rel="icon" href="data:,">
<link rel="stylesheet" href="/app.css?v=${style.version}"><script defer src="/app.js?v=${script.version}"></script></head>
<body><header><span class="brand">awhm</span><nav class="pages">${PAGES.map(([id, label]) => `<a data-page="${id}" href="#/${id}">${label}</a>`).join("")}</nav></header>
<main id="view" aria-live="polite"></main></body></html>`

/** What a browser without the secret sees. */
export const deniedHtml = (message: string): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>awhm: not allowed</title></head><body><p>${esc(message)}</p></body></html>`
