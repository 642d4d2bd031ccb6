// Message detail on demand: the index keeps no trees, so a selected message is rebuilt with its tree by
// replaying its conversation's frames. Replay cursors (one per recently visited conversation) and a small
// cache make stepping through a conversation (arrow keys in the timeline) cheap, and a jump further down a
// conversation continues from where its cursor stopped instead of replaying from the start.
//
// Checkpoints bound the replay of a first visit deep in a long conversation: copies of the conversation's
// engine (engine/state-copy.ts) every CHECKPOINT_SPACING messages, taken by replays as they pass and, after a
// capture is opened, by a pass in the background over its long conversations (prepare()). A replay starts
// from the last checkpoint before the wanted message, as Wireshark re-dissects one frame from the state its
// first pass kept.

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
import { StateCopyRefused } from '../../../src-shared/engine/state-copy'
import { jsonText, jsonTree } from '../../../src-shared/export/json'
import type { DecodedMessage } from '../../../src-shared/model/types'
import type { FrameStore } from '../frame-store'
import { prettyJson } from '../pretty-json'
import { Cancelled, Token } from './cancel'
import type { SessionContext } from './context'

const DETAIL_CACHE = 32
/** Rebuilt messages a replay cursor keeps (stepping back through a conversation). */
const REPLAY_KEEP = 64
/** Conversations whose replay cursor is kept (the most recently visited). */
const CURSORS = 4
/** Messages of a conversation between two of its checkpoints, at least (more when a capture has many). */
const CHECKPOINT_SPACING = 500
/** Most checkpoints a session keeps: each copies one conversation's decoding state (30–100 KiB on the game captures). */
const MAX_CHECKPOINTS = 2000

/** A conversation's engine copied between two of its frames, without trees; resumed by copying it again. */
interface Checkpoint {
  /** Index into the conversation's frames of the next frame to feed. */
  next: number
  /** The frame fed last: a message whose first frame comes after it has not begun. */
  lastFed: number
  /** Messages the conversation had given before it. */
  emitted: number
  engine: Engine
}

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
  /** Messages given when the replay last took (or started from) a checkpoint. */
  checkpointedAt: number
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
  /** Checkpoints by conversation, in the order of their messages. */
  private readonly checkpoints = new Map<number, Checkpoint[]>()
  private checkpointCount = 0
  private resumes = 0
  private spacing: number
  private prepareToken = new Token()
  private preparing: Promise<void> = Promise.resolve()

  constructor(private readonly ctx: SessionContext) {
    this.spacing = this.minSpacing
  }

  private get minSpacing(): number {
    return this.ctx.opts.checkpointSpacing ?? CHECKPOINT_SPACING
  }

  /** Drops the cached details, the replay cursors and the checkpoints: the messages they hold are gone (or renumbered). */
  forget(): void {
    this.detailCache.clear()
    this.sourceCache.clear()
    this.cursors.clear()
    this.prepareToken.cancel()
    this.checkpoints.clear()
    this.checkpointCount = 0
    this.resumes = 0
    this.spacing = this.minSpacing
  }

  /** Checkpoints kept now, and replays started from one since (tests, the bench). */
  get checkpointUse(): { kept: number; resumed: number } {
    return { kept: this.checkpointCount, resumed: this.resumes }
  }

  /**
   * Starts taking checkpoints through the open capture's long conversations, in the background (it yields to
   * any foreground work): afterwards a first visit anywhere replays at most about `spacing` messages. Called
   * once a capture's index is ready; the promise settles when the pass is done or was stopped by forget().
   */
  prepare(): Promise<void> {
    this.prepareToken.cancel()
    const token = (this.prepareToken = new Token())
    this.preparing = this.takeCheckpoints(token).catch((e: unknown) => {
      if (!(e instanceof Cancelled)) console.warn(`gamewire: detail checkpoints stopped: ${(e as Error).message}`)
    })
    return this.preparing
  }

  /** The background pass started last, settled. */
  prepared(): Promise<void> {
    return this.preparing
  }

  private async takeCheckpoints(token: Token): Promise<void> {
    const rows = this.ctx.rows
    const conversations = Array.from({ length: this.ctx.conversations.conversationCount }, (_, i) => i + 1)
    // A conversation of one spacing or less replays quickly from its start. Past MAX_CHECKPOINTS the spacing grows.
    let total = 0
    for (const c of conversations) if (rows.messagesIn(c) > this.minSpacing) total += rows.messagesIn(c)
    this.spacing = Math.max(this.spacing, Math.ceil(total / MAX_CHECKPOINTS))
    const long = new Set(conversations.filter((c) => rows.messagesIn(c) > this.spacing))
    if (long.size === 0) return
    /** Messages of each conversation when its last checkpoint was taken. */
    const taken = new Map<number, number>()
    await this.ctx.replayConversations(long, {
      token,
      recording: false,
      layers: true, // as the detail's own replays: a checkpoint's copy keeps its engine's options
      background: true,
      onMessage: () => undefined,
      afterFrame: (c, engine, frame, next) => {
        // A conversation engine decodes its conversation alone: its message count is the conversation's.
        const e = engine.stats.messages
        if (e - (taken.get(c) ?? 0) < this.spacing) return
        taken.set(c, e)
        this.checkpoint(c, engine, next, frame, e)
      }
    })
  }

  /** Keeps a copy of `engine` (a conversation's, without trees, between two frames) unless one is near. */
  private checkpoint(conversation: number, engine: Engine, next: number, lastFed: number, emitted: number): void {
    if (this.checkpointCount >= MAX_CHECKPOINTS || engine.recording) return
    let list = this.checkpoints.get(conversation)
    if (!list) this.checkpoints.set(conversation, (list = []))
    let i = list.length
    while (i > 0 && list[i - 1].emitted > emitted) i--
    if ((i > 0 && emitted - list[i - 1].emitted < this.spacing) || (i < list.length && list[i].emitted - emitted < this.spacing)) return
    const copy = engine.fork(() => undefined)
    if (copy instanceof StateCopyRefused) return
    list.splice(i, 0, { next, lastFed, emitted, engine: copy })
    this.checkpointCount++
  }

  /**
   * For another replay of a conversation (an export of chosen messages): an engine resumed from the last
   * checkpoint before its `wanted`-th message, which begins at `firstFrame`, giving its messages to
   * `onMessage`, with the replay's own keys and layers. With the index into the conversation's frames to feed
   * from, and the messages the conversation gave before; null when there is no such checkpoint.
   */
  resumeBefore(
    conversation: number,
    wanted: number,
    firstFrame: number,
    onMessage: (m: DecodedMessage) => void,
    changes: Parameters<Engine['fork']>[1]
  ): { engine: Engine; next: number; emitted: number } | null {
    const checkpoint = this.checkpointBefore(conversation, wanted, firstFrame)
    const engine = checkpoint && this.ctx.resumeConversation(checkpoint.engine, conversation, onMessage, changes)
    if (!engine) return null
    this.resumes++
    return { engine, next: checkpoint.next, emitted: checkpoint.emitted }
  }

  /** The last checkpoint of a conversation before its `wanted`-th message, which begins at frame `firstFrame`. */
  private checkpointBefore(conversation: number, wanted: number, firstFrame: number): Checkpoint | null {
    const list = this.checkpoints.get(conversation)
    if (!list) return null
    for (let i = list.length - 1; i >= 0; i--) if (list[i].emitted <= wanted && list[i].lastFed < firstFrame) return list[i]
    return null
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

  /** A replay cursor at a checkpoint of the conversation, or at its start. */
  private startCursor(store: FrameStore, conversation: number, checkpoint: Checkpoint | null): ReplayCursor {
    const c: ReplayCursor = {
      generation: this.ctx.generation,
      conversation,
      frames: store.framesOf(conversation),
      next: 0,
      emitted: 0,
      finished: false,
      recent: new Map(),
      engine: null!,
      treesFrom: Infinity,
      checkpointedAt: 0
    }
    const onMessage = (m: DecodedMessage) => {
      const k = c.emitted++
      if ((m.frames[0] ?? 0) < c.treesFrom) return
      c.recent.set(k, m)
      if (c.recent.size > REPLAY_KEEP) c.recent.delete(c.recent.keys().next().value!)
    }
    const resumed = checkpoint && this.ctx.resumeConversation(checkpoint.engine, conversation, onMessage)
    if (resumed) {
      this.resumes++
      c.engine = resumed
      c.next = checkpoint.next
      c.emitted = c.checkpointedAt = checkpoint.emitted
    } else c.engine = this.ctx.conversationEngine(conversation, { recording: false, layers: true, onMessage }) // the detail shows the frames under the message
    return c
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
    const usable = c !== undefined && c.generation === generation && (c.recent.has(wanted) || wanted >= c.emitted)
    const checkpoint = usable && c!.recent.has(wanted) ? null : this.checkpointBefore(conversation, wanted, firstFrame)
    // Start again (from the last checkpoint before the message, else from the first frame) unless the cursor
    // has the message or can go on to it from nearer than the checkpoint.
    if (!c || !usable || (checkpoint && checkpoint.emitted > c.emitted)) c = this.startCursor(store, conversation, checkpoint)
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
      if (c.emitted - c.checkpointedAt >= this.spacing && !c.engine.recording && c.next < c.frames.length) {
        c.checkpointedAt = c.emitted
        this.checkpoint(conversation, c.engine, c.next, f, c.emitted)
      }
    }
    if (!c.recent.has(wanted) && !c.finished && c.emitted <= wanted) {
      treesOn(firstFrame)
      c.finished = true
      c.engine.finish()
    }
    return c.recent.get(wanted) ?? null
  }
}
