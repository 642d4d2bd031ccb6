// Drives a LiteNetLibTransport directly: datagrams in, messages out, with a CarriedDecoder that records what
// it was handed (payload bytes, channel, delivery, frame) so the tests can compare it with what they sent.
import { expect } from 'vitest'
import { defineField } from '../../../../src-shared/bytes/fields'
import { DecodeError, type FieldReader } from '../../../../src-shared/bytes/reader'
import { MessageDraft } from '../../../../src-shared/bytes/tree'
import type { FieldNode } from '../../../../src-shared/model/types'
import type { CarriedDecoder, CarriedPayload, CarriedResult } from '../../../../src-shared/protocols/carried'
import type { DecoderContext, MessageOut, WireDir } from '../../../../src-shared/protocols/registry'
import type { FragmentLimits } from '../../../../src-shared/net/fragments'
import { LiteNetLibTransport } from '../../../../src-shared/protocols/litenetlib/decoder'
import { hex } from './encoder'

const F_TEST = defineField('test.carried', 'Carried payload', 'bytes')

export interface Seen {
  hex: string
  payload: CarriedPayload
  /** The source and range the payload was read from. */
  source: number
  start: number
  end: number
}

export class RecordingCarried implements CarriedDecoder {
  readonly seen: Seen[] = []
  /** Payloads starting with this byte make decode() report an error at their second byte. */
  failOn = -1

  decode(r: FieldReader, _draft: MessageDraft, payload: CarriedPayload): CarriedResult {
    const start = r.pos
    const end = r.end
    const first = r.remaining > 0 ? r.peekU8() : -1
    const bytes = r.bytesField(F_TEST, r.remaining)
    this.seen.push({ hex: hex(bytes), payload, source: r.source, start, end })
    const value = { bytes: hex(bytes) }
    if (first === this.failOn) return { protocol: 'fignet', name: 'Bad', summary: 'bad payload', value, error: new DecodeError('test failure', start + 1) }
    return { protocol: 'fignet', name: 'Payload', summary: `payload ${hex(bytes).slice(0, 16)}`, value }
  }
}

export interface Sent {
  frame: number
  time: number
}

export function harness(o: { recording?: boolean; fragmentLimits?: FragmentLimits } = {}) {
  const recording = o.recording ?? true
  const clients: WireDir[] = []
  const notes: string[] = []
  const ctx: DecoderContext = {
    conversationId: 1,
    keys: undefined,
    a: '10.0.0.1:50000',
    b: '10.0.0.2:9050',
    recording,
    labels: true,
    setClient: (d) => void clients.push(d),
    get clientDir() {
      return clients[0] ?? 'a2b'
    },
    get roleFrom() {
      return clients.length ? 'handshake' : 'first-packet'
    },
    note: (t) => void notes.push(t)
  }
  const carried = new RecordingCarried()
  const t = new LiteNetLibTransport(ctx, carried, { fragmentLimits: o.fragmentLimits })
  const out: MessageOut[] = []
  let frame = 0
  let clock = 1000
  /** Sends one datagram; returns its frame and time. `dt` seconds pass before it. */
  const send = (dir: WireDir, bytes: Uint8Array, dt = 0.01): Sent => {
    frame++
    clock += dt
    const draft = new MessageDraft(recording)
    const source = draft.addSource('UDP payload', bytes)
    const before = out.length
    t.datagram({ dir, frames: [frame], time: clock, draft, source, offset: 0, bytes, stack: ['udp'] }, (m) => out.push(m))
    expect(out.length).toBeGreaterThan(before) // every datagram gives at least one message
    return { frame, time: clock }
  }
  const finish = () => t.finish((m) => out.push(m))
  /** Messages emitted for a frame. */
  const of = (f: number) => out.filter((m) => m.frames.includes(f) && m.frames[m.frames.length - 1] === f)
  return { t, out, carried, send, finish, clients, notes, of }
}

export const c2s: WireDir = 'a2b'
export const s2c: WireDir = 'b2a'

export function walk(nodes: FieldNode[], fn: (n: FieldNode) => void): void {
  for (const n of nodes) {
    fn(n)
    if (n.children) walk(n.children, fn)
  }
}

export function findAll(nodes: FieldNode[], key: string): FieldNode[] {
  const out: FieldNode[] = []
  walk(nodes, (n) => n.key === key && out.push(n))
  return out
}

export const lit = (m: MessageOut) => (m.value as { litenetlib: Record<string, unknown> }).litenetlib

/** Fields whose value is computed from its byte(s) rather than read as a plain little-endian number. */
function expected(n: FieldNode, b: Buffer): unknown {
  switch (n.key) {
    case 'litenetlib.property':
      return b[0] & 0x1f
    case 'litenetlib.connection_number':
      return (b[0] >> 5) & 3
    case 'litenetlib.fragmented':
      return (b[0] & 0x80) !== 0
    case 'litenetlib.channel':
      return b[0] >> 2
    case 'litenetlib.delivery':
      return b[0] & 3
    case 'litenetlib.ack_window_size':
      return (b.length - 1) * 8
    case 'litenetlib.address_port':
      return b.readUInt16BE(0)
    case 'litenetlib.address_flowinfo':
      return b.readUInt32BE(0)
    case 'litenetlib.address_family':
      return b.readUInt16LE(0)
    case 'litenetlib.address_ip':
      return b.length === 4 ? [...b].join('.') : undefined // IPv6 text is checked by the address tests
    case 'litenetlib.key':
      return b.toString('utf8')
    case 'litenetlib.key_length':
      return b.length === 2 ? b.readUInt16LE(0) : b.readInt32LE(0)
    case 'litenetlib.property_name':
    case 'litenetlib.ack_acked':
      return undefined // names and lists: checked by the tests that know them
  }
  switch (n.type) {
    case 'u8':
      return b[0]
    case 'u16':
      return b.readUInt16LE(0)
    case 'u32':
      return b.readUInt32LE(0)
    case 'i32':
      return b.readInt32LE(0)
    case 'i64':
      return b.readBigInt64LE(0)
    case 'bytes':
      return hex(b)
    default:
      return undefined
  }
}

/** Every ranged leaf lies inside its source and re-reading its bytes gives its value. */
export function checkRanges(m: MessageOut): number {
  let checked = 0
  walk(m.draft.tree.roots, (n) => {
    if (n.source === undefined) return
    const src = m.draft.sources[n.source]
    expect(src, `source of ${n.key}`).toBeDefined()
    expect(n.start! >= 0 && n.length! >= 0 && n.start! + n.length! <= src.bytes.length, `${n.key} range ${n.start}+${n.length} in ${src.bytes.length}`).toBe(
      true
    )
    if (n.children) return
    const b = Buffer.from(src.bytes.subarray(n.start!, n.start! + n.length!))
    const want = expected(n, b)
    if (want === undefined) return
    const got = n.value instanceof Uint8Array ? hex(n.value) : n.value
    expect(got, `${n.key} at ${n.start}`).toEqual(want)
    checked++
  })
  return checked
}
