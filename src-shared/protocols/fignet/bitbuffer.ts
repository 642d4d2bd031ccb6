// NetStack's BitBuffer, FigNet's legacy codec for its core messages (docs/fignet.md, Codecs and ENet on the wire):
// an LSB-first bit stream (stream bit i = bit i&7 of byte i>>3) closed by a 1-bit sentinel and zero
// padding. Bytes are 8 raw bits; uint/ushort are varints of 7-bit groups, each group an 8-bit field;
// int/short zigzag then varint; long/ulong low then high 32 bits; strings an 8-bit length then 7 bits per
// ASCII character.
//
// Fields are bit-packed, so a field's byte range is every byte one of its bits touches, and its label
// gives the bit offset and width. Bytes are read only through the FieldReader (peekU8), never past the
// data bits the sentinel delimits.

import { DecodeError, type FieldReader } from '../../bytes/reader'
import { formatValue } from '../../bytes/tree'
import type { FieldDef } from '../../bytes/fields'
import type { FieldScalar } from '../../model/types'
import { F_BITBUFFER, F_CORE, dynamicDef } from './payload-fields'
import { PEER_TYPE } from './names'
import type { TypedFields } from './typed'

const MAX_VARINT_GROUPS = 5

export class BitBufferReader {
  /** Byte offset of stream bit 0. */
  readonly base: number
  /** Bits before the sentinel (what the writer added). */
  readonly dataBits: number
  /** Stream bit index of the sentinel, or null when there is none. */
  readonly sentinelBit: number | null
  /** Next stream bit to read. */
  bit = 0
  readonly warnings: string[] = []

  constructor(readonly r: FieldReader) {
    this.base = r.pos
    const n = r.remaining
    if (n === 0) {
      this.dataBits = 0
      this.sentinelBit = null
      this.warnings.push(`empty BitBuffer payload at offset ${r.pos}: not even the sentinel bit`)
      return
    }
    const last = r.peekU8(r.end - 1)
    if (last === 0) {
      // NetStack would place the end one bit before this byte; treat every bit as data and say so.
      this.dataBits = n * 8
      this.sentinelBit = null
      this.warnings.push(`no sentinel bit: the last payload byte (offset ${r.end - 1}) is zero`)
      return
    }
    const high = 31 - Math.clz32(last)
    this.sentinelBit = (n - 1) * 8 + high
    this.dataBits = this.sentinelBit
  }

  get remainingBits(): number {
    return this.dataBits - this.bit
  }

  /** Byte offset of a stream bit. */
  byteOf(bit: number): number {
    return this.base + (bit >> 3)
  }

  /** Reads `n` (≤ 32) bits LSB-first. */
  bits(n: number, what: string): number {
    if (n > this.remainingBits) {
      throw new DecodeError(
        `${what}: needs ${n} bits at bit ${this.bit} (offset ${this.byteOf(this.bit)}), only ${this.remainingBits} data bits before the ${this.sentinelBit === null ? 'end' : 'sentinel'}`,
        this.byteOf(Math.min(this.bit, Math.max(0, this.dataBits - 1)))
      )
    }
    let v = 0
    for (let i = 0; i < n; ) {
      const at = this.bit + i
      const inByte = at & 7
      const take = Math.min(8 - inByte, n - i)
      const byte = this.r.peekU8(this.base + (at >> 3))
      v += ((byte >> inByte) & ((1 << take) - 1)) * 2 ** i
      i += take
    }
    this.bit += n
    return v
  }

  /** Records a field over stream bits [from, to). */
  record(def: FieldDef, value: FieldScalar, from: number, to: number, text?: string): void {
    if (!this.r.tree.recording) return
    const start = this.byteOf(from)
    const length = to > from ? this.byteOf(to - 1) - start + 1 : 0
    this.r.record(def, value, start, length, `${text ?? `${def.name}: ${formatValue(def, value)}`} ${bitsText(from, to - from)}`)
  }

  byte(def: FieldDef | null): number {
    const from = this.bit
    const v = this.bits(8, def?.name ?? 'byte')
    if (def) this.record(def, v, from, this.bit)
    return v
  }

  bool(def: FieldDef | null): boolean {
    const from = this.bit
    const v = this.bits(1, def?.name ?? 'bool') === 1
    if (def) this.record(def, v, from, this.bit)
    return v
  }

  /** Varint of 8-bit groups (AddUInt); at most 5 groups, the value cut to 32 bits as C# does. */
  uint(def: FieldDef | null): number {
    const from = this.bit
    const what = def?.name ?? 'uint'
    let value = 0
    for (let i = 0; ; i++) {
      if (i >= MAX_VARINT_GROUPS)
        throw new DecodeError(`${what}: varint longer than ${MAX_VARINT_GROUPS} groups at bit ${from} (offset ${this.byteOf(from)})`, this.byteOf(from))
      const g = this.bits(8, what)
      value += (g & 0x7f) * 2 ** (7 * i)
      if ((g & 0x80) === 0) break
    }
    value = value % 2 ** 32
    if (def) this.record(def, value, from, this.bit)
    return value
  }

  ushort(def: FieldDef | null): number {
    const from = this.bit
    const v = this.uint(null) & 0xffff
    if (def) this.record(def, v, from, this.bit)
    return v
  }

  /** Zigzag int (AddInt). */
  int(def: FieldDef | null): number {
    const from = this.bit
    const z = this.uint(null)
    const v = unzigzag(z)
    if (def) this.record(def, v, from, this.bit)
    return v
  }

  short(def: FieldDef | null): number {
    const from = this.bit
    const v = (this.int(null) << 16) >> 16
    if (def) this.record(def, v, from, this.bit)
    return v
  }

  /** AddLong: low 32 bits then high 32 bits, each as a zigzag int. */
  long(def: FieldDef | null): bigint {
    const from = this.bit
    const low = this.int(null)
    const high = this.int(null)
    const v = (BigInt(high) << 32n) | BigInt(low >>> 0)
    if (def) this.record(def, v, from, this.bit)
    return v
  }

  ulong(def: FieldDef | null): bigint {
    const from = this.bit
    const low = this.uint(null)
    const high = this.uint(null)
    const v = (BigInt(high) << 32n) | BigInt(low)
    if (def) this.record(def, v, from, this.bit)
    return v
  }

  /** 8-bit length, then 7 bits per character. A group node over the whole string, with its length and characters. */
  string(def: FieldDef): string {
    const from = this.bit
    const rec = this.r.tree.recording
    const node = rec ? this.r.tree.open({ key: def.key, label: def.name, type: def.type, source: this.r.source, start: this.byteOf(from), length: 0 }) : null
    try {
      const length = this.bits(8, `${def.name} length`)
      this.record(F_BITBUFFER.length, length, from, this.bit)
      const charsFrom = this.bit
      if (length * 7 > this.remainingBits) {
        throw new DecodeError(
          `${def.name}: ${length} characters need ${length * 7} bits at bit ${this.bit} (offset ${this.byteOf(this.bit)}), only ${this.remainingBits} data bits left`,
          this.byteOf(this.bit)
        )
      }
      let s = ''
      for (let i = 0; i < length; i++) s += String.fromCharCode(this.bits(7, def.name))
      if (length) this.record(F_BITBUFFER.chars, s, charsFrom, this.bit)
      if (node) {
        node.value = s
        if (this.r.tree.labels) node.label = `${def.name}: ${JSON.stringify(s)} ${bitsText(from, this.bit - from)}`
      }
      return s
    } finally {
      if (node) this.r.tree.close(this.byteOf(Math.max(from, this.bit - 1)) + (this.bit > from ? 1 : 0))
    }
  }

  /**
   * Ends the read: records unread data bits and the sentinel, warns about either, and moves the reader to
   * the end of its window.
   */
  finish(): void {
    if (this.remainingBits > 0) {
      const n = this.remainingBits
      this.record(F_BITBUFFER.unread, n, this.bit, this.dataBits, `Unread bits: ${n}`)
      this.warnings.push(`${n} data bit${n === 1 ? '' : 's'} left before the sentinel at bit ${this.bit} (offset ${this.byteOf(this.bit)})`)
    }
    if (this.sentinelBit !== null) {
      const s = this.sentinelBit
      this.record(F_BITBUFFER.sentinel, s, s, s + 1, `Sentinel bit: bit ${s & 7} of byte ${this.byteOf(s)}`)
    }
    this.r.pos = this.r.end
  }
}

function unzigzag(z: number): number {
  // z < 2^32: (z >>> 1) ^ -(z & 1) on 32-bit integers.
  return ((z >>> 1) ^ -(z & 1)) | 0
}

function bitsText(from: number, width: number): string {
  return width === 1 ? `(bit ${from})` : `(bits ${from}–${from + width - 1}, ${width} bits)`
}

// ---- the core models (FigNet/Messages/Operations/*.cs; field order from the v1.0.6 metadata) ----

/** The SecretKey of a RegisterIdentity failure reply (RegisterIdentityHandler); AppName then carries the error text. */
export const REGISTER_IDENTITY_FAILURE_SECRET = 'invalid'

/**
 * RegisterIdentityModel {peerType byte, SecretKey string, AppName string}. In a server reply whose SecretKey
 * is "invalid", AppName is the error text and is labelled so.
 */
export function readRegisterIdentityModel(bb: BitBufferReader, out: TypedFields, reply = false): void {
  out.peerType = enumTyped(bb.byte(F_CORE.peer_type))
  const secret = bb.string(F_CORE.secret_key)
  out.SecretKey = { type: 'string', value: secret }
  if (reply && secret === REGISTER_IDENTITY_FAILURE_SECRET) {
    const def = dynamicDef(F_CORE.app_name.key, 'AppName (error text)', 'string')
    out.AppName = { type: 'string', value: bb.string(def), meaning: 'error text' }
  } else out.AppName = { type: 'string', value: bb.string(F_CORE.app_name) }
}

/** PingModel {peerType byte}. */
export function readPingModel(bb: BitBufferReader, out: TypedFields): void {
  out.peerType = enumTyped(bb.byte(F_CORE.peer_type))
}

function enumTyped(v: number): TypedFields[string] {
  const name = PEER_TYPE[v]
  return name !== undefined ? { type: 'byte', value: v, name } : { type: 'byte', value: v }
}
