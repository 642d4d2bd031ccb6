// A generic MessagePack decoder (msgpack spec: github.com/msgpack/msgpack/blob/master/spec.md), for
// payloads of older FigNet builds that used MessagePack-CSharp. Big-endian. Every format is read: fixint,
// nil, bool, (u)int 8–64, float 32/64, str, bin, array, map, ext and fixext (ext -1 = timestamp);
// 0xc1 (never used) is an error.
//
// Typed values: {type: 'nil'|'bool'|'uint'|'int'|'float32'|'float64'|'str'|'bin'|'array'|'map'|'ext', value};
// 64-bit integers are bigint, bin/ext data Uint8Array, arrays lists of typed values, maps lists of
// {key, value} (keys can be any type). Tree: a value held in its format byte (fixint, nil, bool) is one
// leaf; any other value is a node with its format byte, ext type and length as leaves, then its payload
// leaf or its elements. Counts are checked against the bytes left (an element takes at least one byte)
// and nesting is capped, so hostile input fails fast without allocating.

import { DecodeError, type FieldReader } from '../../bytes/reader'
import type { FieldDef, FieldType } from '../../bytes/fields'
import type { FieldScalar } from '../../model/types'
import { F_MSGPACK, dynamicDef } from './payload-fields'
import type { Typed } from './typed'

export const DEFAULT_MAX_DEPTH = 32

export interface MsgPackOptions {
  /** Deepest array/map nesting accepted (a top-level container is depth 1). Default 32, at most 1000. */
  maxDepth?: number
}

/** Where a decoded value's node goes: its key and display name. */
export interface Slot {
  key: string
  name: string
}

export interface MapEntry {
  key: Typed
  value: Typed
}

/** Format names for labels and for the format field's named values. */
export function formatName(b: number): string {
  if (b <= 0x7f) return 'positive fixint'
  if (b <= 0x8f) return 'fixmap'
  if (b <= 0x9f) return 'fixarray'
  if (b <= 0xbf) return 'fixstr'
  if (b >= 0xe0) return 'negative fixint'
  return FORMATS[b] ?? 'never used'
}

const FORMATS: Record<number, string> = {
  0xc0: 'nil',
  0xc1: 'never used',
  0xc2: 'false',
  0xc3: 'true',
  0xc4: 'bin 8',
  0xc5: 'bin 16',
  0xc6: 'bin 32',
  0xc7: 'ext 8',
  0xc8: 'ext 16',
  0xc9: 'ext 32',
  0xca: 'float 32',
  0xcb: 'float 64',
  0xcc: 'uint 8',
  0xcd: 'uint 16',
  0xce: 'uint 32',
  0xcf: 'uint 64',
  0xd0: 'int 8',
  0xd1: 'int 16',
  0xd2: 'int 32',
  0xd3: 'int 64',
  0xd4: 'fixext 1',
  0xd5: 'fixext 2',
  0xd6: 'fixext 4',
  0xd7: 'fixext 8',
  0xd8: 'fixext 16',
  0xd9: 'str 8',
  0xda: 'str 16',
  0xdb: 'str 32',
  0xdc: 'array 16',
  0xdd: 'array 32',
  0xde: 'map 16',
  0xdf: 'map 32'
}

const ROOT: Slot = { key: F_MSGPACK.item.key, name: 'Value' }

export class MsgPackReader {
  readonly maxDepth: number

  constructor(
    readonly r: FieldReader,
    opts: MsgPackOptions = {}
  ) {
    this.maxDepth = Math.max(1, Math.min(opts.maxDepth ?? DEFAULT_MAX_DEPTH, 1000))
  }

  /**
   * Reads one value. `slot` names its node; `elementSlot` names the elements of a top-level array
   * (MessagePack-CSharp writes a model as an array of its fields).
   */
  value(slot: Slot = ROOT, elementSlot?: (i: number) => Slot | undefined, depth = 0): Typed {
    const r = this.r
    const at = r.pos
    const b = r.u8(null)
    // Values held in the format byte: one leaf.
    if (b <= 0x7f || b >= 0xe0 || b === 0xc0 || b === 0xc2 || b === 0xc3) {
      const t: Typed =
        b <= 0x7f
          ? { type: 'uint', value: b }
          : b >= 0xe0
            ? { type: 'int', value: b - 256 }
            : b === 0xc0
              ? { type: 'nil', value: null }
              : { type: 'bool', value: b === 0xc3 }
      const ft: FieldType = b <= 0x7f ? 'u8' : b >= 0xe0 ? 'i8' : b === 0xc0 ? 'none' : 'bool'
      r.record(dynamicDef(slot.key, slot.name, ft), t.value as FieldScalar, at, 1, () => `${slot.name}: ${show(t)} (${formatName(b)})`)
      return t
    }
    if (b === 0xc1) {
      r.record(F_MSGPACK.format, b, at, 1, 'Format: 0xc1 (never used)')
      throw new DecodeError(`MessagePack format byte 0xc1 (never used) at offset ${at}`, at)
    }
    // Through the reader without a tree as well: a slot may be an Entangle model field (the index keeps that).
    const node = r.open(dynamicDef(slot.key, slot.name, 'none'), slot.name, undefined, at)
    try {
      r.record(F_MSGPACK.format, b, at, 1, () => `Format: 0x${b.toString(16)} (${formatName(b)})`)
      const t = this.body(b, at, depth, elementSlot)
      if (node) {
        if (r.tree.labels) node.label = `${slot.name}: ${show(t)} (${formatName(b)})`
        if (!isContainer(t)) node.value = t.value instanceof Uint8Array || typeof t.value !== 'object' ? (t.value as FieldScalar) : undefined
      }
      return t
    } finally {
      if (node) r.tree.close(r.pos)
    }
  }

  private body(b: number, at: number, depth: number, elementSlot?: (i: number) => Slot | undefined): Typed {
    const r = this.r
    if (b >= 0x80 && b <= 0x8f) return this.map(b & 0x0f, at, depth)
    if (b >= 0x90 && b <= 0x9f) return this.array(b & 0x0f, at, depth, elementSlot)
    if (b >= 0xa0 && b <= 0xbf) return this.str(b & 0x1f)
    switch (b) {
      case 0xc4:
        return this.bin(this.len(1))
      case 0xc5:
        return this.bin(this.len(2))
      case 0xc6:
        return this.bin(this.len(4))
      case 0xc7:
        return this.ext(this.len(1), at)
      case 0xc8:
        return this.ext(this.len(2), at)
      case 0xc9:
        return this.ext(this.len(4), at)
      case 0xca:
        return { type: 'float32', value: r.f32(val('f32')) }
      case 0xcb:
        return { type: 'float64', value: r.f64(val('f64')) }
      case 0xcc:
        return { type: 'uint', value: r.u8(val('u8')) }
      case 0xcd:
        return { type: 'uint', value: r.u16(val('u16')) }
      case 0xce:
        return { type: 'uint', value: r.u32(val('u32')) }
      case 0xcf:
        return { type: 'uint', value: r.u64(val('u64')) }
      case 0xd0:
        return { type: 'int', value: r.i8(val('i8')) }
      case 0xd1:
        return { type: 'int', value: r.i16(val('i16')) }
      case 0xd2:
        return { type: 'int', value: r.i32(val('i32')) }
      case 0xd3:
        return { type: 'int', value: r.i64(val('i64')) }
      case 0xd4:
        return this.ext(1, at)
      case 0xd5:
        return this.ext(2, at)
      case 0xd6:
        return this.ext(4, at)
      case 0xd7:
        return this.ext(8, at)
      case 0xd8:
        return this.ext(16, at)
      case 0xd9:
        return this.str(this.len(1))
      case 0xda:
        return this.str(this.len(2))
      case 0xdb:
        return this.str(this.len(4))
      case 0xdc:
        return this.array(this.len(2), at, depth, elementSlot)
      case 0xdd:
        return this.array(this.len(4), at, depth, elementSlot)
      case 0xde:
        return this.map(this.len(2), at, depth)
      default:
        return this.map(this.len(4), at, depth) // 0xdf
    }
  }

  /** A big-endian length of `size` bytes, as a leaf. */
  private len(size: 1 | 2 | 4): number {
    const r = this.r
    const def = size === 4 ? F_MSGPACK.length : dynamicDef(F_MSGPACK.length.key, F_MSGPACK.length.name, size === 1 ? 'u8' : 'u16')
    return size === 1 ? r.u8(def) : size === 2 ? r.u16(def) : r.u32(def)
  }

  private str(n: number): Typed {
    this.r.need(n, 'MessagePack str')
    return { type: 'str', value: this.r.utf8(n ? val('string') : null, n) }
  }

  private bin(n: number): Typed {
    this.r.need(n, 'MessagePack bin')
    return { type: 'bin', value: this.r.bytesField(n ? val('bytes') : null, n) }
  }

  private ext(n: number, at: number): Typed {
    const r = this.r
    const extType = r.i8(F_MSGPACK.ext_type)
    r.need(n, 'MessagePack ext')
    const dataAt = r.pos
    const data = r.bytesField(n ? val('bytes') : null, n)
    const t: Typed = { type: 'ext', extType, value: data }
    if (extType === -1) {
      const ts = timestamp(data)
      if (ts) t.timestamp = ts
      else throw new DecodeError(`MessagePack timestamp (ext -1) of ${n} bytes at offset ${at}: must be 4, 8 or 12`, dataAt)
    }
    return t
  }

  private checkCount(n: number, perElement: number, at: number, what: string): void {
    if (n > Math.floor(this.r.remaining / perElement)) {
      throw new DecodeError(
        `MessagePack ${what} at offset ${at}: ${n} ${what === 'map' ? 'entries' : 'elements'} cannot fit in the ${this.r.remaining} bytes left`,
        at
      )
    }
  }

  private deeper(depth: number, at: number): number {
    if (depth + 1 > this.maxDepth) throw new DecodeError(`MessagePack nesting deeper than ${this.maxDepth} at offset ${at}`, at)
    return depth + 1
  }

  private array(n: number, at: number, depth: number, elementSlot?: (i: number) => Slot | undefined): Typed {
    const d = this.deeper(depth, at)
    this.checkCount(n, 1, at, 'array')
    const out: Typed[] = []
    for (let i = 0; i < n; i++) out.push(this.value(elementSlot?.(i) ?? { key: F_MSGPACK.item.key, name: `[${i}]` }, undefined, d))
    return { type: 'array', value: out }
  }

  private map(n: number, at: number, depth: number): Typed {
    const d = this.deeper(depth, at)
    this.checkCount(n, 2, at, 'map')
    const out: MapEntry[] = []
    for (let i = 0; i < n; i++) {
      const key = this.value({ key: F_MSGPACK.key.key, name: 'Key' }, undefined, d)
      const name = key.type === 'str' || key.type === 'uint' || key.type === 'int' ? `[${show(key)}]` : `[entry ${i}]`
      out.push({ key, value: this.value({ key: F_MSGPACK.item.key, name }, undefined, d) })
    }
    return { type: 'map', value: out }
  }
}

function val(type: FieldType): FieldDef {
  return dynamicDef(F_MSGPACK.value.key, 'Value', type)
}

function isContainer(t: Typed): boolean {
  return t.type === 'array' || t.type === 'map'
}

/** The timestamp extension: 32-bit seconds; 30-bit ns + 34-bit seconds; 32-bit ns + signed 64-bit seconds. */
function timestamp(d: Uint8Array): { seconds: number | bigint; nanoseconds: number } | null {
  const dv = new DataView(d.buffer, d.byteOffset, d.byteLength)
  if (d.length === 4) return { seconds: dv.getUint32(0), nanoseconds: 0 }
  if (d.length === 8) {
    const hi = dv.getUint32(0)
    const lo = dv.getUint32(4)
    return { seconds: (hi & 0x3) * 2 ** 32 + lo, nanoseconds: hi >>> 2 }
  }
  if (d.length === 12) return { seconds: dv.getBigInt64(4), nanoseconds: dv.getUint32(0) }
  return null
}

const MAX_PREVIEW = 40

/** A one-line rendering for labels. */
export function show(t: Typed): string {
  const v = t.value
  switch (t.type) {
    case 'nil':
      return 'nil'
    case 'str': {
      const s = v as string
      return JSON.stringify(s.length > MAX_PREVIEW ? `${s.slice(0, MAX_PREVIEW)}…` : s)
    }
    case 'bin':
    case 'ext':
      return `${(v as Uint8Array).length} bytes${t.type === 'ext' ? ` (type ${t.extType as number})` : ''}`
    case 'array':
      return `${(v as Typed[]).length} elements`
    case 'map':
      return `${(v as MapEntry[]).length} entries`
    default:
      return String(v)
  }
}

/** Reads one MessagePack value from the reader's position. */
export function readMessagePack(r: FieldReader, opts: MsgPackOptions = {}, slot?: Slot, elementSlot?: (i: number) => Slot | undefined): Typed {
  return new MsgPackReader(r, opts).value(slot, elementSlot)
}
