// Photon UDP transport (ENet-style, big-endian): the datagram header (plain, with CRC, or the datagram-
// encrypted envelope) and one command at a time. Pure and cheap: all state (fragments, reliability) lives
// in fragments.ts and reliability.ts. Every read goes through FieldReader; command lengths are checked
// against the command's fixed size and the bytes left before anything is read from the body.
// Reference: docs/photon.md; docs/photon.md.

import { DecodeError, type FieldReader } from '../../bytes/reader'
import type { FieldDef } from '../../bytes/fields'
import { label as fieldLabel } from '../../bytes/tree'
import type { FieldScalar } from '../../model/types'
import { photonCrcRange } from './crc'
import type { FragmentHeader } from '../../net/fragments'
import { CMD, COMMAND_NAMES, DISCONNECT_REASON_NAMES, F, F_ACK, F_CMD, F_CMD_FIELDS, F_CONNECT, F_DISCONNECT, F_FRAG, F_HEADER, F_VERIFY } from './udp-fields'

export { CMD, COMMAND_NAMES } from './udp-fields'
export { photonCrc, photonCrcRange } from './crc'

export const HEADER_LENGTH = 12
export const CRC_HEADER_LENGTH = 16
/** Outer header of a datagram-encrypted packet: peerId i16, flags 0x01, challenge i32. */
export const ENCRYPTED_HEADER_LENGTH = 7
/** Inner header of the decrypted plaintext: commandCount u8, sentTime i32. */
export const DECRYPTED_HEADER_LENGTH = 5
export const HMAC_LENGTH = 32
export const COMMAND_HEADER_LENGTH = 12
export const FLAGS_PLAIN = 0x00
export const FLAGS_CRC = 0xcc
export const FLAGS_ENCRYPTED = 0x01
/** Offset of the CRC field in a datagram with flags 0xCC. */
export const CRC_OFFSET = 12

export interface PhotonHeader {
  peerId: number
  flags: number
  crcPresent: boolean
  datagramEncrypted: boolean
  /** 0 for a datagram-encrypted packet (the count is inside the encrypted blob). */
  commandCount: number
  /** 0 for a datagram-encrypted packet. */
  sentTime: number
  /** Unsigned 32-bit. */
  challenge: number
  crc?: { value: number; computed: number; ok: boolean }
  /** 12 plain, 16 with CRC, 7 for the datagram-encrypted envelope (commands follow at start + headerLength, except encrypted). */
  headerLength: number
  /** Datagram-encrypted only: absolute offsets of the AES blob (16-byte IV first) and of the HMAC. */
  encrypted?: { blobStart: number; blobEnd: number; hmacStart: number; hmacEnd: number }
  /** Something odd that did not stop the read (unknown flags value, blob not a whole number of AES blocks). */
  warning?: string
}

export interface PhotonConnectBody {
  reserved: number
  mtu: number
  windowSize: number
  channelCount: number
  incomingBandwidth: number
  outgoingBandwidth: number
  throttleInterval: number
  throttleAcceleration: number
  throttleDeceleration: number
}

/** A Photon fragment header has exactly the shape the shared assembler takes. */
export type PhotonFragmentHeader = FragmentHeader

export interface PhotonCommand {
  type: number
  typeName: string
  channel: number
  flags: number
  reserved: number
  length: number
  reliableSeq: number
  /** Absolute offsets of the whole command in the reader's bytes. */
  start: number
  end: number
  /** Where the body after the 12-byte command header starts (start + 12). */
  bodyStart: number
  /** Message bytes for 6/7/11/14, fragment data for 8/15; empty (payloadStart = payloadEnd = end) otherwise. */
  payloadStart: number
  payloadEnd: number
  ack?: { seq: number; sentTime: number }
  unreliableSeq?: number
  unsequencedGroup?: number
  fragment?: PhotonFragmentHeader
  connect?: PhotonConnectBody
  verifyPeerId?: number
  /** VERIFYCONNECT body after the peer id, as observed (the client ignores it); present when the body holds it. */
  verify?: { mtu: number; windowSize: number; channelCount: number }
  disconnectReason?: number
  /** Bytes inside the command's length beyond its known layout (fixed-size commands only). */
  extraBytes?: number
}

/** The smallest valid length (header included) of a command of `type`. Unknown types: the 12-byte header. */
export function commandMinLength(type: number): number {
  switch (type) {
    case CMD.ACK:
    case CMD.ACK_UNSEQUENCED:
      return 20
    case CMD.CONNECT:
      return 44
    case CMD.VERIFYCONNECT:
      return 14
    case CMD.SEND_UNRELIABLE:
    case CMD.SEND_UNSEQUENCED:
      return 16
    case CMD.SEND_FRAGMENT:
    case CMD.SEND_FRAGMENT_UNSEQUENCED:
      return 32
    default:
      return 12
  }
}

export function commandName(type: number): string {
  return COMMAND_NAMES[type] ?? `UNKNOWN(${type})`
}

/** True for the commands whose payload is one whole message (6, 7, 11, 14). */
export function carriesMessage(type: number): boolean {
  return type === CMD.SEND_RELIABLE || type === CMD.SEND_UNRELIABLE || type === CMD.SEND_UNSEQUENCED || type === CMD.SEND_RELIABLE_UNSEQUENCED
}

export function isFragment(type: number): boolean {
  return type === CMD.SEND_FRAGMENT || type === CMD.SEND_FRAGMENT_UNSEQUENCED
}

export function isAck(type: number): boolean {
  return type === CMD.ACK || type === CMD.ACK_UNSEQUENCED
}

const hex = (v: number, digits: number) => '0x' + (v >>> 0).toString(16).padStart(digits, '0')

function peerIdLabel(v: number): string {
  const base = fieldLabel(F.peer_id, v)
  return F.peer_id.names?.[v] !== undefined ? base : `${base} (${hex(v & 0xffff, 4)})`
}

/**
 * Records `v`, just read from `at` to r.pos without recording, with a custom label (built only when
 * recording). The labels are module functions, so the index pass (which re-reads a datagram's header for
 * each command) makes no closure per field.
 */
function recorded<T extends FieldScalar>(r: FieldReader, def: FieldDef, at: number, v: T, labelFn: (v: T) => string): T {
  if (r.tree.recording) r.record(def, v, at, r.pos - at, labelFn(v))
  return v
}

const flagsLabel = (v: number) => `${F.flags.name}: ${hex(v, 2)}${F.flags.names?.[v] ? ` (${F.flags.names[v]})` : ''}`
const challengeLabel = (v: number) => `${F.challenge.name}: ${hex(v, 8)}`
function commandFlagsLabel(v: number): string {
  const n = F_CMD_FIELDS.flags.names?.[v]
  return `${F_CMD_FIELDS.flags.name}: ${hex(v, 2)}${n ? ` (${n})` : ''}`
}
const verifyPeerIdLabel = (v: number) => `${F_VERIFY.peer_id.name}: ${v} (${hex(v & 0xffff, 4)})`

/**
 * Reads the datagram header at r.pos; the datagram runs to r.end (the CRC covers exactly that window).
 * Flags 0x01: the datagram-encrypted envelope (peerId, flags, challenge, AES blob, 32-byte HMAC at the end);
 * the reader is then left at r.end and commandCount is 0. Records a `photon.header` group. `scanned` is
 * this same header read before from the same bytes (its computed CRC is reused).
 */
export function readHeader(r: FieldReader, scanned?: PhotonHeader): PhotonHeader {
  const start = r.pos
  const node = r.open(F_HEADER, 'Photon UDP header')
  const h: PhotonHeader = {
    peerId: 0,
    flags: 0,
    crcPresent: false,
    datagramEncrypted: false,
    commandCount: 0,
    sentTime: 0,
    challenge: 0,
    headerLength: HEADER_LENGTH
  }
  try {
    h.peerId = recorded(r, F.peer_id, r.pos, r.i16(null), peerIdLabel)
    h.flags = recorded(r, F.flags, r.pos, r.u8(null), flagsLabel)
    if (h.flags === FLAGS_ENCRYPTED) {
      h.datagramEncrypted = true
      h.headerLength = ENCRYPTED_HEADER_LENGTH
      h.challenge = recorded(r, F.challenge, r.pos, r.u32(null), challengeLabel)
      if (r.remaining < HMAC_LENGTH) {
        throw new DecodeError(`datagram-encrypted packet: needs a ${HMAC_LENGTH}-byte HMAC at the end, only ${r.remaining} bytes after the header`, r.pos)
      }
      const blobLength = r.remaining - HMAC_LENGTH
      const blobStart = r.pos
      r.bytesField(F.encrypted_datagram, blobLength)
      const hmacStart = r.pos
      r.bytesField(F.hmac, HMAC_LENGTH)
      h.encrypted = { blobStart, blobEnd: blobStart + blobLength, hmacStart, hmacEnd: hmacStart + HMAC_LENGTH }
      if (blobLength < 32 || blobLength % 16 !== 0) {
        h.warning = `encrypted blob of ${blobLength} bytes is not a 16-byte IV plus whole AES blocks`
      }
    } else {
      h.commandCount = r.u8(F.command_count)
      h.sentTime = r.u32(F.sent_time)
      h.challenge = recorded(r, F.challenge, r.pos, r.u32(null), challengeLabel)
      if (h.flags === FLAGS_CRC) {
        h.crcPresent = true
        h.headerLength = CRC_HEADER_LENGTH
        const at = r.pos
        const value = r.u32(null)
        // A datagram's header is read once per command it holds: the CRC over the datagram is computed once.
        const computed = scanned?.crc ? scanned.crc.computed : photonCrcRange(r.bytes, start, r.end, at)
        const ok = value === computed
        h.crc = { value, computed, ok }
        if (r.tree.recording) {
          r.record(F.crc, value, at, 4, `${F.crc.name}: ${hex(value, 8)} ${ok ? '[correct]' : `[incorrect, should be ${hex(computed, 8)}]`}`)
          r.record(F.crc_status, ok ? 1 : 0, at, 4)
        }
      } else if (h.flags !== FLAGS_PLAIN) {
        h.warning = `unknown header flags ${hex(h.flags, 2)}: read as a plain 12-byte header`
      }
    }
    return h
  } finally {
    if (node && r.tree.labels) node.label = headerLabel(h, r.pos - start)
    r.close()
  }
}

function headerLabel(h: PhotonHeader, read: number): string {
  const peer = `peer ${h.peerId}`
  if (read < 3) return `Photon UDP header (truncated): ${peer}`
  if (h.datagramEncrypted) {
    const blob = h.encrypted ? `, ${h.encrypted.blobEnd - h.encrypted.blobStart}-byte blob` : ' (truncated)'
    return `Photon UDP header (datagram encrypted): ${peer}, challenge ${hex(h.challenge, 8)}${blob}`
  }
  if (read < h.headerLength) return `Photon UDP header (truncated): ${peer}`
  const n = `${h.commandCount} command${h.commandCount === 1 ? '' : 's'}`
  const crc = h.crc ? `, CRC ${h.crc.ok ? 'good' : 'BAD'}` : ''
  return `Photon UDP header: ${peer}, ${n}, sent ${h.sentTime}${crc}`
}

/**
 * Reads the 5-byte inner header of a decrypted datagram (commandCount u8, sentTime i32) at r.pos, recording
 * the same `photon.command_count` / `photon.sent_time` fields as a plain header. Commands follow it.
 */
export function readDecryptedHeader(r: FieldReader): { commandCount: number; sentTime: number; headerLength: number } {
  const commandCount = r.u8(F.command_count)
  const sentTime = r.u32(F.sent_time)
  return { commandCount, sentTime, headerLength: DECRYPTED_HEADER_LENGTH }
}

/**
 * Reads ONE command at r.pos into a `photon.cmd` group. Throws DecodeError (with the offset) when the header
 * is cut short, its length is below 12 or below its type's fixed size, or runs past r.end; the fields read
 * so far stay recorded. On success r.pos is the command's end.
 */
export function readCommand(r: FieldReader): PhotonCommand {
  const start = r.pos
  const node = r.open(F_CMD, 'Command') // without a tree, the index keeps that the message has a command
  const c: PhotonCommand = {
    type: -1,
    typeName: '',
    channel: 0,
    flags: 0,
    reserved: 0,
    length: 0,
    reliableSeq: 0,
    start,
    end: start,
    bodyStart: start + COMMAND_HEADER_LENGTH,
    payloadStart: start,
    payloadEnd: start,
    // Every command has every member, so commands of all types share one object shape (the decoder's
    // reads of them stay monomorphic).
    ack: undefined,
    unreliableSeq: undefined,
    unsequencedGroup: undefined,
    fragment: undefined,
    connect: undefined,
    verifyPeerId: undefined,
    verify: undefined,
    disconnectReason: undefined,
    extraBytes: undefined
  }
  let headerDone = false
  try {
    c.type = r.u8(F_CMD_FIELDS.type)
    c.typeName = commandName(c.type)
    c.channel = r.u8(F.channel)
    c.flags = recorded(r, F_CMD_FIELDS.flags, r.pos, r.u8(null), commandFlagsLabel)
    c.reserved = r.u8(c.type === CMD.DISCONNECT ? F_DISCONNECT.reason : F_CMD_FIELDS.reserved)
    if (c.type === CMD.DISCONNECT) c.disconnectReason = c.reserved
    const lengthAt = r.pos
    c.length = r.i32(F_CMD_FIELDS.length)
    c.reliableSeq = r.i32(F_CMD_FIELDS.seq)
    headerDone = true

    const left = r.end - start
    if (c.length < COMMAND_HEADER_LENGTH) {
      throw new DecodeError(`${c.typeName}: command length ${c.length} is less than the ${COMMAND_HEADER_LENGTH}-byte command header`, lengthAt)
    }
    const min = commandMinLength(c.type)
    if (c.length < min) throw new DecodeError(`${c.typeName}: command length ${c.length} is less than the ${min} bytes this type needs`, lengthAt)
    if (c.length > left) {
      throw new DecodeError(`${c.typeName}: command length ${c.length} runs past the datagram (${left} bytes left from offset ${start})`, lengthAt)
    }
    c.end = start + c.length
    c.payloadStart = c.payloadEnd = c.end
    const b = r.sub(c.length - COMMAND_HEADER_LENGTH, 'command body')
    readBody(b, c)
    return c
  } finally {
    if (node && r.tree.labels) node.label = commandLabel(c, headerDone)
    r.close()
  }
}

function readBody(b: FieldReader, c: PhotonCommand): void {
  switch (c.type) {
    case CMD.ACK:
    case CMD.ACK_UNSEQUENCED:
      c.ack = { seq: b.i32(F_ACK.seq), sentTime: b.u32(F_ACK.sent_time) }
      break
    case CMD.CONNECT:
      c.connect = {
        reserved: b.u16(F_CONNECT.reserved),
        mtu: b.u16(F_CONNECT.mtu),
        windowSize: b.u32(F_CONNECT.window_size),
        channelCount: b.u32(F_CONNECT.channel_count),
        incomingBandwidth: b.u32(F_CONNECT.incoming_bandwidth),
        outgoingBandwidth: b.u32(F_CONNECT.outgoing_bandwidth),
        throttleInterval: b.u32(F_CONNECT.throttle_interval),
        throttleAcceleration: b.u32(F_CONNECT.throttle_acceleration),
        throttleDeceleration: b.u32(F_CONNECT.throttle_deceleration)
      }
      break
    case CMD.VERIFYCONNECT: {
      c.verifyPeerId = recorded(b, F_VERIFY.peer_id, b.pos, b.i16(null), verifyPeerIdLabel)
      if (b.remaining >= 10) {
        c.verify = { mtu: b.u16(F_VERIFY.mtu), windowSize: b.u32(F_VERIFY.window_size), channelCount: b.u32(F_VERIFY.channel_count) }
      }
      // The observed body is 32 bytes: whatever of it is left is "rest", anything beyond is extra.
      const rest = Math.min(b.remaining, Math.max(0, 32 - (b.pos - c.bodyStart)))
      if (rest > 0) b.bytesField(F_VERIFY.rest, rest)
      break
    }
    case CMD.SEND_RELIABLE:
    case CMD.SEND_RELIABLE_UNSEQUENCED:
      payload(b, c, F_CMD_FIELDS.payload)
      return
    case CMD.SEND_UNRELIABLE:
      c.unreliableSeq = b.i32(F.unreliable_seq)
      payload(b, c, F_CMD_FIELDS.payload)
      return
    case CMD.SEND_UNSEQUENCED:
      c.unsequencedGroup = b.i32(F.unsequenced_group)
      payload(b, c, F_CMD_FIELDS.payload)
      return
    case CMD.SEND_FRAGMENT:
    case CMD.SEND_FRAGMENT_UNSEQUENCED:
      c.fragment = {
        startSeq: b.i32(F_FRAG.start_seq),
        count: b.i32(F_FRAG.count),
        number: b.i32(F_FRAG.number),
        totalLength: b.i32(F_FRAG.total_length),
        offset: b.i32(F_FRAG.offset)
      }
      payload(b, c, F_FRAG.data)
      return
    case CMD.DISCONNECT:
    case CMD.PING:
    case CMD.SERVERTIME:
      break
    default:
      // 13 (layout unconfirmed) and unknown types: the body as bytes; no message payload.
      if (b.remaining > 0) b.bytesField(F_CMD_FIELDS.payload, b.remaining)
      return
  }
  if (b.remaining > 0) {
    c.extraBytes = b.remaining
    b.bytesField(F_CMD_FIELDS.extra, b.remaining)
  }
}

function payload(b: FieldReader, c: PhotonCommand, def: FieldDef): void {
  c.payloadStart = b.pos
  c.payloadEnd = b.end
  b.bytesField(def, b.remaining)
}

function commandLabel(c: PhotonCommand, headerDone: boolean): string {
  if (c.type < 0) return 'Command (truncated)'
  const name = c.typeName
  if (!headerDone) return `Command: ${name} (truncated)`
  const ch = `ch=${c.channel}`
  const len = `len=${c.length}`
  switch (c.type) {
    case CMD.ACK:
    case CMD.ACK_UNSEQUENCED:
      return c.ack ? `Command: ${name} ${ch} acks seq=${c.ack.seq} sent=${c.ack.sentTime}` : `Command: ${name} ${ch} ${len}`
    case CMD.CONNECT:
      return c.connect
        ? `Command: ${name} ${ch} seq=${c.reliableSeq} mtu=${c.connect.mtu} channels=${c.connect.channelCount}`
        : `Command: ${name} ${ch} seq=${c.reliableSeq} ${len}`
    case CMD.VERIFYCONNECT:
      return `Command: ${name} ${ch} seq=${c.reliableSeq}${c.verifyPeerId !== undefined ? ` peer=${c.verifyPeerId}` : ` ${len}`}`
    case CMD.DISCONNECT: {
      const reason = DISCONNECT_REASON_NAMES[c.reserved]
      return `Command: ${name} ${ch} reason=${c.reserved}${reason ? ` (${reason})` : ''}`
    }
    case CMD.SEND_UNRELIABLE:
      return `Command: ${name} ${ch} seq=${c.reliableSeq}${c.unreliableSeq !== undefined ? ` useq=${c.unreliableSeq}` : ''} ${len}`
    case CMD.SEND_UNSEQUENCED:
      return `Command: ${name} ${ch}${c.unsequencedGroup !== undefined ? ` group=${c.unsequencedGroup}` : ''} ${len}`
    case CMD.SEND_FRAGMENT:
    case CMD.SEND_FRAGMENT_UNSEQUENCED: {
      const f = c.fragment
      if (!f) return `Command: ${name} ${ch} seq=${c.reliableSeq} ${len}`
      return `Command: ${name} ${ch} seq=${c.reliableSeq} fragment #${f.number} of ${f.count} from seq ${f.startSeq} (offset ${f.offset}, ${c.payloadEnd - c.payloadStart} of ${f.totalLength} bytes)`
    }
    default:
      return `Command: ${name} ${ch} seq=${c.reliableSeq} ${len}`
  }
}
