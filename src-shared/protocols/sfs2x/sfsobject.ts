// The SFSObject / SFSArray binary codec (big-endian; docs/sfs2x.md), reading every field
// through a FieldReader. It produces the contract's typed value `{type, value}` and, when the tree is
// recording, one node per entry keyed `sfs2x.p.<path>` whose range covers the entry's tag and value.
//
// Quirks kept from the real codecs: BYTE_ARRAY and TEXT have 4-byte lengths, every other array a u16
// count, strings a u16 byte length; BYTE is unsigned (as the JS SDK reads it); CLASS (19) has no length
// on the wire, so it cannot be skipped: the rest of the body is shown as its bytes and decoding stops.

import { DecodeError, type FieldReader } from '../../bytes/reader'
import { formatValue } from '../../bytes/tree'
import type { FieldType } from '../../bytes/fields'
import type { FieldNode, FieldScalar } from '../../model/types'
import { F, pathDef } from './fields'

export const TYPE_NAMES = [
  'NULL',
  'BOOL',
  'BYTE',
  'SHORT',
  'INT',
  'LONG',
  'FLOAT',
  'DOUBLE',
  'UTF_STRING',
  'BOOL_ARRAY',
  'BYTE_ARRAY',
  'SHORT_ARRAY',
  'INT_ARRAY',
  'LONG_ARRAY',
  'FLOAT_ARRAY',
  'DOUBLE_ARRAY',
  'UTF_STRING_ARRAY',
  'SFS_ARRAY',
  'SFS_OBJECT',
  'CLASS',
  'TEXT'
] as const

export type SfsTypeName = (typeof TYPE_NAMES)[number]

export const T = {
  NULL: 0,
  BOOL: 1,
  BYTE: 2,
  SHORT: 3,
  INT: 4,
  LONG: 5,
  FLOAT: 6,
  DOUBLE: 7,
  UTF_STRING: 8,
  BOOL_ARRAY: 9,
  BYTE_ARRAY: 10,
  SHORT_ARRAY: 11,
  INT_ARRAY: 12,
  LONG_ARRAY: 13,
  FLOAT_ARRAY: 14,
  DOUBLE_ARRAY: 15,
  UTF_STRING_ARRAY: 16,
  SFS_ARRAY: 17,
  SFS_OBJECT: 18,
  CLASS: 19,
  TEXT: 20
} as const

/** Keys in wire order (a plain object would move integer-like keys first). */
export type SfsObjectValue = Map<string, SfsValue>

/** The contract's typed value. LONG stays bigint and BYTE_ARRAY Uint8Array until exported. */
export type SfsValue =
  | { type: 'NULL'; value: null }
  | { type: 'BOOL'; value: boolean }
  | { type: 'BYTE' | 'SHORT' | 'INT' | 'FLOAT' | 'DOUBLE'; value: number }
  | { type: 'LONG'; value: bigint }
  | { type: 'UTF_STRING' | 'TEXT'; value: string }
  | { type: 'BYTE_ARRAY' | 'CLASS'; value: Uint8Array }
  | { type: 'BOOL_ARRAY'; value: boolean[] }
  | { type: 'SHORT_ARRAY' | 'INT_ARRAY' | 'FLOAT_ARRAY' | 'DOUBLE_ARRAY'; value: number[] }
  | { type: 'LONG_ARRAY'; value: bigint[] }
  | { type: 'UTF_STRING_ARRAY'; value: string[] }
  | { type: 'SFS_ARRAY'; value: SfsValue[] }
  | { type: 'SFS_OBJECT'; value: SfsObjectValue }

export const DEFAULT_MAX_DEPTH = 64

export interface SfsDecodeOptions {
  /** Deepest SFS_OBJECT/SFS_ARRAY nesting accepted (the top level is depth 1). */
  maxDepth?: number
  /** Key prefix of the tree nodes (`sfs2x.p`). */
  prefix?: string
}

/** Where an entry of the first levels was found (for the envelope fields), by path without the prefix. */
export interface EntryRange {
  start: number
  length: number
  /** Start of the value after the tag. */
  valueStart: number
}

export interface SfsDecodeResult {
  /** The top-level value, partial when `error` is set (everything read before the failure). */
  value: SfsValue | null
  error: DecodeError | null
  /** Position after the top-level value (or where decoding stopped). */
  end: number
  warnings: string[]
  ranges: Map<string, EntryRange>
  /** How far decoding got, in bytes from the start (to compare candidate transforms). */
  progress: number
  /** Position after the top-level value when it was read completely, else null. */
  objectEnd: number | null
  /** Bytes were left after a complete top-level value. */
  trailing: boolean
  /** Some object held a key twice: its value keeps the last, its tree both. */
  duplicateKeys: boolean
}

const FIELD_TYPES: Record<number, FieldType> = {
  0: 'none',
  1: 'bool',
  2: 'u8',
  3: 'i16',
  4: 'i32',
  5: 'i64',
  6: 'f32',
  7: 'f64',
  8: 'string',
  9: 'bool',
  10: 'bytes',
  11: 'i16',
  12: 'i32',
  13: 'i64',
  14: 'f32',
  15: 'f64',
  16: 'string',
  17: 'none',
  18: 'none',
  19: 'bytes',
  20: 'string'
}

const ELEMENT_SIZES: Record<number, number> = { 9: 1, 11: 2, 12: 4, 13: 8, 14: 4, 15: 8 }

/** Entries of the first levels whose ranges are remembered (the envelope lives in levels 1..3). */
const RANGE_DEPTH = 3

/** Object keys decoded before, by a hash of their bytes (see SfsDecoder.key). */
const keyCache = new Map<number, string>()
const KEY_CACHE_MAX = 4096
const KEY_CACHE_MAX_LEN = 32

const MAX_PREVIEW = 8
const MAX_STRING_LABEL = 80

function previewString(s: string): string {
  return s.length > MAX_STRING_LABEL ? `${JSON.stringify(s.slice(0, MAX_STRING_LABEL))}… (${s.length} chars)` : JSON.stringify(s)
}

function previewScalar(v: FieldScalar, type: FieldType): string {
  if (typeof v === 'string') return previewString(v)
  return formatValue({ type }, v)
}

function previewArray(vals: readonly (number | bigint | boolean | string)[], type: FieldType): string {
  const head = vals.slice(0, MAX_PREVIEW).map((v) => previewScalar(v, type))
  return `[${head.join(', ')}${vals.length > MAX_PREVIEW ? `, … ${vals.length - MAX_PREVIEW} more` : ''}]`
}

/** The tree key of the top-level value's entries (`sfs2x.p.<name>`), unless the options give another. */
export const ENTRY_PREFIX = 'sfs2x.p'

/** Decodes SFS2X binary data with a FieldReader (tree nodes only when its tree is recording). */
export class SfsDecoder {
  private readonly rec: boolean
  /** With a tree: whether its nodes get labels (a filter's tree goes without). */
  private readonly labelled: boolean
  private readonly maxDepth: number
  private readonly prefix: string
  readonly warnings: string[] = []
  readonly ranges = new Map<string, EntryRange>()
  /** Set when a CLASS value ended decoding: thrown once its bytes are stored. */
  private stop: DecodeError | null = null
  private duplicateKeys = false

  constructor(
    private readonly r: FieldReader,
    opts: SfsDecodeOptions = {}
  ) {
    this.rec = r.tree.recording
    this.labelled = r.tree.labels
    // Bounded so that a generous setting cannot exhaust the call stack (decoding recurses per level).
    this.maxDepth = Math.min(opts.maxDepth ?? DEFAULT_MAX_DEPTH, 1000)
    this.prefix = opts.prefix ?? ENTRY_PREFIX
  }

  private fail(message: string, offset: number): never {
    throw new DecodeError(`${message} at offset ${offset}`, offset)
  }

  private warn(text: string): void {
    if (this.warnings.length < 20 && !this.warnings.includes(text)) this.warnings.push(text)
  }

  /**
   * Decodes one top-level SFSObject or SFSArray from the reader's position. Never throws a DecodeError:
   * a failure is returned with the partial value. With `whole`, bytes left after the value are an error.
   */
  decodeTop(label: string, whole = true, rootKey = 'sfs2x.object'): SfsDecodeResult {
    const r = this.r
    const start = r.pos
    let value: SfsValue | null = null
    let error: DecodeError | null = null
    let objectEnd: number | null = null
    let trailing = false
    try {
      r.need(1, 'SFSObject tag')
      const tag = r.peekU8()
      if (tag !== T.SFS_OBJECT && tag !== T.SFS_ARRAY) {
        this.fail(`body does not start with an SFSObject (0x12) or SFSArray (0x11) tag: 0x${tag.toString(16).padStart(2, '0')}`, r.pos)
      }
      r.pos++
      value = tag === T.SFS_OBJECT ? { type: 'SFS_OBJECT', value: new Map() } : { type: 'SFS_ARRAY', value: [] }
      this.container(tag, value, label, '', rootKey, this.prefix, start, 1)
      objectEnd = r.pos
      if (whole && r.pos < r.end) {
        trailing = true
        const extra = r.end - r.pos
        const at = r.pos
        const bytes = r.bytesField(null, extra)
        if (this.rec) r.record(F.trailing, bytes, at, extra, () => `Trailing bytes (${extra}): ${formatValue({ type: 'bytes' }, bytes)}`)
        this.fail(`${extra} bytes left after the ${value.type === 'SFS_OBJECT' ? 'SFSObject' : 'SFSArray'}`, at)
      }
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e
      error = e
    }
    const progress = (error ? error.offset : r.pos) - start
    return { value, error, end: r.pos, warnings: this.warnings, ranges: this.ranges, progress, objectEnd, trailing, duplicateKeys: this.duplicateKeys }
  }

  /** Reads the count and elements of an SFS_OBJECT / SFS_ARRAY whose tag (at `tagPos`) was read. */
  private container(tag: number, holder: SfsValue, label: string, path: string, key: string, childKey: string, tagPos: number, depth: number): void {
    const r = this.r
    if (depth > this.maxDepth) this.fail(`nesting deeper than ${this.maxDepth} levels`, tagPos)
    const countPos = r.pos
    const count = r.u16(null)
    const isObject = tag === T.SFS_OBJECT
    // Each entry needs at least its tag (and an object entry its 2-byte key length): check before looping.
    if (count * (isObject ? 3 : 1) > r.remaining) {
      this.fail(
        `${isObject ? 'SFSObject' : 'SFSArray'} claims ${count} ${isObject ? 'keys' : 'elements'} but only ${r.remaining} bytes follow the count`,
        countPos
      )
    }
    if (count > 0x7fff)
      this.warn(`${isObject ? 'SFSObject' : 'SFSArray'} count ${count} at offset ${countPos} is above 32767 (the SDKs read it as a signed 16-bit value)`)
    let node: FieldNode | null = null
    if (this.rec) {
      node = r.tree.open({
        key,
        label: this.labelled
          ? `${label} (${TYPE_NAMES[tag]}, ${count} ${isObject ? (count === 1 ? 'key' : 'keys') : count === 1 ? 'element' : 'elements'})`
          : '',
        type: 'none',
        source: r.source,
        start: tagPos,
        length: 0
      })
    }
    try {
      // The index pass builds no labels, paths or tree keys: they only name tree nodes and `ranges`.
      const rec = this.rec
      if (isObject) {
        const obj = holder.value as SfsObjectValue
        for (let i = 0; i < count; i++) {
          const keyPos = r.pos
          const keyLen = r.u16(null)
          r.need(keyLen, 'key')
          const name = this.key(keyLen)
          if (keyLen > 255) this.warn(`key of ${keyLen} bytes at offset ${keyPos} (the SDKs accept at most 255)`)
          if (obj.has(name)) {
            this.duplicateKeys = true
            this.warn(`duplicate key ${JSON.stringify(name)} at offset ${keyPos}`)
          }
          if (rec) this.entry(obj, null, name, name, path ? `${path}.${name}` : name, `${childKey}.${name}`, depth)
          else this.entry(obj, null, name, '', '', '', depth)
          if (this.stop) throw this.stop
        }
      } else {
        const arr = holder.value as SfsValue[]
        for (let i = 0; i < count; i++) {
          // Elements share the array's key, so a filter on it matches any element.
          if (rec) this.entry(null, arr, '', `[${i}]`, `${path}[${i}]`, childKey, depth)
          else this.entry(null, arr, '', '', '', '', depth)
          if (this.stop) throw this.stop
        }
      }
    } finally {
      if (node) r.tree.close(r.pos)
    }
  }

  /**
   * An object key of `n` bytes (present). Games repeat the same few keys in every packet, so short ASCII
   * keys are kept by their bytes: a repeat costs a hash and a compare instead of a new string.
   */
  private key(n: number): string {
    const r = this.r
    if (n > KEY_CACHE_MAX_LEN) return r.utf8(null, n)
    const b = r.bytes
    const at = r.pos
    let h = n
    for (let i = 0; i < n; i++) h = (Math.imul(h, 31) + b[at + i]) & 0x3fffffff
    const hit = keyCache.get(h)
    if (hit !== undefined && hit.length === n) {
      let same = true
      for (let i = 0; i < n; i++) {
        if (hit.charCodeAt(i) !== b[at + i]) {
          same = false
          break
        }
      }
      if (same) {
        r.pos = at + n
        return hit
      }
    }
    const name = r.utf8(null, n)
    // A hit needs every char to equal its byte, so only ASCII keys are worth keeping (one char per byte).
    // The cache is bounded by starting over.
    if (name.length === n) {
      if (keyCache.size >= KEY_CACHE_MAX) keyCache.clear()
      keyCache.set(h, name)
    }
    return name
  }

  /**
   * One tag + value, put in `obj` under `name` or pushed to `arr` (a container as soon as it exists, so
   * that a failure inside it keeps what was read). `path` is the entry path without the prefix (for
   * `ranges`), `key` the tree key; both '' in the index pass.
   */
  private entry(obj: SfsObjectValue | null, arr: SfsValue[] | null, name: string, label: string, path: string, key: string, depth: number): void {
    const r = this.r
    const tagPos = r.pos
    const tag = r.u8(null)
    if (tag === T.SFS_OBJECT || tag === T.SFS_ARRAY) {
      const holder: SfsValue = tag === T.SFS_OBJECT ? { type: 'SFS_OBJECT', value: new Map() } : { type: 'SFS_ARRAY', value: [] }
      if (obj) obj.set(name, holder)
      else arr!.push(holder)
      this.container(tag, holder, label, path, key, key, tagPos, depth + 1)
    } else {
      const v = this.value(tag, label, key, tagPos)
      if (obj) obj.set(name, v)
      else arr!.push(v)
    }
    if (this.rec && depth <= RANGE_DEPTH && path && !this.ranges.has(path))
      this.ranges.set(path, { start: tagPos, length: r.pos - tagPos, valueStart: tagPos + 1 })
  }

  private leaf(key: string, tag: number, value: FieldScalar, start: number, label: string, shown?: string): void {
    if (!this.rec) return
    const type = FIELD_TYPES[tag]
    this.r.record(pathDef(key, type), value, start, this.r.pos - start, () => `${label} (${TYPE_NAMES[tag]}): ${shown ?? previewScalar(value, type)}`)
  }

  /** A value of any type but SFS_OBJECT and SFS_ARRAY (see entry). */
  private value(tag: number, label: string, key: string, tagPos: number): SfsValue {
    const r = this.r
    switch (tag) {
      case T.NULL:
        this.leaf(key, tag, null, tagPos, label, 'null')
        return { type: 'NULL', value: null }
      case T.BOOL: {
        const at = r.pos
        const b = r.u8(null)
        if (b > 1) this.warn(`BOOL value ${b} at offset ${at} (only 0 and 1 are valid)`)
        this.leaf(key, tag, b !== 0, tagPos, label)
        return { type: 'BOOL', value: b !== 0 }
      }
      case T.BYTE: {
        const v = r.u8(null)
        this.leaf(key, tag, v, tagPos, label)
        return { type: 'BYTE', value: v }
      }
      case T.SHORT: {
        const v = r.i16(null)
        this.leaf(key, tag, v, tagPos, label)
        return { type: 'SHORT', value: v }
      }
      case T.INT: {
        const v = r.i32(null)
        this.leaf(key, tag, v, tagPos, label)
        return { type: 'INT', value: v }
      }
      case T.LONG: {
        const v = r.i64(null)
        this.leaf(key, tag, v, tagPos, label)
        return { type: 'LONG', value: v }
      }
      case T.FLOAT: {
        const v = r.f32(null)
        this.leaf(key, tag, v, tagPos, label)
        return { type: 'FLOAT', value: v }
      }
      case T.DOUBLE: {
        const v = r.f64(null)
        this.leaf(key, tag, v, tagPos, label)
        return { type: 'DOUBLE', value: v }
      }
      case T.UTF_STRING: {
        const v = this.string()
        this.leaf(key, tag, v, tagPos, label)
        return { type: 'UTF_STRING', value: v }
      }
      case T.TEXT: {
        const lenPos = r.pos
        const n = r.i32(null)
        if (n < 0) this.fail(`TEXT length ${n} is negative`, lenPos)
        r.need(n, 'TEXT')
        const v = r.utf8(null, n)
        this.leaf(key, tag, v, tagPos, label)
        return { type: 'TEXT', value: v }
      }
      case T.BYTE_ARRAY: {
        const lenPos = r.pos
        const n = r.i32(null)
        if (n < 0) this.fail(`BYTE_ARRAY length ${n} is negative`, lenPos)
        r.need(n, 'BYTE_ARRAY')
        const v = r.bytesField(null, n)
        this.leaf(key, tag, v, tagPos, label, this.labelled ? `${n} bytes${n ? `: ${formatValue({ type: 'bytes' }, v)}` : ''}` : '')
        return { type: 'BYTE_ARRAY', value: v }
      }
      case T.BOOL_ARRAY:
      case T.SHORT_ARRAY:
      case T.INT_ARRAY:
      case T.LONG_ARRAY:
      case T.FLOAT_ARRAY:
      case T.DOUBLE_ARRAY:
      case T.UTF_STRING_ARRAY:
        return this.primitiveArray(tag, label, key, tagPos)
      case T.CLASS: {
        // No length on the wire: nothing after it can be located. Keep its bytes (the rest of the body).
        const rest = r.bytesField(null, r.remaining)
        this.leaf(
          key,
          tag,
          rest,
          tagPos,
          label,
          `undecodable, ${rest.length} bytes to the end of the body${rest.length ? `: ${formatValue({ type: 'bytes' }, rest)}` : ''}`
        )
        this.stop = new DecodeError(
          `CLASS (19) value cannot be decoded (no length on the wire; the rest of the body, ${rest.length} bytes, is kept as its bytes) at offset ${tagPos}`,
          tagPos
        )
        return { type: 'CLASS', value: rest }
      }
      default:
        return this.fail(`unknown type tag ${tag} (0x${tag.toString(16).padStart(2, '0')})`, tagPos)
    }
  }

  private string(): string {
    const r = this.r
    const lenPos = r.pos
    const n = r.u16(null)
    if (n > 0x7fff) this.warn(`UTF_STRING of ${n} bytes at offset ${lenPos} (the JS SDK reads the length as signed and fails above 32767)`)
    r.need(n, 'UTF_STRING')
    return r.utf8(null, n)
  }

  private primitiveArray(tag: number, label: string, key: string, tagPos: number): SfsValue {
    const r = this.r
    const countPos = r.pos
    const count = r.u16(null)
    const size = ELEMENT_SIZES[tag] ?? 2 // UTF_STRING_ARRAY: at least the 2-byte length per element
    if (count * size > r.remaining) {
      this.fail(
        `${TYPE_NAMES[tag]} claims ${count} elements (${count * size}${tag === T.UTF_STRING_ARRAY ? '+' : ''} bytes) but only ${r.remaining} bytes follow the count`,
        countPos
      )
    }
    // The Unity SDK Last War embeds reads these counts as i16 (GetTypedArraySize), like SFS_ARRAY/SFS_OBJECT's.
    if (count > 0x7fff)
      this.warn(`${TYPE_NAMES[tag]} count ${count} at offset ${countPos} is above 32767 (the game's SDK reads it as a signed 16-bit value: ${count - 0x10000})`)
    const type = FIELD_TYPES[tag]
    let node: FieldNode | null = null
    if (this.rec)
      node = r.tree.open({
        key,
        label: this.labelled ? `${label} (${TYPE_NAMES[tag]}, ${count})` : '',
        type: 'none',
        source: r.source,
        start: tagPos,
        length: 0
      })
    const vals: (number | bigint | boolean | string)[] = []
    try {
      for (let i = 0; i < count; i++) {
        const at = r.pos
        let v: number | bigint | boolean | string
        switch (tag) {
          case T.BOOL_ARRAY: {
            const b = r.u8(null)
            if (b > 1) this.warn(`BOOL value ${b} at offset ${at} (only 0 and 1 are valid)`)
            v = b !== 0
            break
          }
          case T.SHORT_ARRAY:
            v = r.i16(null)
            break
          case T.INT_ARRAY:
            v = r.i32(null)
            break
          case T.LONG_ARRAY:
            v = r.i64(null)
            break
          case T.FLOAT_ARRAY:
            v = r.f32(null)
            break
          case T.DOUBLE_ARRAY:
            v = r.f64(null)
            break
          default:
            v = this.string()
        }
        vals.push(v)
        if (this.rec) r.record(pathDef(key, type), v, at, r.pos - at, () => `[${i}]: ${previewScalar(v, type)}`)
      }
    } finally {
      if (node) {
        r.tree.close(r.pos)
        if (this.labelled) node.label = `${label} (${TYPE_NAMES[tag]}, ${count}): ${previewArray(vals, type)}`
      }
    }
    return { type: TYPE_NAMES[tag], value: vals } as SfsValue
  }
}

/** Decodes one top-level SFSObject/SFSArray; see SfsDecoder.decodeTop. */
export function decodeSfs(r: FieldReader, label: string, opts: SfsDecodeOptions = {}, whole = true, rootKey = 'sfs2x.object'): SfsDecodeResult {
  return new SfsDecoder(r, opts).decodeTop(label, whole, rootKey)
}

/** A compact one-line rendering of a typed value (summaries). */
export function shortValue(v: SfsValue, max = 40): string {
  let s: string
  switch (v.type) {
    case 'UTF_STRING':
    case 'TEXT':
      s = /^[\w.:\-/@]*$/.test(v.value) && v.value.length ? v.value : JSON.stringify(v.value)
      break
    case 'BYTE_ARRAY':
    case 'CLASS':
      s = `<${v.value.length} bytes>`
      break
    case 'SFS_OBJECT':
      s = `{${v.value.size} keys}`
      break
    case 'SFS_ARRAY':
    case 'BOOL_ARRAY':
    case 'SHORT_ARRAY':
    case 'INT_ARRAY':
    case 'LONG_ARRAY':
    case 'FLOAT_ARRAY':
    case 'DOUBLE_ARRAY':
    case 'UTF_STRING_ARRAY':
      s = `[${v.value.length}]`
      break
    default:
      s = String(v.value)
  }
  return s.length > max ? `${s.slice(0, max)}…` : s
}
