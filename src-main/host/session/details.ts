// Message detail on demand: the index keeps no trees, so a selected message is rebuilt with its tree by
// replaying its conversation's frames. Replay cursors (one per recently visited conversation) and a small
// cache make stepping through a conversation (arrow keys in the timeline) cheap, and a jump further down a
// conversation continues from where its cursor stopped instead of replaying from the start.

import {
  DETAIL_INLINE_BYTES,
  DETAIL_MAX_NODES,
  DETAIL_MAX_VALUE_CHARS,
  MAX_SOURCE_PAGE,
  type MessageDetail,
  type SourcePage,
  type TreeNode
} from '../../../src-shared/api'
import { toHex } from '../../../src-shared/bytes/tree'
import type { Engine } from '../../../src-shared/engine/engine'
import { jsonText, jsonTree } from '../../../src-shared/export/json'
import type { DecodedMessage } from '../../../src-shared/model/types'
import type { FrameStore } from '../frame-store'
import { prettyJson } from '../pretty-json'
import type { SessionContext } from './context'

const DETAIL_CACHE = 32
/** Rebuilt messages a replay cursor keeps (stepping back through a conversation). */
const REPLAY_KEEP = 64
/** Conversations whose replay cursor is kept (the most recently visited). */
const CURSORS = 4

interface ReplayCursor {
  generation: number
  conversation: number
  frames: Uint32Array
  /** Index into frames of the next frame to feed. */
  next: number
  /** Messages the replay has produced so far. */
  emitted: number
  finished: boolean
  /** Messages with their trees, by ordinal: only those whose first frame came after trees were turned on. */
  recent: Map<number, DecodedMessage>
  engine: Engine
  /** The frame from which the replay builds trees (earlier messages are decoded without, which is faster). */
  treesFrom: number
}

/**
 * The tree with at most `max` nodes (depth first, the order it is shown in): where nodes are cut, one note
 * node says how many more there are. A decompressed body can hold millions of fields; the export has them all.
 */
export function capTree(nodes: TreeNode[], max: number): TreeNode[] {
  let budget = max
  const walk = (list: TreeNode[]): TreeNode[] => {
    const out: TreeNode[] = []
    for (let i = 0; i < list.length; i++) {
      if (budget <= 0) {
        const rest = list.slice(i).reduce((n, t) => n + countNodes(t), 0)
        out.push({
          key: 'gamewire.truncated',
          label: `… ${rest} more field${rest === 1 ? '' : 's'} not shown (the JSON export has them all)`,
          type: 'none',
          children: []
        })
        break
      }
      budget--
      const n = list[i]
      out.push(n.children.length ? { ...n, children: walk(n.children) } : n)
    }
    return out
  }
  return walk(nodes)
}

function countNodes(n: TreeNode): number {
  let c = 1
  for (const ch of n.children) c += countNodes(ch)
  return c
}

/** The value's JSON text, cut at `max` characters with a line saying so. */
export function capValueText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n… (cut at ${max} characters: the JSON export has the whole value)`
}

export class DetailPart {
  private detailCache = new Map<string, MessageDetail>()
  /** The rebuilt messages behind the cached details, for their sources' bytes (getSourceBytes). */
  private sourceCache = new Map<string, DecodedMessage['sources']>()
  /** Replay cursors by conversation, least recently used first. */
  private readonly cursors = new Map<number, ReplayCursor>()

  constructor(private readonly ctx: SessionContext) {}

  /** Drops the cached details and the replay cursors: the messages they hold are gone (or renumbered). */
  forget(): void {
    this.detailCache.clear()
    this.sourceCache.clear()
    this.cursors.clear()
  }

  getMessage(id: number): MessageDetail {
    const cacheKey = `${this.ctx.generation}:${id}`
    const cached = this.detailCache.get(cacheKey)
    if (cached) return cached
    const m = this.rebuild(id)
    // The export's own form of the message, with the value as indented text and the sources' bytes.
    const detail: MessageDetail = {
      id: m.id,
      conversation: m.conversation,
      direction: m.direction,
      frames: m.frames,
      time: m.time,
      protocol: m.protocol,
      stack: m.stack,
      name: m.name,
      summary: m.summary,
      tree: capTree(jsonTree(m.tree), DETAIL_MAX_NODES),
      sources: m.sources.map((s) => ({ name: s.name, length: s.bytes.length, hex: toHex(s.bytes.subarray(0, DETAIL_INLINE_BYTES)) })),
      valueJson: capValueText(prettyJson(jsonText(m.value)), DETAIL_MAX_VALUE_CHARS),
      warnings: m.warnings,
      error: m.error
    }
    if (this.detailCache.size >= DETAIL_CACHE) {
      const oldest = this.detailCache.keys().next().value!
      this.detailCache.delete(oldest)
      this.sourceCache.delete(oldest)
    }
    this.detailCache.set(cacheKey, detail)
    this.sourceCache.set(cacheKey, m.sources)
    return detail
  }

  /**
   * The message frame `frame` carries (the lowest id when several): one whose first or last frame it is,
   * else one of the same conversation whose frames span it (a middle segment of a reassembled message, or
   * an ACK between its segments). For summaries that point at a frame.
   */
  findFrame(frame: number): number | null {
    const store = this.ctx.store
    if (!store || !Number.isInteger(frame) || frame < 1 || frame > store.count) return null
    const rows = this.ctx.rows
    const index = rows.index
    let spanning: number[] = []
    for (let r = 0; r < rows.count; r++) {
      const row = index.row(r)
      if (row.firstFrame === frame || row.lastFrame === frame) return r + 1
      if (row.firstFrame < frame && frame < row.lastFrame) spanning.push(r)
    }
    spanning = spanning.filter((r) => store.framesOf(index.conversationAt(r)).includes(frame))
    return spanning.length ? spanning[0] + 1 : null
  }

  /** A page of a message's data source (the hex view asks for what it shows beyond the inline bytes). */
  getSourceBytes(id: number, source: number, offset: number, length: number): SourcePage {
    const key = `${this.ctx.generation}:${id}`
    if (!this.sourceCache.has(key)) this.getMessage(id)
    const sources = this.sourceCache.get(key)!
    const s = sources[source]
    if (!s) throw new RangeError(`message ${id} has no data source ${source} (it has ${sources.length})`)
    const start = Math.min(offset, s.bytes.length)
    return { offset: start, hex: toHex(s.bytes.subarray(start, start + Math.min(length, MAX_SOURCE_PAGE))) }
  }

  /**
   * Rebuilds one message with its tree by replaying only its conversation's frames. The replay is kept
   * as a cursor: a later message of the same conversation (arrow keys in the timeline, or a click further
   * down) continues where it stopped instead of starting over, and the last few rebuilt messages are kept
   * for stepping back.
   */
  private rebuild(id: number): DecodedMessage {
    const store = this.ctx.requireStore()
    const rows = this.ctx.rows
    if (!Number.isInteger(id) || id < 1 || id > rows.count) throw new RangeError(`no message ${id} (the capture has ${rows.count})`)
    const row = rows.index.row(id - 1)
    const wanted = rows.ordinal(id - 1)
    const found = this.replayTo(store, row.conversation, wanted, row.firstFrame) ?? this.replayTo(store, row.conversation, wanted, 0)
    if (!found) throw new Error(`message ${id} could not be rebuilt from its conversation's frames`)
    return { ...found, id }
  }

  /**
   * The conversation's `wanted`-th message with its tree, from the replay cursor: continued where it stopped,
   * or started again. Frames before `firstFrame` are decoded without trees; null when the message did not come
   * out with a whole tree (it began before the frame where trees were turned on: try again from 0).
   */
  private replayTo(store: FrameStore, conversation: number, wanted: number, firstFrame: number): DecodedMessage | null {
    const generation = this.ctx.generation
    let c = this.cursors.get(conversation)
    if (c) this.cursors.delete(conversation) // put back below as the most recently used
    if (!c || c.generation !== generation || (wanted < c.emitted && !c.recent.has(wanted))) {
      const fresh: ReplayCursor = {
        generation,
        conversation,
        frames: store.framesOf(conversation),
        next: 0,
        emitted: 0,
        finished: false,
        recent: new Map(),
        engine: null!,
        treesFrom: Infinity
      }
      fresh.engine = this.ctx.conversationEngine(
        conversation,
        false,
        (m) => {
          const k = fresh.emitted++
          if ((m.frames[0] ?? 0) < fresh.treesFrom) return
          fresh.recent.set(k, m)
          if (fresh.recent.size > REPLAY_KEEP) fresh.recent.delete(fresh.recent.keys().next().value!)
        },
        true
      ) // the detail shows the frames under the message
      c = fresh
    }
    this.cursors.set(conversation, c)
    if (this.cursors.size > CURSORS) this.cursors.delete(this.cursors.keys().next().value!)
    const treesOn = (from: number) => {
      if (c.engine.recording) return
      c.engine.recording = true
      c.treesFrom = from
    }
    // A jump past frames not yet fed: decode them without trees (as a fresh replay would), and turn trees on
    // again at the wanted message's first frame. Messages begun before it come out with partial trees; they
    // are not kept (treesFrom), so asking for one later replays from the start.
    if (c.engine.recording && !c.recent.has(wanted) && c.next < c.frames.length && c.frames[c.next] < firstFrame) {
      c.engine.recording = false
      c.treesFrom = Infinity
    }
    while (!c.recent.has(wanted) && c.next < c.frames.length && c.emitted <= wanted) {
      const f = c.frames[c.next++]
      if (f >= firstFrame) treesOn(f)
      c.engine.addFrame(store.get(f))
    }
    if (!c.recent.has(wanted) && !c.finished && c.emitted <= wanted) {
      treesOn(firstFrame)
      c.finished = true
      c.engine.finish()
    }
    return c.recent.get(wanted) ?? null
  }
}
