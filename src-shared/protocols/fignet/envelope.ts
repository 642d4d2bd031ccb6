// The FigNet envelope (docs/fignet.md, guide §2): little-endian u16 message id, then a flags byte (bit 7 encrypted,
// bits 0–6 callback id; 0 = fire-and-forget), then the payload. With EnableCheckSum the current runtime puts
// the 2-byte magic 0xC0DE (written LE: DE C0) in front; the public v1.0.6 binaries declare HASH_SIZE = 4
// instead (a 4-byte prefix, probably xxHash32 — not verified). Which form each message uses is decided by
// PrefixChooser from the evidence of the conversation's messages (docs/fignet.md, "Where the guide is
// ambiguous") and said in the tree.

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
  security: ['Security finding', 'string'],
  prefix_form: ['Prefix form', 'string', { description: 'Which envelope prefix the message was read with (none, magic, hash) and why' }],
  handshake: ['Handshake order', 'string', { description: "A message out of the guide's handshake order (RegisterIdentity, its reply, AppKey)" }]
})

export type Prefix = 'none' | 'magic' | 'hash'

export interface Envelope {
  prefix: Prefix
  /** The 2-byte prefix as read (form 'magic'); 0xC0DE when it is right. */
  magic: number | null
  msgId: number
  flags: number
  encrypted: boolean
  callbackId: number
  /** Where the header starts and the payload starts, in the reader's buffer. */
  headerStart: number
  payloadStart: number
}

const known = (id: number) => messageInfo(id) !== undefined
const u16le = (b: Uint8Array, i: number) => b[i] | (b[i + 1] << 8)

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

const hex2 = (v: number) => `${(v & 0xff).toString(16).padStart(2, '0').toUpperCase()} ${(v >> 8).toString(16).padStart(2, '0').toUpperCase()}`

/**
 * Reads the envelope header (and its prefix) through `r`; the payload is left for the caller. A magic
 * other than 0xC0DE is read as what it is and reported through `warn` (providers drop such messages, §2.2).
 */
export function readEnvelope(r: FieldReader, prefix: Prefix, warnings?: { warn(text: string): void }): Envelope {
  let magic: number | null = null
  if (prefix === 'magic') {
    r.need(2, F_ENV.magic.name)
    const at = r.pos
    magic = r.u16(null, true)
    const m = magic
    const wrong = m !== MAGIC
    r.record(
      F_ENV.magic,
      m,
      at,
      2,
      r.tree.labels
        ? `Magic: 0x${m.toString(16).toUpperCase().padStart(4, '0')}${wrong ? ` (wrong: expected 0xC0DE, DE C0 on the wire)` : ' (EnableCheckSum magic)'}`
        : undefined
    )
    if (wrong)
      warnings?.warn(
        `EnableCheckSum magic: bytes ${hex2(m)} (0x${m.toString(16).toUpperCase().padStart(4, '0')}) seen, 0xC0DE (DE C0) expected; the providers drop messages whose magic does not match`
      )
  } else if (prefix === 'hash') r.u32(F_ENV.hash, true)
  const headerStart = r.pos
  const msgId = r.u16(F_ENV.msg_id, true)
  const flagsAt = r.pos
  const flags = r.u8(null)
  const encrypted = (flags & 0x80) !== 0
  const callbackId = flags & 0x7f
  // Every message passes here: labels only with a tree, as strings (a closure would cost a context per call).
  const labels = r.tree.labels
  r.open(F_ENV.flags, labels ? `Flags: 0x${flags.toString(16).padStart(2, '0')}` : undefined, flags)
  r.record(F_ENV.encrypted, encrypted, flagsAt, 1, labels ? `Encrypted (bit 7): ${encrypted}` : undefined)
  r.record(
    F_ENV.callback_id,
    callbackId,
    flagsAt,
    1,
    labels ? `Callback id (bits 0–6): ${callbackId}${callbackId === 0 ? ' (fire-and-forget)' : ''}` : undefined
  )
  r.tree.close(flagsAt + 1)
  return { prefix, magic, msgId, flags, encrypted, callbackId, headerStart, payloadStart: r.pos }
}

// ---- which prefix form a message carries ----

export const PREFIX_SIZE: Readonly<Record<Prefix, number>> = { none: 0, magic: 2, hash: HASH_SIZE }
/** Tie order after the conversation's current form: the guide's forms before the 4-byte one (v1.0.6 only). */
const FORMS: readonly Prefix[] = ['magic', 'none', 'hash']

/** How the payload after a candidate header reads: 0 not at all, 1 decodes but empty (or cannot be checked), 2 with fields. */
export type PayloadFit = 0 | 1 | 2

export interface PrefixDecision {
  prefix: Prefix
  /** Why this form was taken, for the tree (built only when asked). */
  why: () => string
  /** The conversation's form changed with this message (a later message contradicted the earlier choice). */
  revisedFrom: Prefix | null
}

interface Candidate {
  form: Prefix
  id: number
  known: boolean
  score: number
}

const FORM_TEXT: Readonly<Record<Prefix, string>> = {
  none: 'no prefix (§2.1)',
  magic: '2-byte magic prefix (EnableCheckSum, §2.2)',
  hash: '4-byte prefix (v1.0.6 HASH_SIZE = 4)'
}

/**
 * Decides each message's prefix form from evidence across the conversation: which forms give a registered
 * message id, whether the payload after that header decodes, the 0xC0DE bytes. The guide's forms are
 * preferred; the 4-byte form of old 1.0.6 binaries is taken only when a message's payload decodes with
 * fields under it, or two messages agree, and more messages support it than the guide's forms. A message
 * whose evidence points elsewhere than the current form revises it.
 */
export class PrefixChooser {
  current: Prefix | null = null
  private readonly votes: Record<Prefix, number> = { none: 0, magic: 0, hash: 0 }

  /**
   * The message is bytes[start, end); `fit(at)` dry-runs the payload of the header at `at` (counted from
   * `start`; the caller knows the codecs). Runs for every message: no subarray, closure or array beyond
   * the candidates themselves (and the decision's why).
   */
  choose(bytes: Uint8Array, start: number, end: number, fit: (headerAt: number) => PayloadFit): PrefixDecision {
    const cands: Candidate[] = []
    let knownCount = 0
    for (const form of FORMS) {
      const at = PREFIX_SIZE[form]
      if (end - start < at + HEADER_SIZE) continue
      const exact = form === 'magic' && u16le(bytes, start) === MAGIC
      // A prefix other than DE C0 is read as a (wrong) magic only in a conversation already using that form.
      if (form === 'magic' && !exact && this.current !== 'magic') continue
      const id = u16le(bytes, start + at)
      const isKnown = known(id)
      if (!isKnown && !exact) continue
      if (isKnown) knownCount++
      cands.push({ form, id, known: isKnown, score: (isKnown ? 1 : 0) + (exact ? 1 : 0) })
    }
    // The payload is dry-run only where it can change the decision.
    if (knownCount > 1 || (cands.length === 1 && cands[0].form === 'hash' && this.current !== 'hash')) {
      for (const c of cands) if (c.known) c.score += fit(PREFIX_SIZE[c.form])
    }
    if (cands.length > 1) {
      const rank = (c: Candidate) => (c.form === this.current ? -1 : FORMS.indexOf(c.form))
      cands.sort((x, y) => y.score - x.score || rank(x) - rank(y))
    }
    const best = cands[0]
    if (!best) {
      const prefix = this.current ?? 'none'
      return { prefix, why: () => `${FORM_TEXT[prefix]}: no prefix form gives a registered message id; read in the conversation's form`, revisedFrom: null }
    }
    if (cands.length === 1 || best.score > cands[1].score) this.votes[best.form]++
    let chosen = best
    let why = () => `${FORM_TEXT[best.form]}: message id ${best.id} is ${best.known ? 'registered' : 'not registered'}${this.evidenceText(cands)}`
    if (best.form === 'hash' && this.current !== 'hash') {
      const v = this.votes
      const enough = (best.score >= 3 || v.hash >= 2) && v.hash > v.none + v.magic
      if (!enough) {
        const guide = cands.find((c) => c.form !== 'hash')
        const prefix = guide?.form ?? this.current ?? 'none'
        const text = `${FORM_TEXT[prefix]}: the 4-byte prefix form would read message ${best.id}, but it comes only from old v1.0.6 binaries and ${v.hash} message${v.hash === 1 ? '' : 's'} support it against ${v.none + v.magic} for the guide's forms; read in the guide's form`
        if (guide) chosen = guide
        else return { prefix, why: () => text, revisedFrom: null }
        why = () => text
      }
    }
    const revisedFrom = this.current !== null && this.current !== chosen.form ? this.current : null
    this.current = chosen.form
    if (revisedFrom) {
      const base = why
      why = () => `${base()}; revised from the ${FORM_TEXT[revisedFrom]} the earlier messages used`
    }
    return { prefix: chosen.form, why, revisedFrom }
  }

  private evidenceText(cands: Candidate[]): string {
    const others = cands.slice(1).map((c) => `${c.form} reads message ${c.id}`)
    const counts = `messages so far: ${this.votes.none} without prefix, ${this.votes.magic} magic, ${this.votes.hash} 4-byte`
    return `${others.length ? `; other readings scored lower (${others.join(', ')})` : ''}; ${counts}`
  }
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
