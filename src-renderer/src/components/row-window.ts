// Virtual rows of one fixed height, for lists of millions (the timeline). Two limits of a general
// virtualizer show at that size: @tanstack/react-virtual keeps a measurement per row and rebuilds them
// all whenever the count changes, which an open does with every batch of rows (quadratic: 141 s of the
// page's 171 s of CPU while a capture of 5.6 million messages opened); and browsers cap an element's
// height (Chromium at 33,554,428 px, Firefox lower), so rows past the cap (1.4 million rows of 24 px)
// could not be scrolled to. Here the rows shown follow from the scroll position alone, and once the rows
// are taller than MAX_SCROLL_HEIGHT the scrollbar maps proportionally onto them: dragging the thumb to the
// bottom shows the last row, while the wheel and the keys still move by pixels and rows.

import { useCallback, useEffect, useLayoutEffect, useRef, useState, type RefObject } from 'react'

/** The tallest content this sets a scroller to: below every browser's cap, with room to spare. */
export const MAX_SCROLL_HEIGHT = 10_000_000

export interface RowGeometry {
  count: number
  rowHeight: number
  /** The scroller's visible height. */
  viewport: number
  /** The content height past which scrolling is proportional (default MAX_SCROLL_HEIGHT; tests set a small one). */
  limit?: number
}

/** The scroller's content height: the rows' own, or the limit. */
export function contentHeight(g: RowGeometry): number {
  return Math.min(g.count * g.rowHeight, g.limit ?? MAX_SCROLL_HEIGHT)
}

/** The furthest the rows can be scrolled: the offset that puts the last row at the bottom. */
export function maxOffset(g: RowGeometry): number {
  return Math.max(0, g.count * g.rowHeight - g.viewport)
}

/** Pixels of rows per pixel of scrollbar: 1 until the rows are taller than the limit. */
export function scrollRatio(g: RowGeometry): number {
  const range = contentHeight(g) - g.viewport
  const rows = maxOffset(g)
  return range > 0 && rows > range ? rows / range : 1
}

/** The rows' offset (pixels of rows above the viewport) at a scroll position, and back. */
export function offsetAt(g: RowGeometry, scrollTop: number): number {
  return Math.min(maxOffset(g), Math.max(0, scrollTop * scrollRatio(g)))
}
export function scrollTopFor(g: RowGeometry, offset: number): number {
  return offset / scrollRatio(g)
}

/** The offset that shows row `index` whole, moving as little as possible from `offset` ('auto' alignment). */
export function offsetShowing(g: RowGeometry, offset: number, index: number): number {
  const top = index * g.rowHeight
  if (top < offset) return top
  const bottom = top + g.rowHeight
  if (bottom > offset + g.viewport) return Math.min(maxOffset(g), bottom - g.viewport)
  return offset
}

export interface WindowRow {
  index: number
  /** Where the row goes inside the content (a translateY). */
  top: number
}

/**
 * The rows to render at a scroll position: those in view and `overscan` more on each side. A row sits at
 * its offset from the rows' offset, measured from the scroll position, so with a ratio of 1 (scrollTop ==
 * offset) it is at index × rowHeight as in any list.
 */
export function windowRows(g: RowGeometry, scrollTop: number, offset: number, overscan: number): WindowRow[] {
  if (g.count === 0 || g.rowHeight <= 0) return []
  const first = Math.max(0, Math.floor(offset / g.rowHeight) - overscan)
  const last = Math.min(g.count - 1, Math.ceil((offset + g.viewport) / g.rowHeight) - 1 + overscan)
  const rows: WindowRow[] = []
  for (let i = first; i <= last; i++) rows.push({ index: i, top: scrollTop + i * g.rowHeight - offset })
  return rows
}

/** Lines and pages of a wheel event in pixels. */
function wheelPixels(delta: number, mode: number, rowHeight: number, viewport: number): number {
  return mode === 1 ? delta * rowHeight : mode === 2 ? delta * viewport : delta
}

export interface RowWindow {
  rows: WindowRow[]
  /** The height to give the content element. */
  height: number
  /** Scrolls as little as needed to show row `index` whole. */
  scrollToIndex(index: number): void
}

/**
 * Fixed-height virtual rows in `scroller`. The rows' offset is kept apart from the scroller's position:
 * with a ratio above 1 a scroll position cannot say which pixel of the rows is at the top, so the wheel is
 * taken here (by pixels, as the browser would) and the scrollbar is set to match; a scroll this did not
 * make (the thumb dragged, a touch) sets the offset from the position.
 */
export function useRowWindow(scroller: RefObject<HTMLElement | null>, count: number, rowHeight: number, overscan: number): RowWindow {
  const [viewport, setViewport] = useState(0)
  const [pos, setPos] = useState({ scrollTop: 0, offset: 0 })
  const g: RowGeometry = { count, rowHeight, viewport }
  const geometry = useRef(g)
  geometry.current = g
  const current = useRef(pos)
  current.current = pos
  // The scrollTop this last wrote: the scroll event it causes keeps the offset instead of rounding it.
  const written = useRef<number | null>(null)

  const moveTo = useCallback(
    (offset: number) => {
      const el = scroller.current
      const gc = geometry.current
      const o = Math.min(maxOffset(gc), Math.max(0, offset))
      const top = scrollTopFor(gc, o)
      if (el && Math.abs(el.scrollTop - top) >= 0.5) {
        written.current = top
        el.scrollTop = top
      }
      setPos({ scrollTop: el ? el.scrollTop : top, offset: o })
    },
    [scroller]
  )

  useEffect(() => {
    const el = scroller.current
    if (!el) return
    const measure = () => setViewport(el.clientHeight)
    measure()
    const resize = new ResizeObserver(measure)
    resize.observe(el)
    const onScroll = () => {
      const top = el.scrollTop
      const mine = written.current !== null && Math.abs(top - written.current) < 1
      written.current = null
      setPos((p) => ({ scrollTop: top, offset: mine ? p.offset : offsetAt(geometry.current, top) }))
    }
    // Only while scrolling is proportional: the browser would move the rows by the ratio times the wheel.
    const onWheel = (e: WheelEvent) => {
      const gc = geometry.current
      if (scrollRatio(gc) === 1 || e.ctrlKey) return
      const dy = wheelPixels(e.deltaY, e.deltaMode, gc.rowHeight, gc.viewport)
      const dx = wheelPixels(e.deltaX, e.deltaMode, gc.rowHeight, gc.viewport)
      if (e.shiftKey && dx === 0) el.scrollLeft += dy
      else {
        el.scrollLeft += dx
        if (dy !== 0) moveTo(current.current.offset + dy)
      }
      e.preventDefault()
    }
    el.addEventListener('scroll', onScroll, { passive: true })
    el.addEventListener('wheel', onWheel, { passive: false })
    return () => {
      resize.disconnect()
      el.removeEventListener('scroll', onScroll)
      el.removeEventListener('wheel', onWheel)
    }
  }, [scroller, moveTo])

  // Rows added or removed (an open's batches, a new view): the rows in view stay where they are, and the
  // scrollbar follows the new ratio.
  // (From the last scroll position seen, not the element's: reading that lays the page out at once.)
  useLayoutEffect(() => {
    const { scrollTop, offset } = current.current
    const o = Math.min(offset, maxOffset(g))
    if (Math.abs(scrollTop - scrollTopFor(g, o)) >= 1) moveTo(o)
    else if (o !== offset) setPos((p) => ({ ...p, offset: o }))
  }, [count, viewport, rowHeight, moveTo])

  return {
    rows: windowRows(g, pos.scrollTop, pos.offset, overscan),
    height: contentHeight(g),
    scrollToIndex: (index: number) => {
      const o = offsetShowing(geometry.current, current.current.offset, index)
      if (o !== current.current.offset) moveTo(o)
    }
  }
}
