import { esc, fmtCount } from "../view/html.js"
import { href } from "./route.js"

/** The view's element; pages render into it. */
export const view = (): HTMLElement => document.getElementById("view")!

export const $ = <T extends Element = HTMLElement>(selector: string, root: ParentNode = document): T | null =>
  root.querySelector<T>(selector)

/** "1–50 of 1,234" with previous/next links, for any paged list. */
export const pager = (
  page: string,
  params: Readonly<Record<string, string | number | boolean | null | undefined>>,
  p: { readonly offset: number; readonly limit: number; readonly total: number }
): string => {
  if (p.total === 0) return ""
  const end = Math.min(p.offset + p.limit, p.total)
  const prev = p.offset > 0 ? `<a class="prev" href="${href(page, { ...params, offset: Math.max(0, p.offset - p.limit) })}">← previous</a>` : ""
  const next = end < p.total ? `<a class="next" href="${href(page, { ...params, offset: p.offset + p.limit })}">next →</a>` : ""
  return `<nav class="pager">${prev}<span>${fmtCount(p.offset + 1)}–${fmtCount(end)} of ${fmtCount(p.total)}</span>${next}</nav>`
}

/** A status badge. */
export const badge = (text: string, cls = text): string => `<span class="badge ${esc(cls)}">${esc(text)}</span>`

/** Marks the view as rendered for this page (tests and the first-render timing wait for it). */
export const ready = (page: string): void => {
  const el = view()
  el.dataset.ready = page
  if (!document.body.dataset.rendered) {
    document.body.dataset.rendered = "1"
    performance.mark("awhm:first-render")
  }
}

export const errorBox = (message: string): string => `<p class="error" role="alert">${esc(message)}</p>`
