// Small string helpers shared by the pages: everything the server sends is data, and every piece of it
// that reaches HTML goes through `esc` (memory content is whatever a user or a tool once wrote).

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }

/** Escapes text for HTML content and attribute values. */
export const esc = (value: unknown): string => String(value ?? "").replace(/[&<>"']/g, (c) => ENTITIES[c]!)

/** "2026-03-15 09:00" (UTC) from a canonical ISO timestamp; "—" for null. */
export const fmtTime = (iso: string | null | undefined): string =>
  iso === null || iso === undefined ? "—" : iso.slice(0, 16).replace("T", " ")

/** "2026-03-15" from a canonical ISO timestamp. */
export const fmtDate = (iso: string): string => iso.slice(0, 10)

/** A number with thousands separators (1,234). */
export const fmtCount = (n: number): string => n.toLocaleString("en-US")

/** At most `max` characters, with an ellipsis when cut. */
export const clip = (text: string, max: number): string => (text.length <= max ? text : text.slice(0, max - 1) + "…")

/** A query string from parameters, leaving out empty ones. */
export const query = (params: Readonly<Record<string, string | number | boolean | null | undefined>>): string => {
  const parts: Array<string> = []
  for (const [k, v] of Object.entries(params)) {
    if (v === null || v === undefined || v === "" || v === false) continue
    parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(v === true ? "1" : String(v))}`)
  }
  return parts.length === 0 ? "" : "?" + parts.join("&")
}
