// LiteNetLib packets on the wire (all multi-byte values little-endian): the two property tables, one
// reader per packet type, and the splitting of Merged / ReliableMerged packets into their items.
// Pure: conversation state (version choice, fragments, ACKs) lives in version.ts and decoder.ts.
// References: docs/fignet.md; RevenantX/LiteNetLib NetPacket.cs,
// InternalPackets.cs, ReliableChannel.cs, SequencedChannel.cs, NetPeer.cs (0.9 layouts: the 0.9-line copy
// with ProtocolId 11, NetConnectRequestPacket.HeaderSize 14, NetConnectAcceptPacket.Size 11).

import { DecodeError, type FieldReader } from '../../bytes/reader'
import type { FieldDef } from '../../bytes/fields'
import type { FieldScalar } from '../../model/types'
import { ipv4ToString, ipv6ToString } from '../../net/ip'
import { DELIVERY_NAMES, F, F_ADDRESS, F_PACKET } from './fields'

export type Version = '0.9' | '1.x' | '2.x'
/** 'v1': the property table of 0.9 and 1.x; 'v2': 2.x, with ReliableMerged inserted at 2. */
export type Table = 'v1' | 'v2'

export type Kind =
  | 'Unreliable'
  | 'Channeled'
  | 'ReliableMerged'
  | 'Ack'
  | 'Ping'
  | 'Pong'
  | 'ConnectRequest'
  | 'ConnectAccept'
  | 'Disconnect'
  | 'UnconnectedMessage'
  | 'MtuCheck'
  | 'MtuOk'
  | 'Broadcast'
  | 'Merged'
  | 'ShutdownOk'
  | 'PeerNotFound'
  | 'InvalidProtocol'
  | 'NatMessage'
  | 'Empty'

const TABLE_V1: readonly Kind[] = [
  'Unreliable',
  'Channeled',
  'Ack',
  'Ping',
  'Pong',
  'ConnectRequest',
  'ConnectAccept',
  'Disconnect',
  'UnconnectedMessage',
  'MtuCheck',
  'MtuOk',
  'Broadcast',
  'Merged',
  'ShutdownOk',
  'PeerNotFound',
  'InvalidProtocol',
  'NatMessage',
  'Empty'
]
const TABLE_V2: readonly Kind[] = [...TABLE_V1.slice(0, 2), 'ReliableMerged', ...TABLE_V1.slice(2)]

export const tableOf = (v: Version): Table => (v === '2.x' ? 'v2' : 'v1')
export const TABLE_NAMES: Record<Table, string> = { v1: '0.9/1.x table', v2: '2.x table' }

export function kindOf(table: Table, property: number): Kind | undefined {
  return (table === 'v1' ? TABLE_V1 : TABLE_V2)[property]
}

export function propertyOf(table: Table, kind: Kind): number {
  return (table === 'v1' ? TABLE_V1 : TABLE_V2).indexOf(kind)
}

export const PROTOCOL_ID_09 = 11
export const PROTOCOL_ID_1X = 13
export const MAX_SEQUENCE = 32768
export const CHANNELED_HEADER = 4
export const FRAGMENT_HEADER = 6
export const PONG_SIZE = 11
const ACCEPT_SIZE_09 = 11
const ACCEPT_SIZE_1X = 15
const MAX_CONNECTION_NUMBER = 4
/** Ack link nodes written per Ack at most (a hostile bitfield can ack thousands of sequences). */
export const MAX_ACK_LIST = 64

export interface Range {
  start: number
  end: number
}

/** One item of a ReliableMerged packet: a u16 size at sizeAt, then that many payload bytes. */
export interface MergedItem extends Range {
  sizeAt: number
  index: number
}

export interface SocketAddressValue {
  family: number
  port: number
  ip: string
  text: string
}

export interface LnlPacket {
  start: number
  end: number
  property: number
  kind?: Kind
  connectionNumber: number
  fragmented: boolean
  sequence?: number
  channelId?: number
  channel?: number
  /** DeliveryMethod number (0..3 from the channel id; 4 = Unreliable). */
  delivery?: number
  fragment?: { id: number; part: number; total: number; data: Range }
  /** Bytes handed to the protocol above (Unreliable, Channeled, UnconnectedMessage, Broadcast, a ReliableMerged item). */
  payload?: Range
  ack?: { kind: 'window'; windowStart: number; windowSize: number; acked: number[] } | { kind: 'sequenced'; sequence: number }
  pingSequence?: number
  pong?: { sequence: number; time: bigint }
  connect?: {
    protocolId: number
    connectionTime: bigint
    peerId?: number
    addressSize?: number
    address?: SocketAddressValue
    key?: string
    data?: Range
  }
  accept?: { connectionTime: bigint; connectionNumber: number; flag: number; peerId?: number }
  disconnect?: { connectionTime: bigint; data?: Range }
  mtu?: { value: number; end: number; ok: boolean }
  /** Odd things that did not stop the read. */
  notes: string[]
}

/** A packet with every member present: packets of all kinds share one object shape (monomorphic reads). */
export function newPacket(start: number, end: number): LnlPacket {
  return {
    start,
    end,
    property: -1,
    kind: undefined,
    connectionNumber: 0,
    fragmented: false,
    sequence: undefined,
    channelId: undefined,
    channel: undefined,
    delivery: undefined,
    fragment: undefined,
    payload: undefined,
    ack: undefined,
    pingSequence: undefined,
    pong: undefined,
    connect: undefined,
    accept: undefined,
    disconnect: undefined,
    mtu: undefined,
    notes: []
  }
}

export function deliveryName(delivery: number | undefined): string {
  return delivery === undefined ? '' : (DELIVERY_NAMES[delivery] ?? `Delivery ${delivery}`)
}

/** Reads a value without recording, then records it with a custom label (built only when recording). */
function recorded<T extends FieldScalar>(r: FieldReader, def: FieldDef, size: number, read: () => T, labelFn: (v: T) => string): T {
  const at = r.pos
  const v = read()
  if (r.tree.recording) r.record(def, v, at, size, labelFn(v))
  return v
}

/** .NET DateTime ticks (100 ns since 0001-01-01 UTC) at the Unix epoch. */
const TICKS_AT_UNIX_EPOCH = 621355968000000000n

/** Reads an i64 of DateTime ticks, labelled with the UTC time when it is a plausible one. */
function ticks(r: FieldReader, def: FieldDef): bigint {
  return recorded(
    r,
    def,
    8,
    () => r.i64(null, true),
    (v) => {
      const ms = Number((v - TICKS_AT_UNIX_EPOCH) / 10000n)
      const when = ms > 0 && ms < 8.64e15 ? ` (${new Date(ms).toISOString()})` : ''
      return `${def.name}: ${v}${when}`
    }
  )
}

/** The first byte of every packet: property (bits 0-4), connection number (5-6), fragmented (7). */
export function readFirstByte(r: FieldReader, table: Table, p: LnlPacket): void {
  const at = r.pos
  const b = r.u8(null)
  p.property = b & 0x1f
  p.connectionNumber = (b >> 5) & 3
  p.fragmented = (b & 0x80) !== 0
  p.kind = kindOf(table, p.property)
  if (r.tree.recording) {
    const name = p.kind ?? 'unknown'
    r.record(F.property, p.property, at, 1, `Packet property: ${p.property} (${name} in the ${TABLE_NAMES[table]})`)
    r.record(F.property_name, name, at, 1)
    r.record(F.connection_number, p.connectionNumber, at, 1)
    r.record(F.fragmented, p.fragmented, at, 1)
  }
}

export interface ReadOptions {
  /** ReliableMerged: the one item this message shows (the others are their own messages). */
  item?: MergedItem
}

/**
 * Reads one packet: the reader's window [r.pos, r.end) is exactly the packet. Fills `p` as it goes (so the
 * caller keeps what was read when it throws) inside a `litenetlib.packet` group. Throws DecodeError, with
 * the offset, when the packet is shorter than its type needs or a length/size field does not fit.
 */
export function readPacket(r: FieldReader, version: Version, p: LnlPacket, opts: ReadOptions = {}): LnlPacket {
  const table = tableOf(version)
  const node = r.open(F_PACKET)
  try {
    readFirstByte(r, table, p)
    if (!p.kind)
      throw new DecodeError(
        `unknown packet property ${p.property} (the ${TABLE_NAMES[table]} has 0..${(table === 'v1' ? TABLE_V1 : TABLE_V2).length - 1})`,
        p.start
      )
    if (p.fragmented && p.kind !== 'Channeled') p.notes.push(`fragmented bit set on a ${p.kind} packet (only Channeled packets are fragmented; ignored)`)
    readBody(r, version, p, opts)
    return p
  } finally {
    if (node && r.tree.labels) node.label = packetLabel(p, version)
    r.tree.close(r.pos)
  }
}

function readBody(r: FieldReader, version: Version, p: LnlPacket, opts: ReadOptions): void {
  switch (p.kind) {
    case 'Unreliable':
      p.delivery = 4
      p.channel = 0
      return payload(r, p, F.payload)
    case 'UnconnectedMessage':
    case 'Broadcast':
      return payload(r, p, F.payload)
    case 'Channeled':
      readChanneledHeader(r, p)
      if (p.fragmented) {
        r.need(FRAGMENT_HEADER, 'fragment header')
        const id = r.u16(F.fragment_id, true)
        const part = r.u16(F.fragment_part, true)
        const total = r.u16(F.fragment_total, true)
        const data = { start: r.pos, end: r.end }
        p.fragment = { id, part, total, data }
        r.bytesField(F.fragment_data, r.remaining)
        return
      }
      return payload(r, p, F.payload)
    case 'ReliableMerged':
      readChanneledHeader(r, p)
      if (opts.item) {
        r.pos = opts.item.sizeAt
        r.u16(F.merged_size, true)
        p.payload = { start: opts.item.start, end: opts.item.end }
        r.bytesField(F.payload, opts.item.end - opts.item.start)
        r.pos = r.end // the other items are shown by their own messages
      }
      return
    case 'Ack':
      return readAck(r, p)
    case 'Ping':
      p.pingSequence = r.u16(F.ping_sequence, true)
      return extra(r, p, 'Ping')
    case 'Pong':
      p.pong = { sequence: r.u16(F.pong_sequence, true), time: ticks(r, F.pong_time) }
      return extra(r, p, 'Pong')
    case 'ConnectRequest':
      return readConnectRequest(r, version, p)
    case 'ConnectAccept':
      readAccept(r, p, version)
      return extra(r, p, 'ConnectAccept')
    case 'PeerNotFound':
      // 1.x/2.x reuse it, with ConnectAccept's 15-byte layout and byte 10 = 1, for "network changed".
      if (r.remaining >= ACCEPT_SIZE_1X - 1) readAccept(r, p, '1.x')
      return extra(r, p, 'PeerNotFound')
    case 'Disconnect': {
      const connectionTime = ticks(r, F.connection_time)
      p.disconnect = { connectionTime }
      if (r.remaining > 0) {
        p.disconnect.data = { start: r.pos, end: r.end }
        r.bytesField(F.disconnect_data, r.remaining)
      }
      return
    }
    case 'MtuCheck':
    case 'MtuOk':
      return readMtu(r, p)
    case 'NatMessage':
      if (r.remaining > 0) r.bytesField(F.nat_data, r.remaining)
      return
    case 'Merged':
      // Split by splitMerged(); a Merged item that is itself Merged is not something LiteNetLib sends.
      throw new DecodeError('a Merged packet inside a Merged packet', p.start)
    case 'ShutdownOk':
    case 'InvalidProtocol':
    case 'Empty':
      return extra(r, p, p.kind)
  }
}

function readChanneledHeader(r: FieldReader, p: LnlPacket): void {
  r.need(CHANNELED_HEADER - 1, `${p.kind} header`)
  p.sequence = r.u16(F.sequence, true)
  if (p.sequence >= MAX_SEQUENCE) p.notes.push(`sequence ${p.sequence} is not below MaxSequence ${MAX_SEQUENCE} (the receiver drops it)`)
  readChannelId(r, p)
}

/** The channel id byte: channel number × 4 + delivery method, both shown as fields over that byte. */
function readChannelId(r: FieldReader, p: LnlPacket): void {
  const at = r.pos
  p.channelId = r.u8(F.channel_id)
  p.channel = p.channelId >> 2
  p.delivery = p.channelId & 3
  if (r.tree.recording) {
    r.record(F.channel, p.channel, at, 1)
    r.record(F.delivery, p.delivery, at, 1)
  }
}

function payload(r: FieldReader, p: LnlPacket, def: FieldDef): void {
  p.payload = { start: r.pos, end: r.end }
  r.bytesField(def, r.remaining)
}

function extra(r: FieldReader, p: LnlPacket, what: string): void {
  if (r.remaining <= 0) return
  p.notes.push(`${r.remaining} bytes after the ${what} packet's fixed layout`)
  r.bytesField(F.extra, r.remaining)
}

/**
 * ReliableChannel acks: header (window start as the sequence, channel id) + bitfield where bit (seq % window)
 * marks a received seq of [windowStart, windowStart + window); the window is 64 by default, giving
 * (64 - 1) / 8 + 2 = 9 bytes, so window = (bitfield bytes - 1) * 8. SequencedChannel (ReliableSequenced)
 * acks are the 4-byte header alone with the sequence of the packet received.
 */
function readAck(r: FieldReader, p: LnlPacket): void {
  r.need(CHANNELED_HEADER - 1, 'Ack header')
  const bits = r.remaining - (CHANNELED_HEADER - 1)
  const sequence = r.u16(bits === 0 ? F.ack_sequence : F.ack_window_start, true)
  p.sequence = sequence
  readChannelId(r, p)
  if (bits === 0) {
    p.ack = { kind: 'sequenced', sequence }
    if (p.delivery !== 3) p.notes.push(`a header-only Ack is a ReliableSequenced ack, but channel id ${p.channelId} is ${deliveryName(p.delivery)}`)
    return
  }
  if (bits < 2) {
    p.notes.push(`${bits} byte after the Ack header: neither a header-only ack nor a window bitfield`)
    r.bytesField(F.extra, bits)
    return
  }
  if (sequence >= MAX_SEQUENCE) p.notes.push(`window start ${sequence} is not below MaxSequence ${MAX_SEQUENCE} (the sender ignores this Ack)`)
  if (p.delivery === 1 || p.delivery === 3)
    p.notes.push(`a window Ack on a ${deliveryName(p.delivery)} channel id ${p.channelId} (ReliableChannel acks are for ReliableUnordered/ReliableOrdered)`)
  const windowSize = (bits - 1) * 8
  const at = r.pos
  const field = r.bytesField(F.ack_bitfield, bits)
  if (r.tree.recording) r.record(F.ack_window_size, windowSize, at, bits, `${F.ack_window_size.name}: ${windowSize}${windowSize === 64 ? ' (default)' : ''}`)
  const acked: number[] = []
  for (let k = 0; k < windowSize; k++) {
    const seq = (sequence + k) % MAX_SEQUENCE
    const idx = seq % windowSize
    if (field[idx >> 3] & (1 << (idx & 7))) acked.push(seq)
  }
  p.ack = { kind: 'window', windowStart: sequence, windowSize, acked }
  if (r.tree.recording) {
    const shown = acked.slice(0, MAX_ACK_LIST).join(', ')
    r.record(
      F.ack_acked,
      shown + (acked.length > MAX_ACK_LIST ? `, … (${acked.length})` : ''),
      at,
      bits,
      `${F.ack_acked.name}: ${acked.length ? shown : 'none'}${acked.length > MAX_ACK_LIST ? `, … (${acked.length} in all)` : ''}`
    )
  }
}

/** Connect layouts: 0.9 (protocol id 11) has no peer id and a 14-byte header; 1.x/2.x (13) an 18-byte one. */
function readConnectRequest(r: FieldReader, version: Version, p: LnlPacket): void {
  const protocolId = r.i32(F.protocol_id, true)
  const connectionTime = ticks(r, F.connection_time)
  p.connect = { protocolId, connectionTime }
  const layout09 = protocolId === PROTOCOL_ID_09 || (protocolId !== PROTOCOL_ID_1X && version === '0.9')
  if (!layout09) p.connect.peerId = r.i32(F.peer_id, true)
  const sizeAt = r.pos
  const addressSize = r.u8(F.address_size)
  p.connect.addressSize = addressSize
  if (addressSize !== 16 && addressSize !== 28) {
    throw new DecodeError(
      `ConnectRequest: address size ${addressSize} at offset ${sizeAt} is neither 16 (IPv4) nor 28 (IPv6); LiteNetLib rejects the request`,
      sizeAt
    )
  }
  p.connect.address = readSocketAddress(r.sub(addressSize, 'target address'), addressSize)
  if (r.remaining > 0) {
    p.connect.data = { start: r.pos, end: r.end }
    p.connect.key = readConnectKey(r, layout09, p)
  }
}

/**
 * The target's .NET SocketAddress: family (u16 LE; macOS keeps a length byte first), port big-endian at 2,
 * IPv4 at 4 + 8 zero bytes, or IPv6 flow info at 4, address at 8, scope id (LE) at 24.
 */
function readSocketAddress(r: FieldReader, size: number): SocketAddressValue {
  const group = F_ADDRESS
  const start = r.pos
  const node = r.tree.recording ? r.tree.open({ key: group.key, label: group.name, type: group.type, source: r.source, start, length: size }) : null
  const b = r.bytes
  const bsd = b[start] === size && (b[start + 1] === 2 || b[start + 1] === 30)
  const family = bsd ? b[start + 1] : b[start] | (b[start + 1] << 8)
  r.record(F.address_family, family, start, 2)
  r.pos += 2
  const port = r.u16(F.address_port)
  let ip: string
  if (size === 16) {
    ip = ipv4ToString(b, r.pos)
    r.record(F.address_ip, ip, r.pos, 4)
    r.pos += 4
    r.bytesField(F.address_bytes, r.remaining)
  } else {
    r.u32(F.address_flowinfo)
    ip = ipv6ToString(b, r.pos)
    r.record(F.address_ip, ip, r.pos, 16)
    r.pos += 16
    r.u32(F.address_scope, true)
  }
  const text = size === 16 ? `${ip}:${port}` : `[${ip}]:${port}`
  if (node) {
    if (r.tree.labels) node.label = `${group.name}: ${text}`
    node.value = text
  }
  r.tree.close(r.pos)
  return { family, port, ip, text }
}

/**
 * The connect data as a NetDataWriter string, the usual connection key: 1.x/2.x write u16 (UTF-8 length + 1,
 * 0 = empty), 0.9 an i32 UTF-8 length. When the version's form does not fit, the other is tried; when
 * neither does, the data stays bytes. Bytes after the string are shown as connect data.
 */
function readConnectKey(r: FieldReader, layout09: boolean, p: LnlPacket): string | undefined {
  const at = r.pos
  const left = r.remaining
  const b = r.bytes
  const len16 = left >= 2 ? b[at] | (b[at + 1] << 8) : -1
  const fits16 = len16 === 0 || (len16 > 0 && len16 - 1 <= left - 2)
  const len32 = left >= 4 ? b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24) : -1
  const fits32 = left >= 4 && len32 >= 0 && len32 <= left - 4
  const use16 = layout09 ? !fits32 && fits16 : fits16
  const use32 = !use16 && fits32
  let key: string | undefined
  if (use16) {
    const n = r.u16(null, true)
    if (r.tree.recording) r.record(F.key_length, n, at, 2, `${F.key_length.name}: ${n} (u16: UTF-8 length + 1${n === 0 ? ', empty' : ''})`)
    key = n === 0 ? '' : r.utf8(F.key, n - 1)
    if (layout09) p.notes.push('connect key written as a 1.x NetDataWriter string (u16 length + 1) in a 0.9 ConnectRequest')
  } else if (use32) {
    const n = r.i32(null, true)
    if (r.tree.recording) r.record(F.key_length, n, at, 4, `${F.key_length.name}: ${n} (i32 UTF-8 length)`)
    key = r.utf8(F.key, n)
    if (!layout09) p.notes.push('connect key written as a 0.9 NetDataWriter string (i32 length) in a 1.x ConnectRequest')
  } else {
    p.notes.push('connect data is not a NetDataWriter string')
  }
  if (r.remaining > 0) r.bytesField(F.connect_data, r.remaining)
  return key
}

/** ConnectAccept (and PeerNotFound "network changed"): time, connection number, flag, and from 1.x the peer id. */
function readAccept(r: FieldReader, p: LnlPacket, version: Version): void {
  const connectionTime = ticks(r, F.connection_time)
  const numAt = r.pos
  const connectionNumber = r.u8(F.accept_connection_number)
  if (connectionNumber >= MAX_CONNECTION_NUMBER)
    p.notes.push(`connection number ${connectionNumber} at offset ${numAt} is not below ${MAX_CONNECTION_NUMBER} (the client rejects it)`)
  const flag = r.u8(F.reused_peer)
  if (flag > 1) p.notes.push(`reused/network-changed byte ${flag} is neither 0 nor 1 (the client rejects it)`)
  p.accept = { connectionTime, connectionNumber, flag }
  // 0.9 has 11 bytes and no peer id; 1.x/2.x 15 with it. The size decides, whatever the version guess says.
  if (r.remaining >= 4) p.accept.peerId = r.i32(F.peer_id, true)
  else if (version !== '0.9' && p.kind === 'ConnectAccept') p.notes.push(`an ${ACCEPT_SIZE_09}-byte ConnectAccept is the 0.9 layout (no peer id)`)
}

function readMtu(r: FieldReader, p: LnlPacket): void {
  r.need(8, `${p.kind} body`)
  const value = r.i32(F.mtu, true)
  if (r.remaining > 4) r.bytesField(F.mtu_padding, r.remaining - 4)
  const end = r.i32(F.mtu_end, true)
  const size = p.end - p.start
  const ok = value === size && end === size
  p.mtu = { value, end, ok }
  if (!ok) p.notes.push(`broken ${p.kind}: MTU ${value}, end check ${end}, packet size ${size} (all three must be equal)`)
}

export function packetLabel(p: LnlPacket, version: Version): string {
  if (p.property < 0) return 'LiteNetLib packet (empty)'
  if (!p.kind) return `LiteNetLib packet: unknown property ${p.property} (${version})`
  const ch = p.channelId !== undefined ? ` ch=${p.channel} ${deliveryName(p.delivery)}` : ''
  const seq = p.sequence !== undefined ? ` seq=${p.sequence}` : ''
  const size = ` (${p.end - p.start} bytes)`
  switch (p.kind) {
    case 'Channeled':
      if (p.fragment) return `LiteNetLib Channeled${ch}${seq} fragment id ${p.fragment.id} part ${p.fragment.part + 1}/${p.fragment.total}${size}`
      return `LiteNetLib Channeled${ch}${seq}${size}`
    case 'ReliableMerged':
      return `LiteNetLib ReliableMerged${ch}${seq}${size}`
    case 'Ack':
      if (p.ack?.kind === 'window') return `LiteNetLib Ack${ch} window ${p.ack.windowStart}+${p.ack.windowSize}: ${p.ack.acked.length} acked${size}`
      if (p.ack?.kind === 'sequenced') return `LiteNetLib Ack${ch} seq=${p.ack.sequence}${size}`
      return `LiteNetLib Ack${ch}${size}`
    case 'Ping':
      return `LiteNetLib Ping${p.pingSequence !== undefined ? ` seq=${p.pingSequence}` : ''}${size}`
    case 'Pong':
      return `LiteNetLib Pong${p.pong ? ` seq=${p.pong.sequence}` : ''}${size}`
    case 'ConnectRequest':
      return `LiteNetLib ConnectRequest${p.connect ? ` protocol ${p.connect.protocolId}` : ''}${p.connect?.address ? ` to ${p.connect.address.text}` : ''}${size}`
    case 'MtuCheck':
    case 'MtuOk':
      return `LiteNetLib ${p.kind}${p.mtu ? ` mtu=${p.mtu.value}` : ''}${size}`
    default:
      return `LiteNetLib ${p.kind}${size}`
  }
}

// ---- splitting ----

export interface MergedSplit {
  /** Each inner packet with the offset of its u16 size. */
  items: MergedItem[]
  /** A size that does not fit (the items before it stay good). */
  error?: DecodeError
  /** Where the zero size that ends the list was, if any, and what followed it. */
  endAt?: number
  trailing: number
}

/**
 * A Merged packet at [r.pos, r.end): its first byte, then repeated u16 size + a whole inner packet; a zero
 * size ends it (the receiver stops there too). Reads without recording (the caller re-reads per item).
 */
export function splitMerged(r: FieldReader): MergedSplit {
  const out: MergedSplit = { items: [], trailing: 0 }
  r.skip(1, 'Merged header')
  while (r.pos < r.end) {
    const sizeAt = r.pos
    if (r.remaining < 2) {
      out.error = new DecodeError(`Merged packet: 1 byte at offset ${sizeAt} where an item size (2 bytes) should start`, sizeAt)
      return out
    }
    const size = r.u16(null, true)
    if (size === 0) {
      out.endAt = sizeAt
      out.trailing = r.remaining
      return out
    }
    if (size > r.remaining) {
      out.error = new DecodeError(
        `Merged packet: item ${out.items.length + 1} size ${size} at offset ${sizeAt} runs past the datagram (${r.remaining} bytes left)`,
        sizeAt
      )
      return out
    }
    out.items.push({ sizeAt, start: r.pos, end: r.pos + size, index: out.items.length })
    r.pos += size
  }
  return out
}

/** ReliableMerged (2.x) payload items after the 4-byte header; a zero or oversized size ends the list (corrupted). */
export function splitReliableMerged(r: FieldReader): MergedSplit {
  const out: MergedSplit = { items: [], trailing: 0 }
  r.skip(CHANNELED_HEADER, 'ReliableMerged header')
  while (r.remaining >= 2) {
    const sizeAt = r.pos
    const size = r.u16(null, true)
    if (size === 0 || size > r.remaining) {
      out.error = new DecodeError(
        `ReliableMerged packet: item ${out.items.length + 1} size ${size} at offset ${sizeAt} ${size === 0 ? 'is zero' : `runs past the packet (${r.remaining} bytes left)`}; the receiver drops the rest`,
        sizeAt
      )
      return out
    }
    out.items.push({ sizeAt, start: r.pos, end: r.pos + size, index: out.items.length })
    r.pos += size
  }
  out.trailing = r.remaining
  return out
}
