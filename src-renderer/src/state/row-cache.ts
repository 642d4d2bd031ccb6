// Timeline rows live outside React state: blocks of rows fetched on demand for the visible range, kept
// per view, dropped when the view changes. The store only holds a version number that bumps when new
// rows land, so a million-row capture costs the renderer only the blocks it has shown.

import type { InspectorApi, TimelineRow } from '../../../src-shared/api'

export const BLOCK = 200
/** Blocks kept; older ones are dropped (scrolling back re-fetches them). */
const MAX_BLOCKS = 400

export class RowCache {
  viewId = -1
  private blocks = new Map<number, TimelineRow[]>()
  private inFlight = new Set<number>()

  constructor(
    private readonly api: () => InspectorApi | null,
    private readonly changed: () => void
  ) {}

  reset(viewId: number): void {
    this.viewId = viewId
    this.blocks.clear()
    this.inFlight.clear()
  }

  get(index: number): TimelineRow | undefined {
    const block = this.blocks.get(Math.floor(index / BLOCK))
    return block?.[index % BLOCK]
  }

  /** Fetches the blocks covering [start, end) that are missing or were cut short by a growing view. */
  ensure(start: number, end: number, count: number): void {
    const api = this.api()
    if (!api || this.viewId < 0 || end <= start) return
    const last = Math.min(end, count) - 1
    for (let b = Math.floor(start / BLOCK); b <= Math.floor(last / BLOCK); b++) {
      const have = this.blocks.get(b)
      const wanted = Math.min(BLOCK, count - b * BLOCK)
      if ((have && have.length >= wanted) || this.inFlight.has(b)) continue
      this.inFlight.add(b)
      const viewId = this.viewId
      api.getRows(viewId, b * BLOCK, BLOCK).then(
        (batch) => {
          if (batch.viewId !== this.viewId || viewId !== this.viewId) return
          this.inFlight.delete(b)
          this.blocks.set(b, batch.rows)
          if (this.blocks.size > MAX_BLOCKS) this.blocks.delete(this.blocks.keys().next().value!)
          this.changed()
        },
        () => this.inFlight.delete(b)
      )
    }
  }
}
