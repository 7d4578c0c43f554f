// Hash routes: #/page?param=value. The server never sees them, so a reload keeps the view.

export interface Route {
  readonly page: string
  readonly params: URLSearchParams
}

export const currentRoute = (): Route => {
  const hash = location.hash.replace(/^#\/?/, "")
  const q = hash.indexOf("?")
  const page = (q === -1 ? hash : hash.slice(0, q)) || "slots"
  return { page, params: new URLSearchParams(q === -1 ? "" : hash.slice(q + 1)) }
}

/** The hash for a page and its parameters (empty ones left out). */
export const href = (page: string, params: Readonly<Record<string, string | number | boolean | null | undefined>> = {}): string => {
  const qs = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) {
    if (v === null || v === undefined || v === "" || v === false) continue
    qs.set(k, v === true ? "1" : String(v))
  }
  const s = qs.toString()
  return `#/${page}${s === "" ? "" : "?" + s}`
}

/** Goes to a route (a new history entry) or replaces the current one (a slider being dragged). */
export const go = (hash: string, replace = false): void => {
  if (replace) history.replaceState(null, "", hash)
  else location.hash = hash
}
