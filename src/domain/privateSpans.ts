// `<private>…</private>` marks text the user does not want remembered. It is cut out before a message is
// stored, so it never reaches a file (log, WAL, index, graph) nor Stage 2.

const TAG = /<\s*(\/?)\s*private\s*>/gi

/** Joins the text around a removed span with at most one space, and none before punctuation. */
const join = (left: string, right: string): string => {
  if (left === "" || right === "") return left + right
  const spaced = /[ \t]$/.test(left) || /^[ \t]/.test(right)
  const l = left.replace(/[ \t]+$/, "")
  const r = right.replace(/^[ \t]+/, "")
  return l + (spaced && !/^[.,;:!?)]/.test(r) && !/[\n(]$/.test(l) ? " " : "") + r
}

/**
 * The text without its private spans: everything between `<private>` and the matching `</private>`
 * (case-insensitive, nested spans counted), tags included. An unclosed `<private>` hides the rest of the
 * text; a stray `</private>` is dropped. Text without tags comes back unchanged.
 */
export const withoutPrivate = (text: string): string => {
  if (!/<\s*\/?\s*private\s*>/i.test(text)) return text
  let out = ""
  let depth = 0
  let last = 0
  for (const m of text.matchAll(TAG)) {
    if (depth === 0) out = join(out, text.slice(last, m.index))
    depth = m[1] === "/" ? Math.max(0, depth - 1) : depth + 1
    last = m.index + m[0].length
  }
  if (depth === 0) out = join(out, text.slice(last))
  return out.trim()
}
