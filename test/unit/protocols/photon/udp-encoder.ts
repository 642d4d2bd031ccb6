// An independent Photon UDP encoder for the transport tests, written from docs/photon.md (UDP layout
// (field widths), Encryption), not from the decoder: datagram headers (plain, CRC, datagram-encrypted),
// every command type, and a message split into fragments. CRCs come from node:zlib's crc32 (NOT'ed), AES and
// HMAC from node:crypto.
import zlib from 'node:zlib'
import { createCipheriv, createHmac, randomBytes } from 'node:crypto'

export const T = {
  ACK: 1,
  CONNECT: 2,
  VERIFYCONNECT: 3,
  DISCONNECT: 4,
  PING: 5,
  SEND_RELIABLE: 6,
  SEND_UNRELIABLE: 7,
  SEND_FRAGMENT: 8,
  SEND_UNSEQUENCED: 11,
  SERVERTIME: 12,
  SEND_UNRELIABLE_PROCESSED: 13,
  SEND_RELIABLE_UNSEQUENCED: 14,
  SEND_FRAGMENT_UNSEQUENCED: 15,
  ACK_UNSEQUENCED: 16
} as const

export const hex = (b: Uint8Array | number[]) => Buffer.from(Uint8Array.from(b)).toString('hex')
export const unhex = (h: string) => Uint8Array.from(Buffer.from(h.replace(/\s+/g, ''), 'hex'))

export function concat(parts: Uint8Array[]): Uint8Array {
  return Uint8Array.from(Buffer.concat(parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength))))
}

function be32(v: number): Buffer {
  const b = Buffer.alloc(4)
  b.writeUInt32BE(v >>> 0)
  return b
}

function be16(v: number): Buffer {
  const b = Buffer.alloc(2)
  b.writeUInt16BE(v & 0xffff)
  return b
}

export interface CommandSpec {
  type: number
  channel?: number
  /** Default: 1 (reliable) for reliable types, 0 otherwise. */
  flags?: number
  reserved?: number
  seq?: number
  body?: Uint8Array
  /** Overrides the length field (default 12 + body length). */
  length?: number
}

const RELIABLE_BY_DEFAULT = new Set<number>([T.CONNECT, T.VERIFYCONNECT, T.PING, T.SEND_RELIABLE, T.SEND_FRAGMENT, T.SERVERTIME])

/** One command: type, channel, flags, reserved, length i32 (incl. the 12-byte header), reliableSeq i32, body. */
export function command(spec: CommandSpec): Uint8Array {
  const body = spec.body ?? new Uint8Array(0)
  const h = Buffer.alloc(12)
  h[0] = spec.type
  h[1] = spec.channel ?? 0
  h[2] = spec.flags ?? (RELIABLE_BY_DEFAULT.has(spec.type) ? 1 : 0)
  h[3] = spec.reserved ?? 4
  h.writeInt32BE(spec.length ?? 12 + body.length, 4)
  h.writeInt32BE(spec.seq ?? 0, 8)
  return concat([h, body])
}

export interface FragmentSpec {
  startSeq: number
  count: number
  number: number
  totalLength: number
  offset: number
}

export const cmd = {
  ack: (channel: number, ackedSeq: number, ackedSentTime: number, unsequenced = false) =>
    command({ type: unsequenced ? T.ACK_UNSEQUENCED : T.ACK, channel, flags: 0, seq: 0, body: concat([be32(ackedSeq), be32(ackedSentTime)]) }),
  /** The CONNECT body as observed: 00 00, MTU, window 0x8000, channel count, 2 zero bandwidths, 5000, 2, 2. */
  connect: (o: { mtu?: number; channelCount?: number; seq?: number } = {}) =>
    command({
      type: T.CONNECT,
      channel: 255,
      seq: o.seq ?? 1,
      body: concat([be16(0), be16(o.mtu ?? 1200), be32(0x8000), be32(o.channelCount ?? 2), be32(0), be32(0), be32(5000), be32(2), be32(2)])
    }),
  /** VERIFYCONNECT as observed: assigned peer id, then 04 b0 00 00 80 00 00 00 00 02, then zeros (32 bytes). */
  verifyConnect: (peerId: number, seq = 1) =>
    command({ type: T.VERIFYCONNECT, channel: 255, seq, body: concat([be16(peerId), unhex('04b0 00008000 00000002'), Buffer.alloc(20)]) }),
  disconnect: (reason = 4, channel = 255) => command({ type: T.DISCONNECT, channel, flags: 2, reserved: reason, seq: 0 }),
  ping: (seq: number) => command({ type: T.PING, channel: 255, seq }),
  serverTime: (seq: number) => command({ type: T.SERVERTIME, channel: 255, seq }),
  reliable: (channel: number, seq: number, msg: Uint8Array) => command({ type: T.SEND_RELIABLE, channel, seq, body: msg }),
  reliableUnsequenced: (channel: number, seq: number, msg: Uint8Array) => command({ type: T.SEND_RELIABLE_UNSEQUENCED, channel, flags: 3, seq, body: msg }),
  unreliable: (channel: number, seq: number, useq: number, msg: Uint8Array) =>
    command({ type: T.SEND_UNRELIABLE, channel, flags: 0, seq, body: concat([be32(useq), msg]) }),
  unsequenced: (channel: number, group: number, msg: Uint8Array) =>
    command({ type: T.SEND_UNSEQUENCED, channel, flags: 2, seq: 0, body: concat([be32(group), msg]) }),
  unreliableProcessed: (channel: number, body: Uint8Array) => command({ type: T.SEND_UNRELIABLE_PROCESSED, channel, flags: 0, seq: 0, body }),
  fragment: (channel: number, seq: number, f: FragmentSpec, data: Uint8Array, unsequenced = false) =>
    command({
      type: unsequenced ? T.SEND_FRAGMENT_UNSEQUENCED : T.SEND_FRAGMENT,
      channel,
      flags: unsequenced ? 3 : 1,
      seq,
      body: concat([be32(f.startSeq), be32(f.count), be32(f.number), be32(f.totalLength), be32(f.offset), data])
    })
}

/** Photon's CRC the reference way: zlib CRC-32 of the datagram with its CRC field zeroed, bitwise NOT'ed. */
export function referenceCrc(datagram: Uint8Array, crcOffset = 12): number {
  const copy = Buffer.from(datagram)
  copy.fill(0, crcOffset, crcOffset + 4)
  return ~zlib.crc32(copy) >>> 0
}

export interface DatagramSpec {
  peerId?: number
  /** Header flags byte; default 0xCC when crc, else 0. */
  flags?: number
  /** Adds the CRC field (flags 0xCC) holding the correct CRC unless crcValue overrides it. */
  crc?: boolean
  crcValue?: number
  /** Overrides the command count (default: the number of commands). */
  commandCount?: number
  sentTime?: number
  challenge?: number
  commands: Uint8Array[]
}

export interface Datagram {
  bytes: Uint8Array
  /** Offset of each command in bytes. */
  offsets: number[]
  headerLength: number
}

export function datagram(spec: DatagramSpec): Datagram {
  const crc = spec.crc ?? false
  const h = Buffer.alloc(crc ? 16 : 12)
  h.writeInt16BE(spec.peerId ?? 0, 0)
  h[2] = spec.flags ?? (crc ? 0xcc : 0)
  h[3] = spec.commandCount ?? spec.commands.length
  h.writeUInt32BE((spec.sentTime ?? 0) >>> 0, 4)
  h.writeUInt32BE((spec.challenge ?? 0) >>> 0, 8)
  const offsets: number[] = []
  let at = h.length
  for (const c of spec.commands) {
    offsets.push(at)
    at += c.length
  }
  const bytes = concat([h, ...spec.commands])
  if (crc) {
    const v = spec.crcValue ?? referenceCrc(bytes)
    Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).writeUInt32BE(v >>> 0, 12)
  }
  return { bytes, offsets, headerLength: h.length }
}

/**
 * A datagram-encrypted packet (docs/photon.md, Encryption: datagram encryption): peerId i16, 0x01, challenge i32, AES-256-CBC blob (random
 * 16-byte IV prefixed, PKCS7) of [commandCount u8, sentTime i32, commands], HMAC-SHA256 over all before it.
 */
export function encryptedDatagram(o: { peerId: number; challenge: number; sentTime: number; commands: Uint8Array[]; key: Uint8Array; hmacKey: Uint8Array }): {
  bytes: Uint8Array
  blob: Uint8Array
  hmac: Uint8Array
} {
  const inner = Buffer.alloc(5)
  inner[0] = o.commands.length
  inner.writeUInt32BE(o.sentTime >>> 0, 1)
  const iv = randomBytes(16)
  const c = createCipheriv('aes-256-cbc', o.key, iv)
  const blob = concat([iv, c.update(concat([inner, ...o.commands])), c.final()])
  const head = Buffer.alloc(7)
  head.writeInt16BE(o.peerId, 0)
  head[2] = 0x01
  head.writeUInt32BE(o.challenge >>> 0, 3)
  const signed = concat([head, blob])
  const hmac = Uint8Array.from(createHmac('sha256', o.hmacKey).update(signed).digest())
  return { bytes: concat([signed, hmac]), blob, hmac }
}

/** Fragment size for an MTU: MTU - 12 (datagram header) - 36 (fragment command header + margin) = 1152 at 1200. */
export const fragmentSizeForMtu = (mtu: number) => mtu - 12 - 36

export interface SplitFragment {
  spec: FragmentSpec
  seq: number
  data: Uint8Array
  command: Uint8Array
}

/** Splits a message into fragment commands: fragment i has reliableSeq startSeq + i and data at i * size. */
export function splitMessage(
  msg: Uint8Array,
  o: { channel?: number; startSeq: number; fragmentSize?: number; mtu?: number; unsequenced?: boolean }
): SplitFragment[] {
  const size = o.fragmentSize ?? fragmentSizeForMtu(o.mtu ?? 1200)
  const count = Math.max(1, Math.ceil(msg.length / size))
  const out: SplitFragment[] = []
  for (let i = 0; i < count; i++) {
    const offset = i * size
    const data = msg.subarray(offset, Math.min(msg.length, offset + size))
    const spec = { startSeq: o.startSeq, count, number: i, totalLength: msg.length, offset }
    out.push({ spec, seq: o.startSeq + i, data, command: cmd.fragment(o.channel ?? 0, o.startSeq + i, spec, data, o.unsequenced) })
  }
  return out
}

/** A plausible message body: F3, msgType, then `n - 2` patterned bytes. */
export function message(n: number, msgType = 4, seed = 1): Uint8Array {
  const m = new Uint8Array(n)
  for (let i = 0; i < n; i++) m[i] = (i * 31 + seed * 17 + (i >> 8)) & 0xff
  if (n > 0) m[0] = 0xf3
  if (n > 1) m[1] = msgType
  return m
}

/** Init (41 bytes): F3 00, protocol 1.6 or 1.8, client SDK byte, library version 4.1.6.25, app id padded to 32. */
export function initMessage(minor: 6 | 8, app = 'Realtime'): Uint8Array {
  const out = new Uint8Array(41)
  out.set([0xf3, 0x00, 1, minor, 0x1e, 0x41, 0x06, 0x19, 0x00])
  out.set(Buffer.from(app), 9)
  return out
}

/** Photon's TCP frame: FB, i32 BE length of the whole frame, channel, reliable flag, then the message. */
export function tcpFrame(message: Uint8Array, channel = 0, reliable = 1): Uint8Array {
  const h = Buffer.alloc(7)
  h[0] = 0xfb
  h.writeUInt32BE(message.length + 7, 1)
  h[5] = channel
  h[6] = reliable
  return concat([h, message])
}
