// A datagram-level harness for the ENet transport: UDP datagrams out of a capture file (gamewire's capture
// reader and net layers, cross-checked with tshark by the tests), fed to an EnetTransport with a CarriedDecoder
// that only records the payloads it is handed, as a FigNet-like envelope (u16 LE message id, flags byte).
import { readFileSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { CaptureReader, type CaptureFrame } from '../../../../src-shared/capture'
import { decodeLink } from '../../../../src-shared/net/link'
import { parseIpv4, parseIpv6 } from '../../../../src-shared/net/ip'
import { parseUdp } from '../../../../src-shared/net/tcp'
import { MessageDraft } from '../../../../src-shared/bytes/tree'
import { defineFields } from '../../../../src-shared/bytes/fields'
import type { FieldReader } from '../../../../src-shared/bytes/reader'
import type { CarriedDecoder, CarriedPayload, CarriedResult } from '../../../../src-shared/protocols/carried'
import type { DecoderContext, MessageOut, WireDir } from '../../../../src-shared/protocols/registry'
import { EnetTransport } from '../../../../src-shared/protocols/enet/decoder'
import type { FragmentLimits } from '../../../../src-shared/net/fragments'

export interface Datagram {
  frame: number
  time: number
  src: string
  dst: string
  payload: Uint8Array
}

export const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex')
export const unhex = (h: string) => Uint8Array.from(Buffer.from(h.replace(/\s+/g, ''), 'hex'))

/** Every UDP datagram of a capture file, with its frame number, time and endpoints. */
export function readUdpDatagrams(file: string): Datagram[] {
  const frames: CaptureFrame[] = []
  const reader = new CaptureReader({ onFrame: (f) => frames.push(f) })
  reader.push(new Uint8Array(readFileSync(file)))
  reader.end()
  const out: Datagram[] = []
  for (const f of frames) {
    const link = decodeLink(f.linkType, f.data)
    if (link.network === 'other') continue
    const ip = link.network === 'ipv4' ? parseIpv4(f.data, link.offset) : parseIpv6(f.data, link.offset)
    if (!ip.ok || ip.packet.protocol !== 17 || ip.packet.fragment) continue
    const udp = parseUdp(ip.packet.payload)
    if ('error' in udp) continue
    out.push({
      frame: f.number,
      time: f.tsSec + f.tsNsec / 1e9,
      src: `${ip.packet.src}:${udp.srcPort}`,
      dst: `${ip.packet.dst}:${udp.dstPort}`,
      payload: udp.payload
    })
  }
  return out
}

/** tshark's view of the same file: frame number → UDP payload hex. */
export function tsharkPayloads(file: string): Map<number, string> {
  const text = execFileSync('tshark', ['-r', file, '-T', 'fields', '-e', 'frame.number', '-e', 'udp.payload'], {
    stdio: ['ignore', 'pipe', 'ignore'],
    maxBuffer: 256 * 1024 * 1024
  }).toString()
  const out = new Map<number, string>()
  for (const line of text.split('\n')) {
    const [n, payload] = line.trim().split('\t')
    if (n && payload !== undefined) out.set(Number(n), payload.replace(/:/g, '').toLowerCase())
  }
  return out
}

const FT = defineFields('test.carried', {
  msg_id: ['Test message id', 'u16'],
  flags: ['Test flags', 'u8'],
  rest: ['Test rest', 'bytes']
})

export interface Delivered {
  bytes: Uint8Array
  payload: CarriedPayload
}

/** Records every payload; reads the 3-byte envelope into the tree so the ranges can be checked. */
export class RecordingCarried implements CarriedDecoder {
  readonly delivered: Delivered[] = []

  decode(r: FieldReader, _draft: MessageDraft, payload: CarriedPayload): CarriedResult {
    const bytes = r.bytes.slice(r.pos, r.end)
    this.delivered.push({ bytes, payload })
    if (r.remaining < 3) return { protocol: 'fignet', name: 'Short payload', summary: `${r.remaining} bytes`, value: { length: bytes.length } }
    const msgId = r.u16(FT.msg_id, true)
    const flags = r.u8(FT.flags)
    if (r.remaining) r.bytesField(FT.rest, r.remaining)
    return { protocol: 'fignet', name: `Msg ${msgId}`, summary: `Msg ${msgId} (${bytes.length} bytes)`, value: { msgId, flags, length: bytes.length } }
  }
}

export interface Run {
  messages: MessageOut[]
  carried: RecordingCarried
  notes: string[]
  client: WireDir | undefined
}

/** Feeds datagrams to one EnetTransport; the first sender is side a. */
export function runTransport(datagrams: Datagram[], opts: { recording?: boolean; fragmentLimits?: FragmentLimits } = {}): Run {
  const carried = new RecordingCarried()
  const notes: string[] = []
  let client: WireDir | undefined
  const a = datagrams[0]?.src
  const ctx: DecoderContext = {
    conversationId: 1,
    keys: undefined,
    a: a ?? 'a',
    b: datagrams[0]?.dst ?? 'b',
    recording: opts.recording ?? true,
    labels: true,
    setClient(dir) {
      client ??= dir
    },
    get clientDir() {
      return client ?? 'a2b'
    },
    get roleFrom() {
      return client ? 'handshake' : 'first-packet'
    },
    note(text) {
      notes.push(text)
    }
  }
  const t = new EnetTransport(ctx, carried, { fragmentLimits: opts.fragmentLimits })
  const messages: MessageOut[] = []
  const emit = (m: MessageOut) => messages.push(m)
  for (const d of datagrams) {
    const draft = new MessageDraft(ctx.recording)
    const source = draft.addSource('UDP payload', d.payload)
    t.datagram({ dir: d.src === a ? 'a2b' : 'b2a', frames: [d.frame], time: d.time, draft, source, offset: 0, bytes: d.payload, stack: ['udp'] }, emit)
  }
  t.finish(emit)
  return { messages, carried, notes, client }
}

/** Datagrams from a list of payloads, alternating by `dir` (a = client 10.0.0.1:5000, b = server 10.0.0.2:7777). */
export function datagrams(list: { dir: 'c2s' | 's2c'; bytes: Uint8Array; time?: number }[]): Datagram[] {
  return list.map((x, i) => ({
    frame: i + 1,
    time: x.time ?? 1000 + i,
    src: x.dir === 'c2s' ? '10.0.0.1:5000' : '10.0.0.2:7777',
    dst: x.dir === 'c2s' ? '10.0.0.2:7777' : '10.0.0.1:5000',
    payload: x.bytes
  }))
}
