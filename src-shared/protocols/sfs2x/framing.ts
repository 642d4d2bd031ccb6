// Packet framing: [header byte][shard id u16 when 0x04][length u16, or u32 when bigSized][body].
// The same parser reads a WebSocket message (one packet) and the head of a TCP byte stream, and judges
// whether bytes look like a packet start (probe, resynchronisation after lost framing).

import { isZlibHeader, isZstdMagic, walkZstd, xorPrefix } from './transforms'

export const FLAG = {
  BINARY: 0x80,
  ENCRYPTED: 0x40,
  COMPRESSED: 0x20,
  BLUEBOX: 0x10,
  BIGSIZED: 0x08,
  FORWARD: 0x04,
  RESERVED: 0x03
} as const

/** A length above this means the framing is lost (no real packet is that big). */
export const MAX_PACKET_LENGTH = 64 * 1024 * 1024

/** The JS SDK's bigSized threshold (its quirk) and the SFS2X one. */
export const JS_SDK_BIG_THRESHOLD = 65335
export const SFS2X_BIG_THRESHOLD = 65535

export interface PacketHeader {
  byte: number
  binary: boolean
  encrypted: boolean
  compressed: boolean
  blueBoxed: boolean
  bigSized: boolean
  forward: boolean
  reserved: number
  shard: number | null
  length: number
  /** Header byte + shard id + length field. */
  headerSize: number
}

export type HeaderResult = { kind: 'ok'; header: PacketHeader } | { kind: 'need'; need: number } | { kind: 'bad'; reason: string }

/** Random access to bytes (a Uint8Array window, or the head of a ByteStream). */
export interface ByteSource {
  readonly length: number
  at(i: number): number
}

export function arraySource(b: Uint8Array, offset = 0, end = b.length): ByteSource {
  return { length: Math.max(0, end - offset), at: (i) => b[offset + i] }
}

export function hex2(b: number): string {
  return `0x${b.toString(16).padStart(2, '0')}`
}

/** Parses the header at `src[at]`. Bad: no binary bit, or an absurd length. */
export function parseHeader(src: ByteSource, at = 0, requireBinary = true, maxLength = MAX_PACKET_LENGTH): HeaderResult {
  if (src.length < at + 1) return { kind: 'need', need: at + 1 }
  const byte = src.at(at)
  if (requireBinary && !(byte & FLAG.BINARY)) return { kind: 'bad', reason: `header byte ${hex2(byte)} has no binary bit (0x80)` }
  const forward = (byte & FLAG.FORWARD) !== 0
  const bigSized = (byte & FLAG.BIGSIZED) !== 0
  const headerSize = 1 + (forward ? 2 : 0) + (bigSized ? 4 : 2)
  if (src.length < at + headerSize) return { kind: 'need', need: at + headerSize }
  let p = at + 1
  let shard: number | null = null
  if (forward) {
    shard = (src.at(p) << 8) | src.at(p + 1)
    p += 2
  }
  const length = bigSized ? ((src.at(p) << 24) | (src.at(p + 1) << 16) | (src.at(p + 2) << 8) | src.at(p + 3)) >>> 0 : (src.at(p) << 8) | src.at(p + 1)
  if (length > maxLength) return { kind: 'bad', reason: `length ${length} is absurd (above ${maxLength})` }
  return {
    kind: 'ok',
    header: {
      byte,
      binary: (byte & FLAG.BINARY) !== 0,
      encrypted: (byte & FLAG.ENCRYPTED) !== 0,
      compressed: (byte & FLAG.COMPRESSED) !== 0,
      blueBoxed: (byte & FLAG.BLUEBOX) !== 0,
      bigSized,
      forward,
      reserved: byte & FLAG.RESERVED,
      shard,
      length,
      headerSize
    }
  }
}

/** Which bigSized rule a packet's length field implies. */
export type LengthRule = 'short' | 'short-over-js' | 'sfs2x' | 'js-sdk' | 'unneeded'

export function lengthRule(h: Pick<PacketHeader, 'bigSized' | 'length'>): LengthRule {
  if (!h.bigSized) return h.length > JS_SDK_BIG_THRESHOLD ? 'short-over-js' : 'short'
  if (h.length > SFS2X_BIG_THRESHOLD) return 'sfs2x'
  if (h.length > JS_SDK_BIG_THRESHOLD) return 'js-sdk'
  return 'unneeded'
}

export function lengthRuleText(rule: LengthRule): string {
  switch (rule) {
    case 'short':
      return '2-byte length'
    case 'short-over-js':
      return '2-byte length: ≤ 65535 (SFS2X); the JS SDK would have used 4 bytes above 65335'
    case 'sfs2x':
      return '4-byte length: > 65535 (SFS2X)'
    case 'js-sdk':
      return '4-byte length: > 65335 only (JS SDK quirk)'
    case 'unneeded':
      return '4-byte length although ≤ 65335 (neither rule needs it)'
  }
}

/** Does a (decrypted/de-XORed) body start like one: SFSObject/SFSArray, zlib header, Zstandard magic? */
export function strongStart(b: Uint8Array, h: PacketHeader): boolean {
  if (b.length >= 2 && (b[0] === 0x12 || b[0] === 0x11) && b[1] === 0x00) return true
  if (b.length >= 2 && h.compressed && isZlibHeader(b[0], b[1])) return true
  if ((h.blueBoxed || h.compressed) && (isZstdMagic(b, 0) || isZstdMagic(b, 4))) return true
  return false
}

/** Bytes of the body start needed to judge it. */
const START_BYTES = 8

/**
 * Whether `src[at]` starts a plausible packet: binary bit, no reserved bits, a sane length, and a body
 * that starts like an SFSObject, a zlib or Zstandard stream, as is or after the Last War XOR (or, with
 * `decryptFirstBlock`, after AES). 'need' when more bytes are required to tell.
 */
export function plausiblePacketAt(src: ByteSource, at: number, decryptFirstBlock?: (block: Uint8Array) => Uint8Array | null): 'yes' | 'no' | 'need' {
  const r = parseHeader(src, at)
  if (r.kind === 'need') return 'need'
  if (r.kind === 'bad') return 'no'
  const h = r.header
  if (h.reserved || h.length < 3) return 'no'
  const bodyAt = at + h.headerSize
  const want = Math.min(h.length, h.encrypted && decryptFirstBlock ? 16 : START_BYTES)
  if (src.length < bodyAt + want) return 'need'
  const start = new Uint8Array(want)
  for (let i = 0; i < want; i++) start[i] = src.at(bodyAt + i)
  if (strongStart(start, h) || strongStart(xorPrefix(start, h.length, want), h)) return 'yes'
  if (h.encrypted && decryptFirstBlock && h.length % 16 === 0 && want === 16) {
    const plain = decryptFirstBlock(start)
    if (plain && strongStart(plain, h)) return 'yes'
  }
  return 'no'
}

/**
 * Extra bytes after `length` that belong to the packet: a layout reported for Last War server pushes
 * (KeepALifeUS/sfs2x-py, unverified) puts a 4-byte decompressed size before the Zstandard frame without
 * counting it in the length. Detected from the frame itself: with 0x10 set and the magic 4 bytes into
 * the body, the Zstandard frame's own block structure says whether it ends at `length` or 4 bytes later.
 * Returns 0 or 4, or 'need' when more bytes are needed to tell.
 */
export function uncountedZstdPrefix(src: Uint8Array, bodyAt: number, h: PacketHeader, final: boolean): 0 | 4 | 'need' {
  if (!h.blueBoxed || h.length < 8) return 0
  if (src.length < bodyAt + 8) return final ? 0 : 'need'
  if (!isZstdMagic(src, bodyAt + 4)) return 0
  const counted = walkZstd(src.subarray(bodyAt + 4, Math.min(src.length, bodyAt + h.length)), 0, true)
  if (counted.ok) return 0
  if (!counted.needMore) return 0
  if (src.length < bodyAt + h.length + 4) return final ? 0 : 'need'
  const uncounted = walkZstd(src.subarray(bodyAt + 4, bodyAt + h.length + 4), 0, true)
  return uncounted.ok && uncounted.end === h.length ? 4 : 0
}
