// Decoding on every core. After the network stage (link, IP, defragmentation, UDP/TCP headers) conversations
// are independent, so a coordinator routes each frame by its conversation key to one of N shards, each a
// whole Engine over its share of the conversations, and merges what they report back into the order one
// engine would have produced:
//   - every event a shard reports is tagged with the frame being added when it happened (the highest frame
//     the shard has seen); a frame's data goes to one shard only, so ordering all events by tag, and a
//     shard's own events by their order, reproduces one engine's order;
//   - every other shard gets the frame as a tick (its number and time), so conversations end when idle at
//     the same frame as in one engine; endings at one frame go first, oldest conversation first, as one
//     engine ends them (only the limit of open conversations is counted per shard, not overall);
//   - conversation ids are given at the merge in the order conversations were created (one engine numbers
//     them that way), message ids in merge order;
//   - at the end each shard flushes its conversations; the merge puts those in conversation-id order.
// The same file and keys therefore give the same ids, rows and export for any number of shards. The shard
// and the merge are plain code: src-main/host/shard-pool.ts runs shards on worker threads, tests in-process.

import type { CaptureFrame, CaptureInterface } from '../capture/types'
import type { KeyStore } from '../keys/store'
import type { SchemaSet } from '../schema/set'
import type { DecodedMessage, Direction, FieldScalar, Transport } from '../model/types'
import type { ProtocolRegistry, WireDir } from '../protocols/registry'
import type { CompiledFilter } from '../filter/compile'
import type { Conversation, Endpoint } from './conversation'
import { Engine, type DecodeAsRule } from './engine'
import { ConversationTable, conversationKey, NO_CONVERSATIONS, type ConversationList, type ConversationTableData } from './conversation-table'
import { endpointString } from './conversation'
import { streamingTargets, type MessageTargets, type RecentFrames } from './meta-fields'
import { JsonBytes } from '../export/json-bytes'
import { concatBytes } from '../bytes/concat'
import { Float64Builder } from '../bytes/columns'
import { sameLayers } from './message-index'

// ---- frames to a shard ----

/**
 * Frames packed for a transfer to a shard: per frame 7 numbers (number, interfaceId, linkType, tsSec,
 * tsNsec, originalLength, data length), then all the bytes. A data length of -1 is a tick: a frame that went
 * to another shard, whose time moves this shard's capture clock on (conversations end when idle by it).
 */
export interface FrameBatch {
  meta: Float64Array
  data: Uint8Array
  /** pcapng comments of frames in the batch, by frame number (the frame nodes of trees with layers). */
  comments?: [number, string[]][]
  /** The capture's interfaces, sent with the first batch after one was added (names in the frame nodes). */
  interfaces?: CaptureInterface[]
}

const FRAME_FIELDS = 7
const EMPTY = new Uint8Array(0)

export class FrameBatcher {
  private meta = new Float64Builder()
  private chunks: Uint8Array[] = []
  private bytes = 0
  private comments: [number, string[]][] | undefined
  count = 0

  add(f: CaptureFrame): void {
    if (f.comments?.length) (this.comments ??= []).push([f.number, f.comments])
    this.put(f.number, f.interfaceId, f.linkType, f.noTimestamp ? -1 : f.tsSec, f.tsNsec, f.originalLength, f.data.length)
    this.chunks.push(f.data)
    this.bytes += f.data.length
    this.count++
  }

  /** A frame another shard decodes: only its number and time. */
  tick(f: CaptureFrame): void {
    this.put(f.number, 0, 0, f.tsSec, f.tsNsec, 0, -1)
    this.count++
  }

  private put(number: number, interfaceId: number, linkType: number, tsSec: number, tsNsec: number, originalLength: number, length: number): void {
    const m = this.meta.room(FRAME_FIELDS)
    const i = this.meta.length
    m[i] = number
    m[i + 1] = interfaceId
    m[i + 2] = linkType
    m[i + 3] = tsSec
    m[i + 4] = tsNsec
    m[i + 5] = originalLength
    m[i + 6] = length
    this.meta.length = i + FRAME_FIELDS
  }

  get size(): number {
    return this.bytes
  }

  take(): FrameBatch {
    const data = new Uint8Array(this.bytes)
    let at = 0
    for (const c of this.chunks) {
      data.set(c, at)
      at += c.length
    }
    const batch: FrameBatch = { meta: this.meta.take(), data }
    if (this.comments) batch.comments = this.comments
    this.comments = undefined
    this.chunks = []
    this.bytes = 0
    this.count = 0
    return batch
  }
}

/** The frames of a batch; a tick comes as a frame with `tick` set and no bytes. */
export function* unpackFrames(b: FrameBatch): Generator<CaptureFrame & { tick?: true }> {
  const comments = b.comments ? new Map(b.comments) : undefined
  let at = 0
  for (let i = 0; i + FRAME_FIELDS <= b.meta.length; i += FRAME_FIELDS) {
    const len = b.meta[i + 6]
    const tsSec = b.meta[i + 3]
    if (len < 0) {
      yield { number: b.meta[i], interfaceId: 0, linkType: 0, tsSec, tsNsec: b.meta[i + 4], originalLength: 0, data: EMPTY, tick: true }
      continue
    }
    const f: CaptureFrame = {
      number: b.meta[i],
      interfaceId: b.meta[i + 1],
      linkType: b.meta[i + 2],
      tsSec: Math.max(tsSec, 0),
      tsNsec: b.meta[i + 4],
      originalLength: b.meta[i + 5],
      data: b.data.subarray(at, at + len)
    }
    if (tsSec < 0) f.noTimestamp = true
    const c = comments?.get(f.number)
    if (c) f.comments = c
    at += len
    yield f
  }
}

// ---- what a shard reports ----

const END_TAG = 0xffffffff
const AFTER_ENDINGS = 0xffffffff
const EVENT = 5

export enum EventKind {
  Conversation = 0,
  Message = 1,
  Warning = 2,
  FrameConversation = 3,
  Finish = 4
}

/** The rows a shard reports in index mode: what MessageIndex keeps of a message, nothing more. */
export interface RowMessage {
  time: number
  frames: number[]
  conversation: number
  direction: Direction
  wireDir: WireDir
  protocol: string
  stack: string[]
  name: string
  summary: string
  length: number
  error: string | null
  warnings: string[]
  indexed?: { keys: string[]; values: FieldScalar[] } | null
}

/**
 * A shard's report for one batch of frames (or for the end). Events are 5 numbers: kind, tag, sub, a, b.
 * `tag` is the frame being added when it happened; `sub` orders events of one tag: conversations ended for
 * being idle come first, by when they were last active (one engine ends them oldest first, over all
 * shards' conversations), then the frame's own events (sub = AFTER_ENDINGS).
 */
export interface ShardReport {
  events: Float64Array
  strings: string[]
  /** Conversations created in this report: transport and endpoints, by the event's `a` (local id). */
  conversations: { transport: Transport; a: Endpoint; b: Endpoint }[]
  /** Index mode: one row per Message event, in order, packed (see RowPacker). */
  rows?: PackedRows
  /**
   * Export mode: per Message event, the bytes of the message after its id and conversation (writeMessageBody)
   * at [starts[k], ends[k]) of `bytes`; starts[k] is -1 when the filter dropped it.
   */
  bodies?: { bytes: Uint8Array; starts: Int32Array; ends: Int32Array }
  /** Set on the last report: the shard's conversations (local ids) and counts. */
  /** The shard's conversations, all ended, as table columns (a million objects would not fit through a message). */
  end?: { conversations: ConversationTableData; messages: number; errors: number }
  /** The highest frame number the shard has taken. */
  watermark: number
}

export interface ShardOptions {
  registry: ProtocolRegistry
  keys?: KeyStore
  schemas?: SchemaSet
  decodeAs?: DecodeAsRule[]
  mode: 'index' | 'export'
  /** Export mode: drops messages the filter does not match (their ids still count). */
  filter?: CompiledFilter
  /** Export mode: writes a message after its id and conversation (writeMessageBody). */
  writeBody?(w: JsonBytes, m: DecodedMessage): void
  /** Build field trees (export mode: unless the export leaves trees out and the filter needs none). */
  recording?: boolean
  /** With trees: whether they get labels (none when they are built only for the filter), and the only keys they keep. */
  labels?: boolean
  interest?: readonly string[]
  /** Export mode: the frames' layers in the messages written (a filter reads them without: MessageTargets). */
  layers?: boolean
  /** Report which conversation each frame went to (the app's detail replay needs it). */
  frameConversations?: boolean
}

/** One shard: an engine over the frames routed to it, reporting tagged events. */
export class ShardDecoder {
  private readonly engine: Engine
  /** Export mode with a filter: messages as its targets. */
  private readonly targets: MessageTargets | undefined
  /** Export mode with a filter reading frame lengths or header fields: the recent frames, as it needs them. */
  private readonly recent: RecentFrames | null
  private events = new Float64Builder()
  private strings: string[] = []
  private stringIds = new Map<string, number>()
  private convs: ShardReport['conversations'] = []
  private rows = new RowPacker()
  private chunks: Uint8Array[] = []
  private written = 0
  private starts: number[] = []
  private ends: number[] = []
  private readonly out = new JsonBytes((c) => {
    this.chunks.push(c)
    this.written += c.length
  })
  private tag = 0
  private interfaces: CaptureInterface[] = []
  private sub = AFTER_ENDINGS
  private finishing = false

  constructor(private readonly opts: ShardOptions) {
    const depth = { recording: opts.mode === 'export' && (opts.recording ?? true), layers: opts.mode === 'export' && opts.layers }
    const { recent, targets } = streamingTargets(opts.filter?.fields ?? [], (id) => this.interfaces[id], depth)
    this.recent = recent
    this.targets = opts.filter ? targets : undefined
    this.engine = new Engine({
      registry: opts.registry,
      keys: opts.keys,
      schemas: opts.schemas,
      recording: depth.recording,
      labels: opts.labels,
      interest: opts.interest,
      layers: depth.layers,
      interface: (id) => this.interfaces[id],
      decodeAs: opts.decodeAs,
      onConversation: (c) => {
        this.event(EventKind.Conversation, c.id, this.convs.length)
        this.convs.push({ transport: c.transport, a: c.a, b: c.b })
      },
      onWarning: (text) => this.event(EventKind.Warning, this.str(text), 0),
      onEnding: (c, reason) => {
        if (reason === 'capture end') {
          if (c) this.event(EventKind.Finish, c.id, 0)
        } else if (reason === 'idle') this.sub = c ? c.touchedFrame : AFTER_ENDINGS
      },
      onFrameConversation: opts.frameConversations ? (f, c) => this.event(EventKind.FrameConversation, f, c) : undefined,
      onMessage: (m, conv, dir) => this.message(m, conv, dir)
    })
  }

  private readonly strId = (s: string, once?: boolean): number => (once ? this.strings.push(s) - 1 : this.str(s))

  private str(s: string): number {
    let id = this.stringIds.get(s)
    if (id === undefined) {
      id = this.strings.length
      this.strings.push(s)
      this.stringIds.set(s, id)
    }
    return id
  }

  private event(kind: EventKind, a: number, b: number): void {
    const e = this.events.room(EVENT)
    const i = this.events.length
    e[i] = kind
    e[i + 1] = this.finishing ? END_TAG : this.tag
    e[i + 2] = this.finishing ? AFTER_ENDINGS : this.sub
    e[i + 3] = a
    e[i + 4] = b
    this.events.length = i + EVENT
  }

  private message(m: DecodedMessage, conv: Conversation, dir: WireDir): void {
    if (this.opts.mode === 'index') {
      this.rows.add(
        {
          time: m.time,
          frames: m.frames,
          conversation: m.conversation,
          direction: m.direction,
          wireDir: dir,
          protocol: m.protocol,
          stack: m.stack,
          name: m.name,
          summary: m.summary,
          length: m.sources[m.layerSources ?? 0]?.bytes.length ?? 0,
          error: m.error,
          warnings: m.warnings,
          indexed: m.indexed ?? null
        },
        this.strId
      )
    } else {
      const f = this.opts.filter
      if (!f || f.matches(this.targets!.of(m, conv, dir))) {
        this.starts.push(this.written + this.out.buffered)
        this.opts.writeBody!(this.out, m)
        this.ends.push(this.written + this.out.buffered)
      } else {
        this.starts.push(-1)
        this.ends.push(-1)
      }
    }
    // a = local conversation id, b = whether it has an error (counted at the merge)
    this.event(EventKind.Message, m.conversation, m.error ? 1 : 0)
  }

  /** Decodes a batch of frames; returns what it produced. */
  frames(batch: FrameBatch): ShardReport {
    if (batch.interfaces) this.interfaces = batch.interfaces
    for (const f of unpackFrames(batch)) {
      if (f.number > this.tag) this.tag = f.number
      if (f.tick) this.engine.tick(f)
      else {
        this.recent?.put(f)
        this.engine.addFrame(f)
      }
    }
    return this.report()
  }

  /** End of input: flushes every conversation (`lastFrame` is the capture's, not this shard's). */
  end(lastFrame: number): ShardReport {
    this.finishing = true
    this.engine.finish(lastFrame)
    const r = this.report()
    r.end = { conversations: this.engine.endedData(), messages: this.engine.stats.messages, errors: this.engine.stats.errors }
    return r
  }

  private report(): ShardReport {
    const r: ShardReport = { events: this.events.take(), strings: this.strings, conversations: this.convs, watermark: this.tag }
    if (this.opts.mode === 'index') r.rows = this.rows.take()
    else {
      this.out.flush()
      r.bodies = { bytes: concatBytes(this.chunks), starts: Int32Array.from(this.starts), ends: Int32Array.from(this.ends) }
      this.chunks = []
      this.written = 0
      this.starts = []
      this.ends = []
    }
    this.strings = []
    this.stringIds = new Map()
    this.convs = []
    return r
  }
}

/**
 * Rows travel packed: structured-cloning an object per message costs more than decoding it. Per row, in
 * `nums`: time, conversation, length, flags (direction, wire direction, error), then string ids of name,
 * protocol, summary, stack and error (-1: none), then counts each followed by their items: frames,
 * warning ids, index values (key id, kind 0 number / 1 string id / 2 other, value or `objs` index).
 */
export interface PackedRows {
  nums: Float64Array
  offsets: Uint32Array
  objs: FieldScalar[]
}

const DIRS: Direction[] = ['c2s', 's2c', 'a2b', 'b2a']

export class RowPacker {
  private nums = new Float64Builder(1 << 14)
  private offsets: number[] = []
  private objs: FieldScalar[] = []
  // Consecutive rows mostly share their stack: its id is kept for the last one seen.
  private lastStack: readonly string[] | null = null
  private lastStackId = -1

  private stackId(stack: readonly string[], str: (s: string, once?: boolean) => number): number {
    const last = this.lastStack
    if (last && this.lastStackId >= 0 && sameLayers(last, stack)) return this.lastStackId
    this.lastStack = [...stack]
    return (this.lastStackId = str(stack.join('/')))
  }

  /** `str(s, once)` gives the string's id in the report; `once` for a text unlikely to repeat (not looked up). */
  add(r: RowMessage, str: (s: string, once?: boolean) => number): void {
    const ix = r.indexed
    const fields = ix ? ix.keys.length : 0
    const n = this.nums.room(12 + r.frames.length + r.warnings.length + fields * 3)
    let i = this.nums.length
    this.offsets.push(i)
    n[i++] = r.time
    n[i++] = r.conversation
    n[i++] = r.length
    n[i++] = DIRS.indexOf(r.direction) | (r.wireDir === 'b2a' ? 4 : 0)
    n[i++] = str(r.name)
    n[i++] = str(r.protocol)
    n[i++] = str(r.summary, true)
    n[i++] = this.stackId(r.stack, str)
    n[i++] = r.error === null ? -1 : str(r.error)
    n[i++] = r.frames.length
    for (const f of r.frames) n[i++] = f
    n[i++] = r.warnings.length
    for (const w of r.warnings) n[i++] = str(w)
    n[i++] = fields
    for (let k = 0; k < fields; k++) {
      const v = ix!.values[k]
      n[i++] = str(ix!.keys[k])
      if (typeof v === 'number') {
        n[i++] = 0
        n[i++] = v
      } else if (typeof v === 'string') {
        n[i++] = 1
        n[i++] = str(v)
      } else {
        n[i++] = 2
        n[i++] = this.objs.push(v) - 1
      }
    }
    this.nums.length = i
  }

  take(): PackedRows {
    const out = { nums: this.nums.take(), offsets: Uint32Array.from(this.offsets), objs: this.objs }
    this.offsets = []
    this.objs = []
    // String ids are per report: the next report's stack gets its own.
    this.lastStack = null
    this.lastStackId = -1
    return out
  }
}

// A capture has few distinct stacks: each is split once (rows share the array; nothing changes it).
const stacks = new Map<string, string[]>()

function stackOf(text: string): string[] {
  let stack = stacks.get(text)
  if (!stack) {
    if (stacks.size >= 4096) stacks.clear()
    stack = text ? text.split('/') : []
    stacks.set(text, stack)
  }
  return stack
}

/** Row `k` of a report, with its conversation's global id. */
export function unpackRow(report: ShardReport, k: number, conversation: number): RowMessage {
  const { nums: n, offsets, objs } = report.rows!
  const S = report.strings
  let i = offsets[k]
  const time = n[i++]
  i++ // the shard's conversation id
  const length = n[i++]
  const flags = n[i++]
  const name = S[n[i++]]
  const protocol = S[n[i++]]
  const summary = S[n[i++]]
  const stackText = S[n[i++]]
  const errorId = n[i++]
  const frames: number[] = new Array(n[i++])
  for (let f = 0; f < frames.length; f++) frames[f] = n[i++]
  const warnings: string[] = new Array(n[i++])
  for (let w = 0; w < warnings.length; w++) warnings[w] = S[n[i++]]
  const count = n[i++]
  let indexed: RowMessage['indexed'] = null
  if (count) {
    indexed = { keys: new Array(count), values: new Array(count) }
    for (let x = 0; x < count; x++) {
      indexed.keys[x] = S[n[i++]]
      const kind = n[i++]
      const v = n[i++]
      indexed.values[x] = kind === 0 ? v : kind === 1 ? S[v] : objs[v]
    }
  }
  return {
    time,
    frames,
    conversation,
    length,
    name,
    protocol,
    summary,
    direction: DIRS[flags & 3],
    wireDir: flags & 4 ? 'b2a' : 'a2b',
    stack: stackOf(stackText),
    error: errorId < 0 ? null : S[errorId],
    warnings,
    indexed
  }
}

// ---- the coordinator's side ----

/** Routes frames to shards by conversation key, running the engine's own network stage to find it. */
export class ShardRouter {
  /** Counts frames, raises the network layers' warnings, holds IP fragments until their datagram is whole. */
  readonly network: Engine
  private readonly held = new Map<number, CaptureFrame>()

  constructor(
    registry: ProtocolRegistry,
    private readonly shards: number,
    onWarning: (text: string, frame: number) => void
  ) {
    this.network = new Engine({ registry, onMessage: () => undefined, onWarning })
  }

  /**
   * The shard for a frame and the frames to send it (held IP fragments come with the frame that completes
   * their datagram); null when no conversation takes the frame (yet).
   */
  route(f: CaptureFrame): { shard: number; frames: CaptureFrame[] } | null {
    const u = this.network.network(f)
    if (!u) {
      // A fragment the network stage is holding: keep its frame for the shard that will get the datagram.
      if (this.network.heldLastFrame) {
        this.held.set(f.number, { ...f, data: Uint8Array.from(f.data) })
        // Fragments of datagrams that never complete are dropped by the defragmenter; bound what we keep.
        if (this.held.size > MAX_HELD) this.held.delete(this.held.keys().next().value!)
      }
      return null
    }
    const shard = hash(conversationKey(u.transport, endpointString(u.src), endpointString(u.dst))) % this.shards
    if (u.frames.length === 1) return { shard, frames: [f] }
    const frames: CaptureFrame[] = []
    for (const n of u.frames) {
      const h = n === f.number ? f : this.held.get(n)
      this.held.delete(n)
      if (h) frames.push(h)
    }
    return { shard, frames }
  }
}

const MAX_HELD = 65536

/** FNV-1a over the key: a stable spread of conversations over shards. */
function hash(s: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

/** What the merge hands on, in one engine's order. */
export interface MergeSink {
  conversation?(id: number, ends: { transport: Transport; a: Endpoint; b: Endpoint }): void
  /** Index mode. */
  row?(id: number, row: RowMessage): void
  /** Export mode: the message's bytes after its id and conversation; null for a message the filter dropped. */
  body?(id: number, conversation: number, body: Uint8Array | null): void
  frameConversation?(frame: number, conversation: number): void
  warning(text: string): void
}

interface Pending {
  report: ShardReport
  /** Next event (quadruple index) to merge, and the next row or text. */
  at: number
  rowAt: number
}

/** Merges shard reports into one engine's order. */
export class ShardMerger {
  private queues: Pending[][]
  private readonly localToGlobal: Map<number, number>[]
  private nextConversation = 1
  private nextMessage = 1
  messages = 0
  errors = 0
  private readonly ends: (ConversationTableData | undefined)[]
  /** The coordinator's network-stage warnings by frame, and those raised at the end. */
  private own: { frame: number; text: string }[] = []
  private ownAtEnd: string[] = []

  constructor(
    private readonly shards: number,
    private readonly sink: MergeSink
  ) {
    this.queues = Array.from({ length: shards }, () => [])
    this.localToGlobal = Array.from({ length: shards }, () => new Map())
    this.ends = Array.from({ length: shards }, () => undefined)
  }

  /** A warning of the coordinator's network stage, raised at `frame` (0: at the end). */
  ownWarning(text: string, frame: number): void {
    if (frame === 0) this.ownAtEnd.push(text)
    else this.own.push({ frame, text })
  }

  add(shard: number, report: ShardReport): void {
    this.queues[shard].push({ report, at: 0, rowAt: 0 })
    if (report.end) this.ends[shard] = report.end.conversations
  }

  /** Hands on every event tagged at or before `safe`: frames that every shard has decoded or was never sent. */
  drain(safe: number): void {
    for (;;) {
      // The source whose next event comes first: lowest tag, then lowest sub (idle endings by age).
      let best = -1
      let bestTag = Infinity
      let bestSub = Infinity
      for (let s = 0; s < this.shards; s++) {
        const tag = this.headTag(s)
        if (tag === Infinity) continue
        const q = this.queues[s][0]
        const sub = q.report.events[q.at + 2]
        if (tag < bestTag || (tag === bestTag && sub < bestSub)) {
          bestTag = tag
          bestSub = sub
          best = s
        }
      }
      const ownTag = this.own.length ? this.own[0].frame : Infinity
      if (ownTag < bestTag && ownTag <= safe) {
        this.sink.warning(this.own.shift()!.text)
        continue
      }
      if (best < 0 || bestTag > safe || bestTag === END_TAG) return
      const p = this.queues[best][0]
      this.apply(best, p)
    }
  }

  private headTag(s: number): number {
    const q = this.queues[s]
    while (q.length && q[0].at >= q[0].report.events.length) q.shift()
    return q.length ? q[0].report.events[q[0].at + 1] : Infinity
  }

  /** Merges the next event of `p`, a report of shard `s`. */
  private apply(s: number, p: Pending): void {
    const ev = p.report.events
    const kind = ev[p.at]
    const a = ev[p.at + 3]
    const b = ev[p.at + 4]
    p.at += EVENT
    const map = this.localToGlobal[s]
    switch (kind) {
      case EventKind.Conversation: {
        const id = this.nextConversation++
        map.set(a, id)
        this.sink.conversation?.(id, p.report.conversations[b])
        break
      }
      case EventKind.Message: {
        const id = this.nextMessage++
        this.messages++
        if (b) this.errors++
        const conv = map.get(a) ?? 0
        if (p.report.rows) this.sink.row?.(id, unpackRow(p.report, p.rowAt, conv))
        else {
          const b = p.report.bodies!
          const start = b.starts[p.rowAt]
          this.sink.body?.(id, conv, start < 0 ? null : b.bytes.subarray(start, b.ends[p.rowAt]))
        }
        p.rowAt++
        break
      }
      case EventKind.Warning:
        this.sink.warning(p.report.strings[a])
        break
      case EventKind.FrameConversation:
        this.sink.frameConversation?.(a, map.get(b) ?? 0)
        break
      case EventKind.Finish:
        break
    }
  }

  /**
   * After every shard's last report: the end-of-capture flushes in conversation-id order (one engine
   * finishes its conversations in creation order), then the coordinator's warnings raised at the end.
   * Returns every conversation with its global id.
   */
  finish(): ConversationList {
    this.drain(END_TAG - 1)
    // What is left is the flushes: each starts with a Finish event naming its conversation.
    const segments: { id: number; s: number; p: Pending; at: number; rowAt: number; events: number }[] = []
    for (let s = 0; s < this.shards; s++) {
      for (const p of this.queues[s]) {
        const ev = p.report.events
        let rowAt = p.rowAt
        let current: (typeof segments)[number] | undefined
        for (let i = p.at; i < ev.length; i += EVENT) {
          if (ev[i] === EventKind.Finish) {
            current = { id: this.localToGlobal[s].get(ev[i + 3]) ?? 0, s, p, at: i, rowAt, events: 0 }
            segments.push(current)
          }
          if (current) current.events++
          if (ev[i] === EventKind.Message) rowAt++
        }
      }
    }
    segments.sort((x, y) => x.id - y.id)
    for (const seg of segments) {
      seg.p.at = seg.at
      seg.p.rowAt = seg.rowAt
      for (let k = 0; k < seg.events; k++) this.apply(seg.s, seg.p)
    }
    this.queues = this.queues.map(() => [])
    for (const w of this.own.splice(0)) this.sink.warning(w.text)
    for (const w of this.ownAtEnd.splice(0)) this.sink.warning(w)
    // One table of every shard's conversations by their ids here, and the links between them renumbered too.
    let all: ConversationTable | undefined
    this.ends.forEach((data, s) => {
      if (!data) return
      all ??= new ConversationTable(data.limits)
      const table = ConversationTable.fromData(data)
      const map = this.localToGlobal[s]
      const renumber = (id: number) => map.get(id) ?? 0
      for (let id = 1; id <= data.top; id++) all.copy(table, id, renumber(id), renumber)
    })
    this.ends.fill(undefined)
    return all ? all.list(this.nextConversation - 1) : NO_CONVERSATIONS
  }
}
