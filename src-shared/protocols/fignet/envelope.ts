// The FigNet envelope (porting guide §2): little-endian u16 message id, then a flags byte (bit 7 encrypted,
// bits 0–6 callback id; 0 = fire-and-forget), then the payload. With EnableCheckSum the current runtime puts
// the 2-byte magic 0xC0DE (written LE: DE C0) in front; the public v1.0.6 binaries declare HASH_SIZE = 4
// instead (a 4-byte prefix, probably xxHash32 — not verified). Which form a conversation uses is told
// apart from the bytes and said in the tree.

import type { FieldReader } from '../../bytes/reader'
import { defineFields } from '../../bytes/fields'
import { ENTANGLE_CHANNELS, MESSAGE_NAMES, messageInfo } from './names'

export const MAGIC = 0xc0de
export const HEADER_SIZE = 3
export const HASH_SIZE = 4

export const F_ENV = defineFields('fignet', {
  envelope: ['FigNet envelope', 'none'],
  magic: ['Magic', 'u16', { names: { [MAGIC]: 'EnableCheckSum magic' }, description: '0xC0DE before the header when EnableCheckSum is on (current runtime)' }],
  hash: ['Hash prefix', 'u32', { description: '4-byte prefix of older builds (v1.0.6 HASH_SIZE = 4; probably xxHash32, not verified)' }],
  msg_id: ['Message id', 'u16', { names: MESSAGE_NAMES, index: true }],
  flags: ['Flags', 'u8'],
  encrypted: ['Encrypted', 'bool', { index: true }],
  callback_id: ['Callback id', 'u8', { description: '0 = fire-and-forget; 1..127 pairs a request with its reply', index: true }],
  channel: ['Channel', 'u8', { names: ENTANGLE_CHANNELS, index: true }],
  delivery: ['Delivery', 'string', { index: true }],
  ciphertext: ['Encrypted payload', 'bytes'],
  nonce: ['Nonce', 'bytes'],
  tag: ['Poly1305 tag', 'bytes'],
  crypto_layout: ['Encryption layout', 'string'],
  decrypted: ['Decrypted payload', 'bytes'],
  response_to: ['Reply to frame', 'u32'],
  security: ['Security finding', 'string']
})

export type Prefix = 'none' | 'magic' | 'hash'

export interface Envelope {
  prefix: Prefix
  msgId: number
  flags: number
  encrypted: boolean
  callbackId: number
  /** Where the header starts and the payload starts, in the reader's buffer. */
  headerStart: number
  payloadStart: number
}

const known = (id: number) => messageInfo(id) !== undefined

/**
 * Which prefix the bytes at `at` carry: the magic when they start DE C0 and a header follows; the 4-byte
 * hash when the id after it is a known one and the id at the start is not; else none.
 */
export function detectPrefix(b: Uint8Array, at = 0): Prefix {
  const u16 = (i: number) => b[i] | (b[i + 1] << 8)
  const n = b.length - at
  if (n >= 2 + HEADER_SIZE && u16(at) === MAGIC) return 'magic'
  if (n >= HASH_SIZE + HEADER_SIZE && !known(u16(at)) && known(u16(at + HASH_SIZE))) return 'hash'
  return 'none'
}

/** Reads the envelope header (and its prefix) through `r`; the payload is left for the caller. */
export function readEnvelope(r: FieldReader, prefix: Prefix): Envelope {
  if (prefix === 'magic') r.u16(F_ENV.magic, true)
  else if (prefix === 'hash') r.u32(F_ENV.hash, true)
  const headerStart = r.pos
  const msgId = r.u16(F_ENV.msg_id, true)
  const flagsAt = r.pos
  const flags = r.u8(null)
  const encrypted = (flags & 0x80) !== 0
  const callbackId = flags & 0x7f
  r.open(F_ENV.flags, `Flags: 0x${flags.toString(16).padStart(2, '0')}`, flags)
  r.record(F_ENV.encrypted, encrypted, flagsAt, 1, () => `Encrypted (bit 7): ${encrypted}`)
  r.record(F_ENV.callback_id, callbackId, flagsAt, 1, () => `Callback id (bits 0–6): ${callbackId}${callbackId === 0 ? ' (fire-and-forget)' : ''}`)
  r.tree.close(flagsAt + 1)
  return { prefix, msgId, flags, encrypted, callbackId, headerStart, payloadStart: r.pos }
}

/** 0..100: how much these bytes look like a FigNet envelope (a known message id, a sane flags byte). */
export function envelopeLikelihood(b: Uint8Array): number {
  const prefix = detectPrefix(b)
  const at = prefix === 'magic' ? 2 : prefix === 'hash' ? HASH_SIZE : 0
  if (b.length < at + HEADER_SIZE) return 0
  const id = b[at] | (b[at + 1] << 8)
  if (!known(id)) return 0
  return prefix === 'none' ? 70 : 90
}
