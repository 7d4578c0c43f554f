import type { SlotVersion } from "../../programs/slots.js"
import { clip, esc, fmtDate, fmtTime } from "./html.js"

// A slot's history as an SVG: one row per value, one bar per validity window. Superseded and retracted
// windows are grey, the current one coloured, a value said again after another (a re-assertion) gets a
// second bar on its row with a marker, and the as-of cursor shows what held at that moment.

export const TIMELINE = { labelWidth: 220, pad: 16, rowHeight: 28, barHeight: 16, top: 8, axis: 28, minBar: 3 } as const

export interface TimelineBar {
  readonly id: string
  readonly row: number
  readonly x: number
  readonly width: number
  readonly classes: ReadonlyArray<string>
  readonly title: string
}

export interface TimelineLayout {
  readonly width: number
  readonly height: number
  readonly rows: ReadonlyArray<string>
  readonly bars: ReadonlyArray<TimelineBar>
  readonly ticks: ReadonlyArray<{ readonly x: number; readonly label: string }>
  /** The as-of cursor's x, or null without one. */
  readonly cursor: number | null
}

const ms = (iso: string) => Date.parse(iso)
const round = (n: number) => Math.round(n * 10) / 10

/** Whether a version held at `asOf` (half-open window), or is current when no moment is given. */
export const heldAtMoment = (v: SlotVersion, asOf: string | null): boolean =>
  asOf === null ? v.current : v.start <= asOf && (v.end === null || asOf < v.end)

/** Where everything goes, in pixels (the SVG below draws exactly this). */
export const timelineLayout = (
  versions: ReadonlyArray<SlotVersion>,
  options: { readonly width: number; readonly from: string; readonly to: string; readonly asOf: string | null }
): TimelineLayout => {
  const { labelWidth, pad, rowHeight, top, axis, minBar } = TIMELINE
  const from = ms(options.from)
  const to = Math.max(ms(options.to), from + 1)
  const span = options.width - labelWidth - pad
  const x = (t: number) => round(labelWidth + (Math.min(Math.max(t, from), to) - from) / (to - from) * span)
  const rows: Array<string> = []
  const rowOf = new Map<string, number>()
  const bars = versions.map((v) => {
    let row = rowOf.get(v.value)
    if (row === undefined) {
      row = rows.length
      rowOf.set(v.value, row)
      rows.push(v.content)
    } else rows[row] = v.content // the row is labelled with the latest wording
    const x0 = x(ms(v.start))
    const x1 = v.end === null ? x(to) : x(ms(v.end))
    const classes = ["bar", v.status]
    if (v.current) classes.push("current")
    if (v.reasserted) classes.push("reasserted")
    if (heldAtMoment(v, options.asOf)) classes.push("held")
    const window = `${fmtTime(v.start)} → ${v.end === null ? "open" : fmtTime(v.end)}`
    return {
      id: v.id,
      row,
      x: x0,
      width: round(Math.max(minBar, x1 - x0)),
      classes,
      title: `${v.content} (${v.status}${v.reasserted ? ", re-asserted" : ""}) ${window}`
    } satisfies TimelineBar
  })
  const ticks = [0, 1, 2, 3, 4].map((i) => {
    const t = from + ((to - from) * i) / 4
    return { x: x(t), label: fmtDate(new Date(t).toISOString()) }
  })
  const cursor = options.asOf === null ? null : x(ms(options.asOf))
  return { width: options.width, height: top + rows.length * rowHeight + axis, rows, bars, ticks, cursor }
}

/** The SVG markup of a slot's timeline. */
export const timelineSvg = (layout: TimelineLayout): string => {
  const { labelWidth, rowHeight, barHeight, top } = TIMELINE
  const axisY = top + layout.rows.length * rowHeight
  const rowY = (row: number) => top + row * rowHeight
  const parts: Array<string> = [
    `<svg class="timeline" xmlns="http://www.w3.org/2000/svg" width="${layout.width}" height="${layout.height}" viewBox="0 0 ${layout.width} ${layout.height}" role="img" aria-label="timeline of the slot's values">`
  ]
  layout.rows.forEach((label, row) => {
    const y = rowY(row)
    parts.push(`<text class="row-label" x="4" y="${y + barHeight - 3}">${esc(clip(label, 30))}</text>`)
    parts.push(`<line class="row-line" x1="${labelWidth}" x2="${layout.width}" y1="${y + barHeight / 2}" y2="${y + barHeight / 2}"/>`)
  })
  layout.ticks.forEach((t, i) => {
    // The end labels stay inside the picture.
    const anchor = i === 0 ? "start" : i === layout.ticks.length - 1 ? "end" : "middle"
    parts.push(`<line class="tick" x1="${t.x}" x2="${t.x}" y1="${top}" y2="${axisY + 4}"/>`)
    parts.push(`<text class="tick-label" x="${t.x}" y="${axisY + 18}" text-anchor="${anchor}">${esc(t.label)}</text>`)
  })
  for (const b of layout.bars) {
    const y = rowY(b.row)
    parts.push(
      `<rect class="${b.classes.join(" ")}" data-node="${esc(b.id)}" x="${b.x}" y="${y}" width="${b.width}" height="${barHeight}" rx="3"><title>${esc(b.title)}</title></rect>`
    )
    if (b.classes.includes("reasserted")) {
      parts.push(`<circle class="reassert-mark" cx="${b.x}" cy="${y + barHeight / 2}" r="5"><title>re-asserted</title></circle>`)
    }
  }
  if (layout.cursor !== null) {
    parts.push(`<line class="cursor" x1="${layout.cursor}" x2="${layout.cursor}" y1="0" y2="${axisY}"/>`)
  }
  parts.push("</svg>")
  return parts.join("")
}
