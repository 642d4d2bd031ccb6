// ENet on the wire (big-endian throughout): the protocol header, the optional checksum and one command at a
// time, for vanilla ENet 1.3 and ENet-CSharp. Pure: all state (variant, connectID, fragments, reliability)
// lives with the caller. Every read goes through FieldReader; a command's fixed size and its dataLength are
// checked against the bytes left before anything of it is used.
// Reference: docs/fignet.md (lsalzman/enet protocol.h/protocol.c,
// nxrighthere/ENet-CSharp enet.h).

import { DecodeError, FieldReader } from '../../bytes/reader'
import { TreeBuilder } from '../../bytes/tree'
import type { FieldNode } from '../../model/types'
import type { FragmentHeader } from '../../net/fragments'
import { checksumPresets, enetCrc32, enetCrc64 } from './checksum'
import {
  CHECKSUM_STATUS,
  CMD,
  COMMAND_NAMES,
  F,
  F_ACK,
  F_BANDWIDTH,
  F_CMD,
  F_CMD_FIELDS,
  F_CONNECT,
  F_DISCONNECT,
  F_FRAG,
  F_HEADER,
  F_THROTTLE
} from './fields'

export { CMD, COMMAND_NAMES } from './fields'

export type EnetVariant = 'vanilla' | 'csharp'

export const VARIANT_NAMES: Record<EnetVariant, string> = { vanilla: 'vanilla ENet 1.3', csharp: 'ENet-CSharp' }

/** How a datagram is laid out: which header flags, and how many checksum bytes follow the header. */
export interface EnetLayout {
  variant: EnetVariant
  /** 0, or 4 (vanilla CRC-32) / 8 (ENet-CSharp CRC-64). */
  checksumSize: 0 | 4 | 8
}

/** Header flag bits per variant (ENet-CSharp has no compression flag). */
export const HEADER_FLAGS: Record<EnetVariant, { sentTime: number; compressed: number }> = {
  vanilla: { sentTime: 0x8000, compressed: 0x4000 },
  csharp: { sentTime: 0x4000, compressed: 0 }
}
export const PEER_ID_MASK = 0x0fff
export const SESSION_MASK = 0x3000
export const SESSION_SHIFT = 12
/** Peer id of a datagram from a peer without one yet: the CONNECT datagram. */
export const NO_PEER_ID = 0xfff

export const COMMAND_MASK = 0x0f
export const FLAG_ACKNOWLEDGE = 0x80
export const FLAG_UNSEQUENCED = 0x40
export const COMMAND_HEADER_LENGTH = 4
/** Sizes of each command including its 4-byte header (protocol.c commandSizes[]); 0 = no such command. */
export const COMMAND_SIZES: readonly number[] = [0, 8, 48, 44, 8, 4, 6, 8, 24, 8, 12, 16, 24]
/** A sender puts at most this many commands in a datagram (ENET_PROTOCOL_MAXIMUM_PACKET_COMMANDS). */
export const MAX_PACKET_COMMANDS = 32

export interface ChecksumCheck {
  size: 4 | 8
  /** Absolute offset of the field. */
  at: number
  value: number | bigint
  /** 'unverified': the connectID the preset needs was not seen. */
  status: 'good' | 'bad' | 'unverified'
  /** The value computed with the first candidate preset (for the "should be" text). */
  computed?: number | bigint
}

export interface EnetHeader {
  /** The first 16-bit word: peer id, session id and flags. */
  word: number
  peerId: number
  sessionId: number
  sentTimeFlag: boolean
  /** Vanilla only: the commands are compressed. */
  compressed: boolean
  /** Bits the variant does not define (bit 15 in ENet-CSharp). */
  undefinedBits: number
  sentTime?: number
  checksum?: ChecksumCheck
  /** Bytes from the start of the datagram to the first command (header and checksum). */
  length: number
}

export interface ConnectBody {
  outgoingPeerId: number
  incomingSessionId: number
  outgoingSessionId: number
  mtu: number
  windowSize: number
  channelCount: number
  incomingBandwidth: number
  outgoingBandwidth: number
  throttleInterval: number
  throttleAcceleration: number
  throttleDeceleration: number
  connectId: number
  /** CONNECT only. */
  data?: number
}

export interface EnetCommand {
  /** The command byte: number in the low nibble, flags in bits 6-7. */
  byte: number
  number: number
  name: string
  /** FLAG_ACKNOWLEDGE: reliable, the receiver acknowledges it. */
  acknowledge: boolean
  unsequenced: boolean
  channel: number
  reliableSeq: number
  /** Absolute offsets of the whole command (fixed part and data). */
  start: number
  end: number
  /** The data of SEND_* commands; payloadStart = payloadEnd = end for the others. */
  payloadStart: number
  payloadEnd: number
  ack?: { seq: number; sentTime: number }
  connect?: ConnectBody
  /** The connectID's bytes as sent (never byte-swapped by ENet: the checksum preset). */
  connectIdBytes?: Uint8Array
  disconnectData?: number
  unreliableSeq?: number
  unsequencedGroup?: number
  dataLength?: number
  fragment?: FragmentHeader
  bandwidth?: { incoming: number; outgoing: number }
  throttle?: { interval: number; acceleration: number; deceleration: number }
}

export function commandName(n: number): string {
  return COMMAND_NAMES[n] ?? `UNKNOWN(${n})`
}

export function carriesPayload(n: number): boolean {
  return n === CMD.SEND_RELIABLE || n === CMD.SEND_UNRELIABLE || n === CMD.SEND_UNSEQUENCED
}

export function isFragment(n: number): boolean {
  return n === CMD.SEND_FRAGMENT || n === CMD.SEND_UNRELIABLE_FRAGMENT
}

const hex = (v: number | bigint, digits: number) => '0x' + v.toString(16).padStart(digits, '0')

function openGroup(r: FieldReader, key: string, name: string, type: string, labelText: string): FieldNode | null {
  if (!r.tree.recording) return null
  return r.tree.open({ key, label: labelText || name, type, source: r.source, start: r.pos, length: 0 })
}

/**
 * Reads the protocol header (and checksum) at r.pos; the datagram runs to r.end, which is what the checksum
 * covers. `connectId`: the connection's connectID bytes when known (null: not seen, the checksum can then be
 * verified only for the CONNECT datagram, whose preset is zeros). Records an `enet.header` group.
 */
export function readHeader(r: FieldReader, layout: EnetLayout, connectId: Uint8Array | null): EnetHeader {
  const start = r.pos
  const node = openGroup(r, F_HEADER.key, F_HEADER.name, F_HEADER.type, 'ENet header')
  const flags = HEADER_FLAGS[layout.variant]
  const h: EnetHeader = { word: 0, peerId: 0, sessionId: 0, sentTimeFlag: false, compressed: false, undefinedBits: 0, length: 0 }
  try {
    if (r.remaining < 2) throw new DecodeError(`ENet header: needs 2 bytes at offset ${r.pos}, only ${r.remaining} present`, r.pos)
    const at = r.pos
    h.word = r.u16(null)
    h.peerId = h.word & PEER_ID_MASK
    h.sessionId = (h.word & SESSION_MASK) >> SESSION_SHIFT
    h.sentTimeFlag = (h.word & flags.sentTime) !== 0
    h.compressed = flags.compressed !== 0 && (h.word & flags.compressed) !== 0
    h.undefinedBits = h.word & 0xc000 & ~(flags.sentTime | flags.compressed)
    if (r.tree.recording) {
      r.record(F.peer_id, h.peerId, at, 2, h.peerId === NO_PEER_ID ? `${F.peer_id.name}: 0xFFF (none: connecting)` : undefined)
      r.record(F.session_id, h.sessionId, at, 2)
      r.record(F.sent_time_flag, h.sentTimeFlag, at, 2, `${F.sent_time_flag.name} (${hex(flags.sentTime, 4)}): ${h.sentTimeFlag ? 'set' : 'not set'}`)
      if (layout.variant === 'vanilla') r.record(F.compressed, h.compressed, at, 2, `${F.compressed.name} (0x4000): ${h.compressed ? 'set' : 'not set'}`)
    }
    if (h.sentTimeFlag) {
      if (r.remaining < 2) throw new DecodeError(`ENet header: the SENT_TIME flag is set but the sent time is cut short at offset ${r.pos}`, r.pos)
      h.sentTime = r.u16(F.sent_time)
    }
    if (layout.checksumSize) h.checksum = readChecksum(r, layout.checksumSize, start, h.peerId === NO_PEER_ID ? null : connectId, h.peerId === NO_PEER_ID)
    h.length = r.pos - start
    return h
  } finally {
    if (node && r.tree.labels) node.label = headerLabel(h, layout, r.pos - start)
    r.close()
  }
}

function readChecksum(r: FieldReader, size: 4 | 8, start: number, connectId: Uint8Array | null, presetKnown: boolean): ChecksumCheck {
  const at = r.pos
  if (r.remaining < size) throw new DecodeError(`ENet checksum: needs ${size} bytes at offset ${at}, only ${r.remaining} present`, at)
  const value = size === 4 ? r.u32(null) : r.u64(null)
  const c: ChecksumCheck = { size, at, value, status: 'unverified' }
  if (connectId || presetKnown) {
    c.status = 'bad'
    for (const preset of checksumPresets(size, connectId)) {
      const computed = size === 4 ? enetCrc32(r.bytes, start, r.end, at, preset) : enetCrc64(r.bytes, start, r.end, at, preset)
      c.computed ??= computed
      if (computed === value) {
        c.status = 'good'
        c.computed = computed
        break
      }
    }
  }
  if (r.tree.recording) {
    const def = size === 4 ? F.crc32 : F.crc64
    const digits = size * 2
    const verdict =
      c.status === 'good' ? '[correct]' : c.status === 'bad' ? `[incorrect, should be ${hex(c.computed!, digits)}]` : '[not verified: connectID not seen]'
    r.record(def, value, at, size, `${def.name}: ${hex(value, digits)} ${verdict}`)
    const status = c.status === 'good' ? CHECKSUM_STATUS.GOOD : c.status === 'bad' ? CHECKSUM_STATUS.BAD : CHECKSUM_STATUS.NOT_VERIFIED
    r.record(F.checksum_status, status, at, size)
  }
  return c
}

function headerLabel(h: EnetHeader, layout: EnetLayout, read: number): string {
  if (read < 2) return 'ENet header (truncated)'
  const peer = h.peerId === NO_PEER_ID ? 'no peer id (connecting)' : `peer ${h.peerId}, session ${h.sessionId}`
  const parts = [peer]
  if (h.sentTime !== undefined) parts.push(`sent time ${h.sentTime}`)
  if (h.compressed) parts.push('COMPRESSED')
  if (h.checksum)
    parts.push(`${h.checksum.size === 4 ? 'CRC-32' : 'CRC-64'} ${h.checksum.status === 'good' ? 'good' : h.checksum.status === 'bad' ? 'BAD' : 'not verified'}`)
  const truncated = h.length === 0 ? ' (truncated)' : ''
  return `ENet header (${VARIANT_NAMES[layout.variant]})${truncated}: ${parts.join(', ')}`
}

/**
 * Reads ONE command at r.pos into an `enet.cmd` group. Throws DecodeError (with the offset) at an unknown
 * command number, a command cut short, or a dataLength running past the datagram; the fields read so far stay
 * recorded. On success r.pos is the command's end.
 */
export function readCommand(r: FieldReader): EnetCommand {
  const start = r.pos
  const node = openGroup(r, F_CMD.key, F_CMD.name, F_CMD.type, 'ENet command')
  const c: EnetCommand = {
    byte: -1,
    number: -1,
    name: '',
    acknowledge: false,
    unsequenced: false,
    channel: 0,
    reliableSeq: 0,
    start,
    end: start,
    payloadStart: start,
    payloadEnd: start,
    // Every command has every member, so commands of all types share one object shape (the decoder's
    // reads of them stay monomorphic).
    ack: undefined,
    connect: undefined,
    connectIdBytes: undefined,
    disconnectData: undefined,
    unreliableSeq: undefined,
    unsequencedGroup: undefined,
    dataLength: undefined,
    fragment: undefined,
    bandwidth: undefined,
    throttle: undefined
  }
  let headerDone = false
  try {
    if (r.remaining < COMMAND_HEADER_LENGTH) {
      throw new DecodeError(`command header cut short: ${r.remaining} of ${COMMAND_HEADER_LENGTH} bytes at offset ${start}`, start)
    }
    c.byte = r.u8(null)
    c.number = c.byte & COMMAND_MASK
    c.name = commandName(c.number)
    c.acknowledge = (c.byte & FLAG_ACKNOWLEDGE) !== 0
    c.unsequenced = (c.byte & FLAG_UNSEQUENCED) !== 0
    if (r.tree.recording) {
      r.record(F_CMD_FIELDS.number, c.number, start, 1, `${F_CMD_FIELDS.number.name}: ${c.number} (${c.name}), byte ${hex(c.byte, 2)}`)
      r.record(F_CMD_FIELDS.ack_flag, c.acknowledge, start, 1, `${F_CMD_FIELDS.ack_flag.name} (0x80): ${c.acknowledge ? 'set' : 'not set'}`)
      r.record(F_CMD_FIELDS.unsequenced_flag, c.unsequenced, start, 1, `${F_CMD_FIELDS.unsequenced_flag.name} (0x40): ${c.unsequenced ? 'set' : 'not set'}`)
    } else r.tree.indexValue(F_CMD_FIELDS.number, c.number)
    const size = COMMAND_SIZES[c.number] ?? 0
    if (size === 0) throw new DecodeError(`unknown command number ${c.number} (byte ${hex(c.byte, 2)}) at offset ${start}`, start)
    c.channel = r.u8(F.channel)
    c.reliableSeq = r.u16(F.reliable_seq)
    headerDone = true
    const left = r.end - start
    if (size > left) throw new DecodeError(`${c.name}: needs ${size} bytes at offset ${start}, only ${left} present`, start)
    readBody(r, c)
    c.end = r.pos
    if (c.payloadStart === start) c.payloadStart = c.payloadEnd = c.end
    return c
  } finally {
    if (node && r.tree.labels) node.label = commandLabel(c, headerDone)
    r.close()
  }
}

/** The data of a SEND_* command, after checking that `dataLength` (read at `lengthAt`) fits in what is left. */
function payload(r: FieldReader, c: EnetCommand, lengthAt: number): void {
  if (c.dataLength! > r.remaining) {
    throw new DecodeError(`${c.name}: dataLength ${c.dataLength} at offset ${lengthAt} runs past the datagram (${r.remaining} bytes left)`, lengthAt)
  }
  c.payloadStart = r.pos
  r.bytesField(F.data, c.dataLength!)
  c.payloadEnd = r.pos
}

function readConnect(r: FieldReader, c: EnetCommand, withData: boolean): void {
  const body: ConnectBody = {
    outgoingPeerId: r.u16(F_CONNECT.outgoing_peer_id),
    incomingSessionId: r.u8(F_CONNECT.incoming_session_id),
    outgoingSessionId: r.u8(F_CONNECT.outgoing_session_id),
    mtu: r.u32(F_CONNECT.mtu),
    windowSize: r.u32(F_CONNECT.window_size),
    channelCount: r.u32(F_CONNECT.channel_count),
    incomingBandwidth: r.u32(F_CONNECT.incoming_bandwidth),
    outgoingBandwidth: r.u32(F_CONNECT.outgoing_bandwidth),
    throttleInterval: r.u32(F_CONNECT.throttle_interval),
    throttleAcceleration: r.u32(F_CONNECT.throttle_acceleration),
    throttleDeceleration: r.u32(F_CONNECT.throttle_deceleration),
    connectId: 0
  }
  const idAt = r.pos
  body.connectId = r.u32(null)
  c.connectIdBytes = r.bytes.slice(idAt, idAt + 4)
  if (r.tree.recording) r.record(F_CONNECT.connect_id, body.connectId, idAt, 4, `${F_CONNECT.connect_id.name}: ${hex(body.connectId, 8)}`)
  if (withData) body.data = r.u32(F_CONNECT.data)
  c.connect = body
}

function readBody(r: FieldReader, c: EnetCommand): void {
  switch (c.number) {
    case CMD.ACKNOWLEDGE:
      c.ack = { seq: r.u16(F_ACK.seq), sentTime: r.u16(F_ACK.sent_time) }
      return
    case CMD.CONNECT:
      return readConnect(r, c, true)
    case CMD.VERIFY_CONNECT:
      return readConnect(r, c, false)
    case CMD.DISCONNECT:
      c.disconnectData = r.u32(F_DISCONNECT.data)
      return
    case CMD.PING:
      return
    case CMD.SEND_RELIABLE: {
      const at = r.pos
      c.dataLength = r.u16(F.data_length)
      return payload(r, c, at)
    }
    case CMD.SEND_UNRELIABLE: {
      c.unreliableSeq = r.u16(F.unreliable_seq)
      const at = r.pos
      c.dataLength = r.u16(F.data_length)
      return payload(r, c, at)
    }
    case CMD.SEND_UNSEQUENCED: {
      c.unsequencedGroup = r.u16(F.unsequenced_group)
      const at = r.pos
      c.dataLength = r.u16(F.data_length)
      return payload(r, c, at)
    }
    case CMD.SEND_FRAGMENT:
    case CMD.SEND_UNRELIABLE_FRAGMENT: {
      const startSeq = r.u16(F_FRAG.start_seq)
      const at = r.pos
      c.dataLength = r.u16(F.data_length)
      c.fragment = {
        startSeq,
        count: r.u32(F_FRAG.count),
        number: r.u32(F_FRAG.number),
        totalLength: r.u32(F_FRAG.total_length),
        offset: r.u32(F_FRAG.offset)
      }
      return payload(r, c, at)
    }
    case CMD.BANDWIDTH_LIMIT:
      c.bandwidth = { incoming: r.u32(F_BANDWIDTH.incoming), outgoing: r.u32(F_BANDWIDTH.outgoing) }
      return
    case CMD.THROTTLE_CONFIGURE:
      c.throttle = { interval: r.u32(F_THROTTLE.interval), acceleration: r.u32(F_THROTTLE.acceleration), deceleration: r.u32(F_THROTTLE.deceleration) }
      return
  }
}

function commandLabel(c: EnetCommand, headerDone: boolean): string {
  if (c.byte < 0) return 'ENet command (truncated)'
  if (!headerDone) return `ENet command: ${c.name} (truncated)`
  const flags = `${c.acknowledge ? '|ACK' : ''}${c.unsequenced ? '|UNSEQ' : ''}`
  const head = `ENet command: ${c.name}${flags} ch${c.channel} seq=${c.reliableSeq}`
  if (c.end === c.start) return `${head} (truncated)`
  if (c.ack) return `${head} acks seq=${c.ack.seq} sent=${c.ack.sentTime}`
  if (c.connect) return `${head} mtu=${c.connect.mtu} channels=${c.connect.channelCount} connectID=${hex(c.connect.connectId, 8)}`
  if (c.fragment) {
    const f = c.fragment
    return `${head} fragment ${f.number} of ${f.count} from seq ${f.startSeq} (offset ${f.offset}, ${c.dataLength} of ${f.totalLength} bytes)`
  }
  if (c.unreliableSeq !== undefined) return `${head} useq=${c.unreliableSeq} len=${c.dataLength}`
  if (c.unsequencedGroup !== undefined) return `${head} group=${c.unsequencedGroup} len=${c.dataLength}`
  if (c.dataLength !== undefined) return `${head} len=${c.dataLength}`
  return head
}

export interface ParsedDatagram {
  layout: EnetLayout
  /** The connectID the checksum was verified with (null: not known). */
  connectId: Uint8Array | null
  /** Absent when the header itself could not be read. */
  header?: EnetHeader
  commands: EnetCommand[]
  /** Why reading stopped before the datagram's end (header or a command could not be read). */
  error?: DecodeError
  /** Vanilla COMPRESSED datagrams: the offset where the compressed commands start. */
  compressedAt?: number
}

/**
 * The tree-less builder of every scan: it keeps nothing but the index values its reads offer, dropped after
 * each scan (one builder for all instead of one per datagram and layout tried).
 */
const SCAN_TREE = new TreeBuilder(false)

/** Reads a whole datagram without a tree: header, then commands up to the end or the first error. */
export function parseDatagram(bytes: Uint8Array, layout: EnetLayout, connectId: Uint8Array | null): ParsedDatagram {
  const r = new FieldReader(bytes, SCAN_TREE, 0)
  const out: ParsedDatagram = { layout, connectId, commands: [] }
  SCAN_TREE.indexed = null
  try {
    out.header = readHeader(r, layout, connectId)
    if (out.header.compressed) {
      out.compressedAt = r.pos
      return out
    }
    while (r.remaining > 0) out.commands.push(readCommand(r))
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e
    out.error = e
  } finally {
    SCAN_TREE.indexed = null
  }
  return out
}
