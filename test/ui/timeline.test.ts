import { describe, expect, it } from "@effect/vitest"
import { makeNode } from "../../src/domain/Node.js"
import { slotVersions } from "../../src/programs/slots.js"
import { TIMELINE, timelineLayout, timelineSvg } from "../../src/ui/view/timeline.js"

const NOW = "2026-05-01T00:00:00.000Z"
const versions = slotVersions(
  [
    makeNode({ id: "a1", type: "semantic", content: "My name is Alice", createdAt: "2026-01-01T00:00:00.000Z", canonicalKey: "fact:my name", status: "superseded", validTo: "2026-02-01T00:00:00.000Z" }),
    makeNode({ id: "b", type: "semantic", content: "My name is <b>Bob</b>", createdAt: "2026-02-01T00:00:00.000Z", canonicalKey: "fact:my name", status: "superseded", validTo: "2026-03-01T00:00:00.000Z" }),
    makeNode({ id: "a2", type: "semantic", content: "My name is Alice", createdAt: "2026-03-01T00:00:00.000Z", canonicalKey: "fact:my name" })
  ],
  NOW
)
// 120 days from Jan 1 to May 1; 1000 px wide leaves 1000 - 220 - 16 = 764 px for time.
const opts = { width: 1000, from: "2026-01-01T00:00:00.000Z", to: NOW, asOf: null }
const px = (days: number) => Math.round((TIMELINE.labelWidth + (days / 120) * 764) * 10) / 10

describe("slot timeline", () => {
  it("puts one row per value and one bar per validity window, scaled to the span", () => {
    const layout = timelineLayout(versions, opts)
    expect(layout.rows).toEqual(["My name is Alice", "My name is <b>Bob</b>"])
    expect(layout.bars.map((b) => [b.id, b.row, b.x, b.width])).toEqual([
      ["a1", 0, px(0), Math.round((px(31) - px(0)) * 10) / 10],
      ["b", 1, px(31), Math.round((px(59) - px(31)) * 10) / 10],
      ["a2", 0, px(59), Math.round((px(120) - px(59)) * 10) / 10]
    ])
    expect(layout.height).toBe(TIMELINE.top + 2 * TIMELINE.rowHeight + TIMELINE.axis)
    expect(layout.ticks.map((t) => t.label)).toEqual(["2026-01-01", "2026-01-31", "2026-03-02", "2026-04-01", "2026-05-01"])
  })

  it("greys superseded windows, colours the current one and marks the re-assertion", () => {
    const layout = timelineLayout(versions, opts)
    expect(layout.bars.map((b) => b.classes.join(" "))).toEqual([
      "bar superseded",
      "bar superseded",
      "bar active current reasserted held"
    ])
    const svg = timelineSvg(layout)
    expect(svg.match(/<rect /g)?.length).toBe(3)
    expect(svg.match(/class="reassert-mark"/g)?.length).toBe(1)
    expect(svg).not.toContain("cursor")
  })

  it("draws the as-of cursor and holds the window that contains the moment", () => {
    const layout = timelineLayout(versions, { ...opts, asOf: "2026-02-15T00:00:00.000Z" })
    expect(layout.cursor).toBe(px(45))
    expect(layout.bars.filter((b) => b.classes.includes("held")).map((b) => b.id)).toEqual(["b"])
    expect(timelineSvg(layout)).toContain(`<line class="cursor" x1="${px(45)}" x2="${px(45)}"`)
  })

  it("escapes memory text in labels and titles", () => {
    const svg = timelineSvg(timelineLayout(versions, opts))
    expect(svg).toContain("My name is &lt;b&gt;Bob&lt;/b&gt;")
    expect(svg).not.toContain("<b>")
  })
})
