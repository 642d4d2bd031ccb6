// An independent ENet encoder for the transport tests, written from docs/fignet.md (Transports; Codecs and
// ENet on the wire), after ENet's protocol.h / protocol.c and ENet-CSharp's enet.h, not from the decoder: datagram headers for vanilla ENet
// (SENT_TIME 0x8000, COMPRESSED 0x4000, optional CRC-32) and ENet-CSharp (SENT_TIME 0x4000, optional CRC-64),
// every command, and payloads split into fragments. CRC-32 comes from node:zlib; CRC-64 is computed bit by bit
// from the polynomial (checked against ENet-CSharp's published table and the CRC-64/REDIS check value).
import zlib from 'node:zlib'

export type Variant = 'vanilla' | 'csharp'

export const C = {
  ACKNOWLEDGE: 1,
  CONNECT: 2,
  VERIFY_CONNECT: 3,
  DISCONNECT: 4,
  PING: 5,
  SEND_RELIABLE: 6,
  SEND_UNRELIABLE: 7,
  SEND_FRAGMENT: 8,
  SEND_UNSEQUENCED: 9,
  BANDWIDTH_LIMIT: 10,
  THROTTLE_CONFIGURE: 11,
  SEND_UNRELIABLE_FRAGMENT: 12
} as const
const ACK_FLAG = 0x80
const UNSEQ_FLAG = 0x40

const be16 = (v: number) => [(v >> 8) & 0xff, v & 0xff]
const be32 = (v: number) => [(v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff]

export function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

function cmd(byte: number, channel: number, seq: number, body: number[], data?: Uint8Array): Uint8Array {
  const head = Uint8Array.from([byte, channel, ...be16(seq), ...body])
  return data ? concat([head, data]) : head
}

export const ack = (channel: number, seq: number, sentTime: number) => cmd(C.ACKNOWLEDGE, channel, seq, [...be16(seq), ...be16(sentTime)])

export interface ConnectSpec {
  seq?: number
  outgoingPeerId?: number
  mtu?: number
  windowSize?: number
  channels?: number
  connectId: number
  data?: number
}

function connectBody(k: ConnectSpec): number[] {
  return [
    ...be16(k.outgoingPeerId ?? 0),
    0,
    0,
    ...be32(k.mtu ?? 1400),
    ...be32(k.windowSize ?? 65536),
    ...be32(k.channels ?? 4),
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    ...be32(5000),
    ...be32(2),
    ...be32(2),
    ...be32(k.connectId)
  ]
}

export const connect = (k: ConnectSpec) => cmd(C.CONNECT | ACK_FLAG, 0xff, k.seq ?? 1, [...connectBody(k), ...be32(k.data ?? 0)])
export const verifyConnect = (k: ConnectSpec) => cmd(C.VERIFY_CONNECT | ACK_FLAG, 0xff, k.seq ?? 1, connectBody(k))
export const disconnect = (seq: number, data = 0) => cmd(C.DISCONNECT | ACK_FLAG, 0xff, seq, be32(data))
export const ping = (seq: number) => cmd(C.PING | ACK_FLAG, 0xff, seq, [])
export const reliable = (channel: number, seq: number, data: Uint8Array) => cmd(C.SEND_RELIABLE | ACK_FLAG, channel, seq, be16(data.length), data)
export const unreliable = (channel: number, seq: number, useq: number, data: Uint8Array) =>
  cmd(C.SEND_UNRELIABLE, channel, seq, [...be16(useq), ...be16(data.length)], data)
export const unsequenced = (channel: number, group: number, data: Uint8Array) =>
  cmd(C.SEND_UNSEQUENCED | UNSEQ_FLAG, channel, 0, [...be16(group), ...be16(data.length)], data)
export const bandwidthLimit = (seq: number, incoming: number, outgoing: number) =>
  cmd(C.BANDWIDTH_LIMIT | ACK_FLAG, 0xff, seq, [...be32(incoming), ...be32(outgoing)])
export const throttleConfigure = (seq: number, interval: number, acc: number, dec: number) =>
  cmd(C.THROTTLE_CONFIGURE | ACK_FLAG, 0xff, seq, [...be32(interval), ...be32(acc), ...be32(dec)])

export interface FragmentSpec {
  reliable: boolean
  channel: number
  /** Reliable: the fragment's own reliable seq; unreliable: the channel's current reliable seq. */
  seq: number
  startSeq: number
  count: number
  number: number
  totalLength: number
  offset: number
  data: Uint8Array
  /** Overrides dataLength. */
  dataLength?: number
}

export function fragment(f: FragmentSpec): Uint8Array {
  const byte = f.reliable ? C.SEND_FRAGMENT | ACK_FLAG : C.SEND_UNRELIABLE_FRAGMENT
  return cmd(
    byte,
    f.channel,
    f.seq,
    [...be16(f.startSeq), ...be16(f.dataLength ?? f.data.length), ...be32(f.count), ...be32(f.number), ...be32(f.totalLength), ...be32(f.offset)],
    f.data
  )
}

/**
 * A payload split as enet_peer_send does: pieces of `mtu - 4 - 24` bytes (vanilla; ENet-CSharp also keeps 8
 * bytes for an ACK and 8 for a CRC-64); reliable fragments take consecutive reliable seqs from `seq`,
 * unreliable ones all carry the channel's reliable seq and `startSeq` = the new unreliable seq.
 */
export function split(payload: Uint8Array, o: { reliable: boolean; channel: number; seq: number; startSeq?: number; fragmentSize: number }): FragmentSpec[] {
  const count = Math.ceil(payload.length / o.fragmentSize)
  const out: FragmentSpec[] = []
  for (let n = 0; n < count; n++) {
    const offset = n * o.fragmentSize
    out.push({
      reliable: o.reliable,
      channel: o.channel,
      seq: o.reliable ? o.seq + n : o.seq,
      startSeq: o.reliable ? o.seq : (o.startSeq ?? 1),
      count,
      number: n,
      totalLength: payload.length,
      offset,
      data: payload.subarray(offset, Math.min(payload.length, offset + o.fragmentSize))
    })
  }
  return out
}

// ---- CRC-64 from the polynomial ----

const MASK64 = (1n << 64n) - 1n
/** Reflected CRC-64, bit by bit. ENet-CSharp: poly 0x95AC9329AC4BC9B5 (reflected Jones), init and xorout all-ones. */
export function crc64Bitwise(bytes: Uint8Array, init = MASK64, xorout = MASK64, poly = 0x95ac9329ac4bc9b5n): bigint {
  let crc = init
  for (const b of bytes) {
    crc ^= BigInt(b)
    for (let k = 0; k < 8; k++) crc = crc & 1n ? (crc >> 1n) ^ poly : crc >> 1n
  }
  return (crc ^ xorout) & MASK64
}

/** The table entry ENet-CSharp's crcTable[i] holds for this polynomial. */
export function crc64TableEntry(i: number, poly = 0x95ac9329ac4bc9b5n): bigint {
  let c = BigInt(i)
  for (let k = 0; k < 8; k++) c = c & 1n ? (c >> 1n) ^ poly : c >> 1n
  return c
}

// ---- datagrams ----

export interface HeaderSpec {
  variant: Variant
  peerId: number
  sessionId?: number
  /** Present: the SENT_TIME flag is set and the time follows. */
  sentTime?: number
  /** Vanilla only: sets bit 14 (the bytes after the header are taken as they are). */
  compressed?: boolean
  checksum?: boolean
  /** The checksum preset: the connectID's wire bytes (zeros when absent, as for CONNECT). */
  connectId?: number
  /** ENet-CSharp on a big-endian host widens the preset the other way round. */
  bigEndianHost?: boolean
  /** Writes this instead of the right checksum. */
  checksumOverride?: number | bigint
}

export function datagram(h: HeaderSpec, commands: Uint8Array[]): Uint8Array {
  const sentBit = h.variant === 'vanilla' ? 0x8000 : 0x4000
  let word = (h.peerId & 0xfff) | ((h.sessionId ?? 0) << 12)
  if (h.sentTime !== undefined) word |= sentBit
  if (h.compressed) word |= 0x4000
  const head = [...be16(word), ...(h.sentTime !== undefined ? be16(h.sentTime) : [])]
  const size = h.checksum ? (h.variant === 'vanilla' ? 4 : 8) : 0
  const body = concat(commands)
  const out = concat([Uint8Array.from(head), new Uint8Array(size), body])
  if (!size) return out
  // Preset the field as the C code does, compute over the whole datagram, then write the result big-endian.
  const preset = new Uint8Array(size)
  if (h.connectId !== undefined) preset.set(be32(h.connectId), size === 8 && h.bigEndianHost ? 4 : 0)
  out.set(preset, head.length)
  const view = new DataView(out.buffer)
  if (size === 4) {
    const v = h.checksumOverride !== undefined ? Number(h.checksumOverride) : zlib.crc32(out)
    view.setUint32(head.length, v >>> 0)
  } else {
    const v = h.checksumOverride !== undefined ? BigInt(h.checksumOverride) : crc64Bitwise(out)
    view.setBigUint64(head.length, v)
  }
  return out
}

/** A FigNet-like envelope: u16 LE message id, flags byte, then `body`. */
export function envelope(msgId: number, flags: number, body: Uint8Array | number[] = []): Uint8Array {
  return Uint8Array.from([msgId & 0xff, msgId >> 8, flags, ...body])
}
