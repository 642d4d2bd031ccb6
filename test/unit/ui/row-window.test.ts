// The timeline's row window (src-renderer/src/components/row-window.ts) as numbers: which rows show at a
// scroll position, with rows short enough to scroll by pixels and with rows far taller than any element a
// browser lays out, where the scrollbar maps proportionally onto them.
import { describe, expect, it } from 'vitest'
import {
  contentHeight,
  MAX_SCROLL_HEIGHT,
  maxOffset,
  offsetAt,
  offsetShowing,
  scrollRatio,
  scrollTopFor,
  windowRows,
  type RowGeometry
} from '../../../src-renderer/src/components/row-window'

const H = 24
const VIEW = 364

/** The rows wholly or partly inside the viewport at scrollTop (tops relative to the content). */
function inView(g: RowGeometry, scrollTop: number, offset: number): number[] {
  return windowRows(g, scrollTop, offset, 0)
    .filter((r) => r.top + g.rowHeight > scrollTop && r.top < scrollTop + g.viewport)
    .map((r) => r.index)
}

describe('the row window', () => {
  it('below the limit is a plain list: rows at index × height, the scroll position is the offset', () => {
    const g = { count: 1000, rowHeight: H, viewport: VIEW }
    expect(contentHeight(g)).toBe(24_000)
    expect(scrollRatio(g)).toBe(1)
    expect(offsetAt(g, 4_800)).toBe(4_800)
    const rows = windowRows(g, 4_800, 4_800, 2)
    expect(rows.map((r) => r.index)).toEqual(Array.from({ length: 20 }, (_, i) => 198 + i))
    for (const r of rows) expect(r.top).toBe(r.index * H)
    // an offset past the last row is clamped to the last row at the bottom
    expect(offsetAt(g, 1e9)).toBe(24_000 - VIEW)
  })

  it('past the limit keeps the content at the limit and reaches the first and the last row', () => {
    const count = 5_584_809 // the 4M-frame bench capture's messages
    const g = { count, rowHeight: H, viewport: VIEW }
    expect(contentHeight(g)).toBe(MAX_SCROLL_HEIGHT)
    expect(MAX_SCROLL_HEIGHT).toBeLessThan(33_554_428) // Chromium's tallest element
    const bottom = contentHeight(g) - VIEW
    expect(inView(g, 0, offsetAt(g, 0))[0]).toBe(0)
    const last = inView(g, bottom, offsetAt(g, bottom))
    expect(last[last.length - 1]).toBe(count - 1)
    // the last row ends exactly at the viewport's bottom, inside the content
    const row = windowRows(g, bottom, offsetAt(g, bottom), 0).find((r) => r.index === count - 1)!
    expect(row.top + H).toBeCloseTo(bottom + VIEW, 6)
    expect(row.top + H).toBeLessThanOrEqual(contentHeight(g))
    // halfway down the scrollbar is halfway down the rows
    const half = inView(g, bottom / 2, offsetAt(g, bottom / 2))
    expect(Math.abs(half[0] - (count - VIEW / H) / 2)).toBeLessThan(2)
  })

  it('shows any row whole when asked, from anywhere, and the scroll position it sets maps back to it', () => {
    // A small limit makes every row of a proportional list checkable.
    const g = { count: 5_000, rowHeight: H, viewport: VIEW, limit: 20_000 }
    expect(scrollRatio(g)).toBeGreaterThan(5)
    for (const from of [0, maxOffset(g) / 3, maxOffset(g)]) {
      for (let i = 0; i < g.count; i++) {
        const o = offsetShowing(g, from, i)
        const top = scrollTopFor(g, o)
        expect(top).toBeGreaterThanOrEqual(0)
        expect(top).toBeLessThanOrEqual(contentHeight(g) - VIEW + 1e-6)
        const row = windowRows(g, top, o, 0).find((r) => r.index === i)
        expect(row, `row ${i} from ${from}`).toBeDefined()
        // whole: inside the viewport
        expect(row!.top).toBeGreaterThanOrEqual(top - 1e-6)
        expect(row!.top + H).toBeLessThanOrEqual(top + VIEW + 1e-6)
        // a scroll event at that position (not made by the window) would land on the same rows, give or take the rounding of one pixel
        expect(Math.abs(offsetAt(g, top) - o)).toBeLessThan(1e-6)
      }
    }
  })

  it('moves no further than needed: a row in view keeps the offset, one below ends at the bottom', () => {
    const g = { count: 100_000, rowHeight: H, viewport: VIEW, limit: 50_000 }
    const o = 240_000 // row 10,000 at the top
    expect(offsetShowing(g, o, 10_005)).toBe(o)
    expect(offsetShowing(g, o, 9_999)).toBe(9_999 * H)
    expect(offsetShowing(g, o, 10_020)).toBe(10_021 * H - VIEW)
  })

  it('has no rows for an empty list', () => {
    expect(windowRows({ count: 0, rowHeight: H, viewport: VIEW }, 0, 0, 20)).toEqual([])
    expect(contentHeight({ count: 0, rowHeight: H, viewport: VIEW })).toBe(0)
  })
})
