import type { Neighbourhood } from "../../programs/neighbourhood.js"
import { clip, esc } from "./html.js"

// A node's neighbourhood as a radial SVG: the node in the middle, its heaviest neighbours around it, one
// line per edge coloured by its type. Clicking a neighbour walks there (the page handles `data-walk`).

export const NEIGHBOURHOOD = { size: 520, radius: 190, maxShown: 24 } as const

const kind = (n: { readonly entityType: string | null; readonly canonicalKey: string | null; readonly type: string }) =>
  n.entityType !== null ? "entity" : n.canonicalKey !== null ? "slot" : n.type

/** The SVG markup of the neighbourhood's first `maxShown` neighbours. */
export const neighbourhoodSvg = (hood: Neighbourhood): string => {
  const { size, radius, maxShown } = NEIGHBOURHOOD
  const c = size / 2
  const shown = hood.neighbours.slice(0, maxShown)
  const parts: Array<string> = [
    `<svg class="hood" xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 ${size} ${size}" role="img" aria-label="the node's neighbourhood">`
  ]
  const points = shown.map((_, i) => {
    const a = (2 * Math.PI * i) / Math.max(shown.length, 1) - Math.PI / 2
    return { x: Math.round(c + radius * Math.cos(a)), y: Math.round(c + radius * Math.sin(a)) }
  })
  shown.forEach((nb, i) => {
    const p = points[i]!
    parts.push(
      `<line class="edge ${esc(nb.edgeType)}" x1="${c}" y1="${c}" x2="${p.x}" y2="${p.y}" stroke-width="${(1 + Math.min(nb.weight, 1) * 2).toFixed(1)}"><title>${esc(nb.edgeType)} (weight ${nb.weight.toFixed(2)})</title></line>`
    )
  })
  shown.forEach((nb, i) => {
    const p = points[i]!
    const anchor = p.x < c - 10 ? "end" : p.x > c + 10 ? "start" : "middle"
    const dx = anchor === "end" ? -12 : anchor === "start" ? 12 : 0
    const dy = anchor === "middle" ? (p.y < c ? -14 : 22) : 4
    parts.push(
      `<g class="nb ${kind(nb.node)} ${esc(nb.node.status)}" data-walk="${esc(nb.node.id)}" tabindex="0"><circle cx="${p.x}" cy="${p.y}" r="9"/><text x="${p.x + dx}" y="${p.y + dy}" text-anchor="${anchor}">${esc(clip(nb.node.content, 24))}</text><title>${esc(nb.node.content)}</title></g>`
    )
  })
  parts.push(
    `<g class="center ${kind(hood.node)} ${esc(hood.node.status)}"><circle cx="${c}" cy="${c}" r="14"/><text x="${c}" y="${c + 34}" text-anchor="middle">${esc(clip(hood.node.content, 40))}</text></g>`
  )
  parts.push("</svg>")
  return parts.join("")
}
