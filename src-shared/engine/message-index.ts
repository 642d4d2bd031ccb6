// The compact per-message index the UI lists: fixed-width typed-array columns (a few dozen bytes per
// message) instead of retained message objects. Names, protocols and stacks are interned; summaries are
// cut at SUMMARY_MAX characters and each distinct one is kept once, as bytes (text-pool.ts). Beside the
// row it keeps what display filters, sorting and added columns read without decoding again: each
// conversation's endpoints (conversation-ends.ts), the wire direction, and the index fields' values
// (field-columns.ts). The full tree is rebuilt only when a message is looked at.

import type { DecodedMessage, Direction, FieldScalar, Transport, WireDir } from '../model/types'
import type { FilterTarget } from '../filter/compile'
import { FieldColumns } from './field-columns'
import { resized, wideEnough } from '../bytes/columns'
import { TextPool } from './text-pool'
import { ConversationEndsTable, type ConversationEnds } from './conversation-ends'
// The meta fields the index answers besides index fields are the ones messageMetaFields fills.
import { META_FAMILIES, META_KEYS } from './meta-fields'
import { frameLengthValues, type FrameLengths } from './frame-lengths'
import { defineProtocols, indexSubtree, isIndexedFirstLevel, isIndexKey, isPresenceField, presenceKey, presenceOf } from '../bytes/fields'
import type { Endpoint } from './conversation'

const DIRECTIONS: Direction[] = ['c2s', 's2c', 'a2b', 'b2a']
/** Each direction's rank among the directions' names, by id. */
const DIRECTION_RANKS = DIRECTIONS.map((d) => [...DIRECTIONS].sort().indexOf(d))
const FLAG_ERROR = 1 << 2
const FLAG_WARNING = 1 << 3
/** The message went b -> a on the wire (a = the side that opened the conversation). */
const FLAG_WIRE_B2A = 1 << 4
/** The summary was longer than SUMMARY_MAX and is kept cut. */
const FLAG_SUMMARY_CUT = 1 << 5
const SUMMARY_MAX = 120
const FRAME_SPAN_FAR = 0xffff
const OTHER = '(other)'

/** What the index keeps of a message: a decoded message, or a shard's row with its payload length. */
export type IndexInput = Pick<
  DecodedMessage,
  'time' | 'frames' | 'conversation' | 'direction' | 'protocol' | 'stack' | 'name' | 'summary' | 'error' | 'warnings' | 'indexed'
> &
  ({ sources: DecodedMessage['sources']; layerSources?: number } | { length: number })

export interface IndexRow {
  id: number
  conversation: number
  direction: Direction
  firstFrame: number
  lastFrame: number
  time: number
  protocol: string
  name: string
  summary: string
  length: number
  error: boolean
  warning: boolean
}

/** Distinct strings numbered from 0; when all `size` ids but the last are taken, new strings share '(other)'. */
class InternTable {
  private readonly list: string[] = []
  private readonly ids = new Map<string, number>()

  constructor(private readonly size: number) {}

  id(s: string): number {
    const known = this.ids.get(s)
    if (known !== undefined) return known
    if (this.list.length >= this.size - 1 && s !== OTHER) return this.id(OTHER)
    const id = this.list.length
    this.list.push(s)
    this.ids.set(s, id)
    return id
  }

  text(id: number): string {
    return this.list[id]
  }

  all(): readonly string[] {
    return this.list
  }

  /** The id's text split at '/' (stacks are interned joined), computed once per id. */
  layers(id: number): readonly string[] {
    return (this.split[id] ??= this.list[id] ? this.list[id].split('/') : [])
  }
  private readonly split: string[][] = []
}

export type { ConversationEnds }

/** Names a message's stack can hold: transports, carriers and protocols. */
export const LAYERS: ReadonlySet<string> = new Set([
  'udp',
  'tcp',
  'websocket',
  'http',
  'http-preamble',
  'bluebox',
  'photon',
  'sfs2x',
  'fignet',
  'enet',
  'litenetlib',
  'unknown'
])
// A filter may name any layer (`websocket`), as Wireshark accepts protocol names.
defineProtocols(LAYERS)
const EMPTY: readonly FieldScalar[] = []

/**
 * A FilterTarget reading one index row: the meta fields from the row's columns and its conversation's
 * endpoints, layer names from its stack, index fields from the field columns. Any other key reads as
 * absent, so callers only hand it filters whose keys `answers` accepts.
 */
export class IndexTarget implements FilterTarget {
  row = 0
  /** The field column read last: its row, key, the index's row count then, and the values. */
  private lastRow = -1
  private lastKey = ''
  private lastCount = -1
  private lastValues: readonly FieldScalar[] = EMPTY
  /** isPresenceField's answers, per key asked (a filter asks the same keys on every row). */
  private readonly presenceFields = new Map<string, boolean>()

  /** `frames`: the frames' lengths, for `frame.len` and `frame.cap_len` (a target without them refuses those keys). */
  constructor(
    private readonly index: MessageIndex,
    private readonly frames?: FrameLengths
  ) {}

  /**
   * True when the index holds everything `key` needs: a meta field, a layer name, an index field (a group
   * declared one, such as `photon.cmd`, is kept as presence), or a subtree of index fields only (`photon.ev`).
   * Of the meta fields, the frame lengths are read from the FrameLengths the target was made with.
   */
  static answers(key: string): boolean {
    return (key.includes('.') ? META_KEYS.has(key) : LAYERS.has(key) || META_FAMILIES.has(key)) || isIndexKey(key)
  }

  at(row: number): this {
    this.row = row
    return this
  }

  private endpoints(): { src: Endpoint; dst: Endpoint; transport: Transport } | undefined {
    const ends = this.index.endsOf(this.index.conversationAt(this.row))
    if (!ends) return undefined
    return this.index.wireB2aAt(this.row) ? { src: ends.b, dst: ends.a, transport: ends.transport } : { src: ends.a, dst: ends.b, transport: ends.transport }
  }

  values(key: string): readonly FieldScalar[] {
    const ix = this.index
    const r = this.row
    switch (key) {
      case 'frame.number':
        return ix.framesAt(r)
      case 'frame.time_epoch':
        return [ix.timeAt(r)]
      case 'gamewire.conversation':
        return [ix.conversationAt(r)]
      case 'gamewire.direction':
        return [ix.directionAt(r)]
      case 'gamewire.protocol':
        return [ix.protocolAt(r)]
      case 'gamewire.name':
        return [ix.nameAt(r)]
      case 'gamewire.summary':
        return [ix.summaryAt(r)]
      case 'gamewire.length':
        return [ix.lengthAt(r)]
      case 'frame.len':
      case 'frame.cap_len': {
        if (!this.frames) throw new Error(`internal: ${key} asked of an index target without the frames' lengths`)
        return frameLengthValues(key, ix.framesAt(r), this.frames)
      }
    }
    const dot = key.indexOf('.')
    if (dot < 0) return this.layer(key) ? [true] : EMPTY
    const family = key.slice(0, dot)
    if (family === 'ip' || family === 'ipv6' || family === 'udp' || family === 'tcp') {
      const e = this.endpoints()
      if (!e) return EMPTY
      const field = key.slice(dot + 1)
      if (family === 'ip' || family === 'ipv6') {
        if (e.src.ip.includes(':') !== (family === 'ipv6')) return EMPTY
        return field === 'src' ? [e.src.ip] : field === 'dst' ? [e.dst.ip] : field === 'addr' ? [e.src.ip, e.dst.ip] : EMPTY
      }
      if (e.transport !== family) return EMPTY
      return field === 'srcport' ? [e.src.port] : field === 'dstport' ? [e.dst.port] : field === 'port' ? [e.src.port, e.dst.port] : EMPTY
    }
    // A filter naming one field several times (`photon.key == 1 || photon.key == 2`) reads it once per row.
    // (Rows added since, as in a live capture, may have values for a row that had none: count is checked.)
    if (r === this.lastRow && key === this.lastKey && ix.count === this.lastCount) return this.lastValues
    const values = ix.fields.get(key)?.values(r) ?? EMPTY
    this.lastRow = r
    this.lastKey = key
    this.lastCount = ix.count
    this.lastValues = values
    return values
  }

  has(key: string): boolean {
    if (!key.includes('.')) {
      if (this.layer(key)) return true
      // 'ip', 'frame', 'gamewire'...: present when one of their fields has a value.
      if (META_FAMILIES.has(key)) {
        for (const k of META_KEYS) if (k.startsWith(key + '.') && this.values(k).length) return true
        return false
      }
      return this.present(key)
    }
    const fields = indexSubtree(key)
    if (fields) return fields.some((k) => this.has(k))
    return this.values(key).length > 0 || this.present(key)
  }

  /**
   * A group declared `index: true` (photon.cmd, entangle) has no values: the index keeps its presence apart,
   * as it does for a parameter (`photon.param.245`).
   */
  private present(key: string): boolean {
    let kept = this.presenceFields.get(key)
    if (kept === undefined) this.presenceFields.set(key, (kept = isPresenceField(key)))
    return kept && this.index.fields.get(presenceKey(key))?.has(this.row) === true
  }

  private layer(name: string): boolean {
    return this.index.layersAt(this.row).includes(name)
  }
}

/** Whether two stacks name the same layers (a loop: a callback per row cost more than the comparison). */
export function sameLayers(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false
  return true
}

export class MessageIndex {
  private cap = 0
  count = 0
  private time = new Float64Array(0)
  private firstFrame = new Uint32Array(0)
  /** Last frame less first; FRAME_SPAN_FAR where it does not fit, the span then in `farSpans`. */
  private frameSpan = new Uint16Array(0)
  private readonly farSpans = new Map<number, number>()
  // Two bytes until a value needs four (most captures have fewer than 65,536 conversations, most messages
  // are shorter than 64 KiB).
  private conversation: Uint16Array | Uint32Array = new Uint16Array(0)
  private length: Uint16Array | Uint32Array = new Uint16Array(0)
  private nameId = new Uint16Array(0)
  private protocolId = new Uint8Array(0)
  private dirFlags = new Uint8Array(0) // low 2 bits direction, then flags
  private summaryRef = new Uint32Array(0) // index into summaries
  private stackId = new Uint16Array(0)
  private readonly stacks = new InternTable(1 << 16)
  private readonly ends = new ConversationEndsTable()
  /** Index-field values, error and warning texts, and the frame lists of messages with more than two frames. */
  readonly fields = new FieldColumns()
  // Names and protocols have separate tables: a protocol id is one byte, a name id two.
  private readonly names = new InternTable(1 << 16)
  private readonly protocols = new InternTable(1 << 8)
  // Many summaries repeat ("12 bytes", "PingPong"): each distinct one is kept once, as bytes.
  private readonly summaries = new TextPool()

  private grow(): void {
    this.resize(Math.max(1024, this.cap * 2))
  }

  /** Every fixed column copied to room for `cap` rows. */
  private resize(cap: number): void {
    this.time = resized(this.time, cap)
    this.firstFrame = resized(this.firstFrame, cap)
    this.frameSpan = resized(this.frameSpan, cap)
    this.conversation = resized(this.conversation, cap)
    this.length = resized(this.length, cap)
    this.nameId = resized(this.nameId, cap)
    this.protocolId = resized(this.protocolId, cap)
    this.dirFlags = resized(this.dirFlags, cap)
    this.summaryRef = resized(this.summaryRef, cap)
    this.stackId = resized(this.stackId, cap)
    this.cap = cap
  }

  /**
   * Gives back the room kept for more rows: once a capture file is indexed, the columns are cut to its
   * messages (up to half of a doubled column is otherwise empty). Adding rows later grows them again.
   */
  trim(): void {
    if (this.cap > this.count) this.resize(this.count)
    this.fields.trim()
  }

  // Consecutive messages mostly have the stack of the one before: compare instead of building its key.
  private lastStack: readonly string[] = []
  private lastStackProtocol = ''
  private lastStackId = -1

  private stackIdOf(stack: readonly string[], protocol: string): number {
    if (this.lastStackId >= 0 && protocol === this.lastStackProtocol && sameLayers(stack, this.lastStack)) return this.lastStackId
    const key = protocol && stack[stack.length - 1] !== protocol ? `${stack.join('/')}/${protocol}` : stack.join('/')
    this.lastStack = [...stack]
    this.lastStackProtocol = protocol
    return (this.lastStackId = this.stacks.id(key))
  }

  /** Keeps a conversation's transport and endpoints (when its messages come without them, from shards). */
  setEnds(conversation: number, ends: ConversationEnds): void {
    this.ends.set(conversation, ends)
  }

  /** Appends a message; returns its row number (message id - 1 when every message is indexed). */
  add(m: IndexInput, conv?: ConversationEnds, wireDir: WireDir = 'a2b'): number {
    if (this.count === this.cap) this.grow()
    const i = this.count++
    this.time[i] = m.time
    const first = m.frames[0] ?? 0
    const span = (m.frames[m.frames.length - 1] ?? 0) - first
    this.firstFrame[i] = first
    // Frames come in order, but the index does not rely on it: a negative span is kept as a far one.
    const far = !(span >= 0 && span < FRAME_SPAN_FAR)
    if (far) this.farSpans.set(i, span)
    this.frameSpan[i] = far ? FRAME_SPAN_FAR : span
    this.conversation = wideEnough(this.conversation, m.conversation)
    this.conversation[i] = m.conversation
    const length = 'length' in m ? m.length : (m.sources[m.layerSources ?? 0]?.bytes.length ?? 0)
    this.length = wideEnough(this.length, length)
    this.length[i] = length
    this.nameId[i] = this.names.id(m.name)
    this.protocolId[i] = this.protocols.id(m.protocol)
    const cut = m.summary.length > SUMMARY_MAX
    this.dirFlags[i] =
      DIRECTIONS.indexOf(m.direction) |
      (m.error ? FLAG_ERROR : 0) |
      (m.warnings.length ? FLAG_WARNING : 0) |
      (wireDir === 'b2a' ? FLAG_WIRE_B2A : 0) |
      (cut ? FLAG_SUMMARY_CUT : 0)
    this.stackId[i] = this.stackIdOf(m.stack, m.protocol)
    if (conv && !this.ends.has(m.conversation)) this.ends.set(m.conversation, conv)
    if (m.error) this.fields.add(i, 'gamewire.error', m.error)
    for (const w of m.warnings) this.fields.add(i, 'gamewire.warning', w)
    if (m.frames.length > 2) for (const f of m.frames) this.fields.add(i, 'frame.number', f)
    const ix = m.indexed
    if (ix) {
      for (let k = 0; k < ix.keys.length; k++) {
        const key = ix.keys[k]
        const v = ix.values[k]
        // A parameter's string the full string table cannot take would cost its own memory on each row (a
        // request id, say): the index keeps only that the message has it, so a view decodes it again for it.
        if (typeof v === 'string' && !this.fields.internable(v) && isIndexedFirstLevel(key)) this.fields.add(i, presenceKey(key), true)
        else this.fields.add(i, key, v)
      }
    }
    this.summaryRef[i] = this.summaries.id(cut ? m.summary.slice(0, SUMMARY_MAX - 1) + '…' : m.summary)
    return i
  }

  row(i: number): IndexRow {
    if (i < 0 || i >= this.count) throw new RangeError(`row ${i} out of range`)
    const f = this.dirFlags[i]
    return {
      id: i + 1,
      conversation: this.conversation[i],
      direction: DIRECTIONS[f & 3],
      firstFrame: this.firstFrame[i],
      lastFrame: this.lastFrameAt(i),
      time: this.time[i],
      protocol: this.protocols.text(this.protocolId[i]),
      name: this.names.text(this.nameId[i]),
      summary: this.summaries.text(this.summaryRef[i]),
      length: this.length[i],
      error: (f & FLAG_ERROR) !== 0,
      warning: (f & FLAG_WARNING) !== 0
    }
  }

  // ---- column reads without building a row (filters, sorting, statistics) ----

  timeAt(i: number): number {
    return this.time[i]
  }
  conversationAt(i: number): number {
    return this.conversation[i]
  }
  lengthAt(i: number): number {
    return this.length[i]
  }
  directionAt(i: number): Direction {
    return DIRECTIONS[this.dirFlags[i] & 3]
  }
  protocolAt(i: number): string {
    return this.protocols.text(this.protocolId[i])
  }
  nameAt(i: number): string {
    return this.names.text(this.nameId[i])
  }
  summaryAt(i: number): string {
    return this.summaries.text(this.summaryRef[i])
  }
  /** The layers under and including the message's protocol (`udp`, `enet`, `fignet`). */
  layersAt(i: number): readonly string[] {
    return this.stacks.layers(this.stackId[i])
  }
  summaryCutAt(i: number): boolean {
    return (this.dirFlags[i] & FLAG_SUMMARY_CUT) !== 0
  }
  /** The first frame that carried a byte of the message (its frames are ascending). */
  firstFrameAt(i: number): number {
    return this.firstFrame[i]
  }
  lastFrameAt(i: number): number {
    const span = this.frameSpan[i]
    return this.firstFrame[i] + (span === FRAME_SPAN_FAR ? this.farSpans.get(i)! : span)
  }
  /** Every frame that carried a byte of the message. */
  framesAt(i: number): number[] {
    const listed = this.fields.get('frame.number')
    if (listed?.has(i)) return listed.values(i) as number[]
    // Frames count from 1: a message made of no frame (a decoder's internal error) is kept at frame 0.
    if (this.firstFrame[i] === 0) return []
    const last = this.lastFrameAt(i)
    return this.firstFrame[i] === last ? [this.firstFrame[i]] : [this.firstFrame[i], last]
  }
  /**
   * Sort keys for a text column: the rank of each row's string among the distinct strings, for `rows`
   * (every row when not given) in their order. Ranks are below textRankCount(column).
   */
  textRanks(column: 'protocol' | 'name' | 'summary' | 'direction', rows?: Uint32Array): Uint32Array {
    const n = rows ? rows.length : this.count
    const out = new Uint32Array(n)
    if (column === 'direction') {
      // the low two bits of the row's flags byte
      for (let i = 0; i < n; i++) out[i] = DIRECTION_RANKS[this.dirFlags[rows ? rows[i] : i] & 3]
      return out
    }
    const rank = this.textOrder(column)
    const ids = column === 'protocol' ? this.protocolId : column === 'name' ? this.nameId : this.summaryRef
    for (let i = 0; i < n; i++) out[i] = rank[ids[rows ? rows[i] : i]]
    return out
  }

  /** How many ranks textRanks can give for a column. */
  textRankCount(column: 'protocol' | 'name' | 'summary' | 'direction'): number {
    return column === 'direction' ? DIRECTION_RANKS.length : this.textOrder(column).length
  }

  /**
   * Each text's rank among its table's texts (by localeCompare), kept until the table grows: a 4M-frame
   * capture has over a million distinct summaries, and ordering them takes seconds.
   */
  private textOrder(column: 'protocol' | 'name' | 'summary'): Uint32Array {
    const size = column === 'protocol' ? this.protocols.all().length : column === 'name' ? this.names.all().length : this.summaries.count
    const kept = this.textRankCache.get(column)
    if (kept?.length === size) return kept
    const list = column === 'protocol' ? this.protocols.all() : column === 'name' ? this.names.all() : this.summaries.all()
    const order = list.map((_, k) => k).sort((x, y) => list[x].localeCompare(list[y]))
    const rank = new Uint32Array(list.length)
    order.forEach((k, r) => (rank[k] = r))
    this.textRankCache.set(column, rank)
    return rank
  }
  private readonly textRankCache = new Map<string, Uint32Array>()

  /**
   * The key families (first key segment) that occur in the indexed messages: every layer of every stack,
   * the families of index fields with a value, and the meta families the messages' conversations give
   * (`ip` or `ipv6`, `frame`, `gamewire`). The column picker offers their fields first.
   */
  presentFamilies(): Set<string> {
    const out = new Set<string>()
    if (this.count === 0) return out
    out.add('frame').add('gamewire')
    for (let id = 0; id < this.stacks.all().length; id++) for (const l of this.stacks.layers(id)) out.add(l)
    for (const k of this.fields.keys()) out.add((presenceOf(k) ?? k).split('.', 1)[0])
    for (const f of this.ends.families()) out.add(f)
    return out
  }

  /**
   * A filter target over the index, moved from row to row with `at`; answers the keys `answers` accepts,
   * the frame lengths from `frames`.
   */
  target(frames?: FrameLengths): IndexTarget {
    return new IndexTarget(this, frames)
  }

  /** @internal for IndexTarget */
  endsOf(conversation: number): ConversationEnds | undefined {
    return this.ends.get(conversation)
  }
  /** @internal for IndexTarget */
  wireB2aAt(i: number): boolean {
    return (this.dirFlags[i] & FLAG_WIRE_B2A) !== 0
  }

  /** Approximate bytes held: allocated columns, the distinct summaries and the field columns. */
  byteSize(): number {
    return this.columnBytes() + this.summaries.byteSize() + this.fields.byteSize()
  }

  /** Bytes of the fixed-width columns (summary texts and field columns come on top), room included. */
  columnBytes(): number {
    let n = this.farSpans.size * 16
    for (const a of [
      this.time,
      this.firstFrame,
      this.frameSpan,
      this.conversation,
      this.length,
      this.nameId,
      this.protocolId,
      this.dirFlags,
      this.summaryRef,
      this.stackId
    ])
      n += a.byteLength
    return n
  }
}
