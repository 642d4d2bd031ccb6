// Long lists live outside React state: blocks of entries fetched from the host on demand for the visible
// range, kept per list (a timeline view, a sorted conversation list), dropped when the list changes. The
// store only holds a version number that bumps when new entries land, so a million-row capture costs the
// renderer only the blocks it has shown.

import type { ConversationSort, InspectorApi, TimelineRow } from '../../../src-shared/api'
import type { ConversationInfo } from '../../../src-shared/model/types'

export const BLOCK = 200
/** Blocks kept; older ones are dropped (scrolling back re-fetches them). */
const MAX_BLOCKS = 400

/**
 * Fetches `count` entries of list `key` from `start`; resolves to null when the host answered for another
 * list (the entries would not belong to this one).
 */
export type FetchBlock<K, T> = (api: InspectorApi, key: K, start: number, count: number) => Promise<T[] | null>

export class BlockCache<K, T> {
  private current: K
  private blocks = new Map<number, T[]>()
  /** The last list's blocks, shown until this list's arrive (a live list that changes does not blink). */
  private stale = new Map<number, T[]>()
  private inFlight = new Set<number>()

  constructor(
    private readonly api: () => InspectorApi | null,
    private readonly fetchBlock: FetchBlock<K, T>,
    private readonly changed: () => void,
    /** The key of no list (nothing is fetched for it). */
    private readonly none: K
  ) {
    this.current = none
  }

  get key(): K {
    return this.current
  }

  /** Starts list `key` empty; with `keepShown`, the old entries stand in until the new ones arrive. */
  reset(key: K, keepShown = false): void {
    this.current = key
    const shown = new Map([...this.stale, ...this.blocks])
    this.stale = !keepShown ? new Map() : shown.size > MAX_BLOCKS ? this.blocks : shown
    this.blocks = new Map()
    this.inFlight.clear()
  }

  get(index: number): T | undefined {
    const b = Math.floor(index / BLOCK)
    return (this.blocks.get(b) ?? this.stale.get(b))?.[index % BLOCK]
  }

  /** Fetches the blocks covering [start, end) that are missing or were cut short by a growing list. */
  ensure(start: number, end: number, count: number): void {
    const api = this.api()
    if (!api || this.current === this.none || end <= start) return
    const last = Math.min(end, count) - 1
    for (let b = Math.floor(start / BLOCK); b <= Math.floor(last / BLOCK); b++) {
      const have = this.blocks.get(b)
      const wanted = Math.min(BLOCK, count - b * BLOCK)
      if ((have && have.length >= wanted) || this.inFlight.has(b)) continue
      this.inFlight.add(b)
      const key = this.current
      const blocks = this.blocks
      this.fetchBlock(api, key, b * BLOCK, BLOCK).then(
        (entries) => {
          if (blocks !== this.blocks || !entries) return
          this.inFlight.delete(b)
          this.blocks.set(b, entries)
          this.stale.delete(b)
          if (this.blocks.size > MAX_BLOCKS) this.blocks.delete(this.blocks.keys().next().value!)
          this.changed()
        },
        () => blocks === this.blocks && this.inFlight.delete(b)
      )
    }
  }
}

/** The timeline's rows, per view id (-1: no view yet). */
export function timelineRowCache(api: () => InspectorApi | null, changed: () => void): BlockCache<number, TimelineRow> {
  return new BlockCache<number, TimelineRow>(
    api,
    async (a, viewId, start, count) => {
      const batch = await a.getRows(viewId, start, count)
      return batch.viewId === viewId ? batch.rows : null
    },
    changed,
    -1
  )
}

/** One sorted conversation list: `text` tells lists apart (capture state, count, sort). */
export interface ConversationListKey {
  text: string
  generation: number
  sort: ConversationSort
  desc: boolean
}

/** The Conversations panel's entries, per sorted list. */
export function conversationListCache(api: () => InspectorApi | null, changed: () => void): BlockCache<ConversationListKey, ConversationInfo> {
  return new BlockCache<ConversationListKey, ConversationInfo>(
    api,
    async (a, key, start, count) => (await a.getConversationPage({ sort: key.sort, desc: key.desc, start, count })).conversations,
    changed,
    { text: '', generation: -1, sort: 'id', desc: false }
  )
}
