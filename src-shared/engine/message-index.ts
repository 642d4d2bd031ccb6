// The compact per-message index the UI lists: fixed-width typed-array columns (a few dozen bytes per
// message) instead of retained message objects. Names and protocols are interned; summaries are kept
// in one string pool capped per message. The full tree is rebuilt only when a message is looked at.

import type { DecodedMessage, Direction } from '../model/types'

const DIRECTIONS: Direction[] = ['c2s', 's2c', 'a2b', 'b2a']
const FLAG_ERROR = 1
const FLAG_WARNING = 2
const SUMMARY_MAX = 120
const OTHER = '(other)'

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
}

export class MessageIndex {
  private cap = 0
  count = 0
  private time = new Float64Array(0)
  private firstFrame = new Uint32Array(0)
  private lastFrame = new Uint32Array(0)
  private conversation = new Uint32Array(0)
  private length = new Uint32Array(0)
  private nameId = new Uint16Array(0)
  private protocolId = new Uint8Array(0)
  private dirFlags = new Uint8Array(0) // low 2 bits direction, then flags
  private summaryRef = new Uint32Array(0) // index into summaries
  // Names and protocols have separate tables: a protocol id is one byte, a name id two.
  private readonly names = new InternTable(1 << 16)
  private readonly protocols = new InternTable(1 << 8)
  private readonly summaries: string[] = []
  // Many summaries repeat ("12 bytes", "PingPong"): store each distinct one once.
  private readonly summaryIds = new Map<string, number>()

  private grow(): void {
    const cap = Math.max(1024, this.cap * 2)
    const g = <T extends Float64Array | Uint32Array | Uint16Array | Uint8Array>(old: T, make: (n: number) => T): T => {
      const n = make(cap)
      n.set(old as never)
      return n
    }
    this.time = g(this.time, (n) => new Float64Array(n))
    this.firstFrame = g(this.firstFrame, (n) => new Uint32Array(n))
    this.lastFrame = g(this.lastFrame, (n) => new Uint32Array(n))
    this.conversation = g(this.conversation, (n) => new Uint32Array(n))
    this.length = g(this.length, (n) => new Uint32Array(n))
    this.nameId = g(this.nameId, (n) => new Uint16Array(n))
    this.protocolId = g(this.protocolId, (n) => new Uint8Array(n))
    this.dirFlags = g(this.dirFlags, (n) => new Uint8Array(n))
    this.summaryRef = g(this.summaryRef, (n) => new Uint32Array(n))
    this.cap = cap
  }

  /** Appends a message; returns its row number (message id - 1 when every message is indexed). */
  add(m: DecodedMessage): number {
    if (this.count === this.cap) this.grow()
    const i = this.count++
    this.time[i] = m.time
    this.firstFrame[i] = m.frames[0] ?? 0
    this.lastFrame[i] = m.frames[m.frames.length - 1] ?? 0
    this.conversation[i] = m.conversation
    this.length[i] = m.sources[0]?.bytes.length ?? 0
    this.nameId[i] = this.names.id(m.name)
    this.protocolId[i] = this.protocols.id(m.protocol)
    this.dirFlags[i] = DIRECTIONS.indexOf(m.direction) | (m.error ? FLAG_ERROR << 2 : 0) | (m.warnings.length ? FLAG_WARNING << 2 : 0)
    const summary = m.summary.length > SUMMARY_MAX ? m.summary.slice(0, SUMMARY_MAX - 1) + '…' : m.summary
    let ref = this.summaryIds.get(summary)
    if (ref === undefined) {
      ref = this.summaries.length
      this.summaries.push(summary)
      if (this.summaryIds.size < 1 << 20) this.summaryIds.set(summary, ref)
    }
    this.summaryRef[i] = ref
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
      lastFrame: this.lastFrame[i],
      time: this.time[i],
      protocol: this.protocols.text(this.protocolId[i]),
      name: this.names.text(this.nameId[i]),
      summary: this.summaries[this.summaryRef[i]],
      length: this.length[i],
      error: ((f >> 2) & FLAG_ERROR) !== 0,
      warning: ((f >> 2) & FLAG_WARNING) !== 0
    }
  }

  /** Approximate bytes held: allocated columns plus the distinct summary strings and their map entries. */
  byteSize(): number {
    let strings = 0
    for (const s of this.summaries) strings += 16 + s.length * 2 + 32
    return this.cap * MessageIndex.BYTES_PER_ROW + strings
  }

  /** Bytes held by the fixed-width columns per message (summary strings come on top). */
  static readonly BYTES_PER_ROW = 8 + 4 * 5 + 2 + 1 + 1
}
