// The Photon GpBinary codecs, Protocol16 (GpBinary 1.6, big-endian, i16 counts) and Protocol18
// (GpBinary 1.8: varint lengths, zigzag/compact ints, little-endian shorts/floats/doubles), and the
// message bodies (docs/photon.md). One walker serves both versions: only the type
// tables and the count/length/endianness primitives differ.
//
// Errors: every reader throws only DecodeError (with the byte offset); the tree recorded so far stays in
// the TreeBuilder, every open node closed at the failure. The message readers also keep what they read
// before the failure: `partialBody(error)` gives the code and the parameters read completely.
//
// Tree: a parameter is a node `photon.param.<code>` over key byte + type byte + payload; Hashtable and
// Dictionary entries are `<parent>.<key>` when the key is a short scalar, else `<parent>`; array elements
// share the array's key. Type bytes, lengths and counts are leaves (photon.value.*), so every byte of a
// body belongs to a node. Labels are built only when the tree is recording.
//
// Decisions where the sources disagree (docs/photon.md names the sources):
// - P16 Dictionary value type 'D' (and 'y'): no nested header; every value is a complete dictionary
//   (array) with its own header, as the official Protocol16 reader and BulletForceHax read it. (The
//   P16 writer's nested-header branch cannot run: it asks a System.Type for generic arguments.)
// - P18 Dictionary value type 0x14: the nested header follows in the outer header AND every value
//   carries its own header; value type 0x40: a chain of 0x40 then a base array code, and every value
//   carries its own type byte ([P18] ReadDictionaryType sets the value read type to Unknown).
// - P18 0x40 (array in array) reads exactly `count` typed values (the decompiled reader reads one even
//   when count is 0; its writer writes none).
// - Negative P16 counts/lengths are errors (the SDK throws on most of them).
// - Unknown type codes are errors (the P18 SDK returns null without consuming anything, which desyncs).

import { arrayFor } from '../../bytes/arrays'
import { DecodeError, FieldReader } from '../../bytes/reader'
import { TreeBuilder } from '../../bytes/tree'
import type { FieldDef, FieldType } from '../../bytes/fields'
import type { FieldNode, FieldScalar } from '../../model/types'
import { F_BODY, F_EV, F_OP, F_VALUE, F_VALUE_ROOT, PARAM_KEYS, PARAM_PRESENCE_KEYS, valueDef } from './codec-fields'
import { decodeCustom } from './custom-types'
import { readStruct, structSize } from '../../schema/struct'
import type { PhotonCustomTypeSpec } from '../../schema/types'
import {
  customCodeText,
  isScalar,
  previewValue,
  typeText,
  type PhotonCustom,
  type PhotonDictionary,
  type PhotonEntry,
  type PhotonHashtable,
  type PhotonParams,
  type PhotonSlotType,
  type PhotonTypeName,
  type PhotonValue
} from './values'

export type GpVersion = 16 | 18

export interface GpOptions {
  /** Deepest container nesting accepted (a parameter's own value is level 1). Default 32, at most 1000. */
  maxDepth?: number
  /** Display name of a top-level parameter code (254 → 'ActorNr'). */
  paramName?: (code: number) => string | undefined
  /** Display name of the body's operation/event code, for its label. */
  codeName?: (code: number) => string | undefined
  /** Cap on values that take less than a byte each (zero-size types, packed bools) per call. Default 1,000,000. */
  maxValues?: number
  /** Non-fatal notes (duplicate parameter, custom type of unexpected size). */
  warn?: (text: string) => void
  /** Tree key of the node readTypedValue opens (default `photon.value`). */
  key?: string
  /** Custom types declared by a schema pack (src-shared/schema): decoded per their struct layout. */
  customTypes?: ReadonlyMap<number, PhotonCustomTypeSpec>
  /** Called after each of the body's own parameters (its node when recording), for schema names. */
  onParam?: (code: number, node: FieldNode | null, value: PhotonValue | undefined) => void
}

export const DEFAULT_MAX_DEPTH = 32
export const DEFAULT_MAX_VALUES = 1_000_000

// ---- type tables ----

enum K {
  Null,
  Const,
  Bool,
  Byte,
  I16,
  I32,
  I64,
  F32,
  F64,
  String,
  Bytes,
  IntArray,
  StringArray,
  ObjectArray,
  Hashtable,
  Dictionary,
  Custom,
  Slim,
  Event,
  Request,
  Response,
  Array16,
  Varint32,
  Varint64,
  Int1,
  Int2,
  Long1,
  Long2,
  ArrayInArray,
  BoolArray,
  I16Array,
  F32Array,
  F64Array,
  I64Array,
  CustomArray,
  DictArray,
  HashArray
}

/** How a primitive array's elements are read (see GpWalker.elements). */
enum E {
  I32,
  Varint32,
  I16,
  F32,
  F64,
  Varint64,
  String
}

interface TypeInfo {
  name: PhotonTypeName
  kind: K
  /** Fewest payload bytes (without the type byte): bounds counts before looping. */
  min: number
  /** P18 wire form shown in labels (Int1_, IntZero, slim...). */
  wire?: string
  /** Negated compact forms (Int1_, Int2_, L1_, L2_). */
  neg?: boolean
  /** The value of a no-payload form (false/true/zero shortcuts). */
  constant?: boolean | number | bigint
}

function table(defs: [code: number, info: TypeInfo][]): readonly (TypeInfo | undefined)[] {
  const t: (TypeInfo | undefined)[] = new Array(256).fill(undefined)
  for (const [c, i] of defs) t[c] = i
  return t
}

const ti = (name: PhotonTypeName, kind: K, min: number, extra: Partial<TypeInfo> = {}): TypeInfo => ({ name, kind, min, ...extra })

const TYPES16 = table([
  [0x00, ti('Null', K.Null, 0, { wire: 'Unknown' })],
  [0x2a, ti('Null', K.Null, 0)],
  [0x44, ti('Dictionary', K.Dictionary, 4)],
  [0x61, ti('StringArray', K.StringArray, 2)],
  [0x62, ti('Byte', K.Byte, 1)],
  [0x63, ti('Custom', K.Custom, 3)],
  [0x64, ti('Double', K.F64, 8)],
  [0x65, ti('EventData', K.Event, 3)],
  [0x66, ti('Float', K.F32, 4)],
  [0x68, ti('Hashtable', K.Hashtable, 2)],
  [0x69, ti('Int32', K.I32, 4)],
  [0x6b, ti('Int16', K.I16, 2)],
  [0x6c, ti('Int64', K.I64, 8)],
  [0x6e, ti('IntArray', K.IntArray, 4)],
  [0x6f, ti('Boolean', K.Bool, 1)],
  [0x70, ti('OperationResponse', K.Response, 6)],
  [0x71, ti('OperationRequest', K.Request, 3)],
  [0x73, ti('String', K.String, 2)],
  [0x78, ti('ByteArray', K.Bytes, 4)],
  [0x79, ti('Array', K.Array16, 3)],
  [0x7a, ti('ObjectArray', K.ObjectArray, 2)]
])

const TYPES18 = table([
  [0x00, ti('Null', K.Null, 0, { wire: 'Unknown' })],
  [0x02, ti('Boolean', K.Bool, 1)],
  [0x03, ti('Byte', K.Byte, 1)],
  [0x04, ti('Int16', K.I16, 2)],
  [0x05, ti('Float', K.F32, 4)],
  [0x06, ti('Double', K.F64, 8)],
  [0x07, ti('String', K.String, 1)],
  [0x08, ti('Null', K.Null, 0)],
  [0x09, ti('Int32', K.Varint32, 1)],
  [0x0a, ti('Int64', K.Varint64, 1)],
  [0x0b, ti('Int32', K.Int1, 1, { wire: 'Int1' })],
  [0x0c, ti('Int32', K.Int1, 1, { wire: 'Int1_', neg: true })],
  [0x0d, ti('Int32', K.Int2, 2, { wire: 'Int2' })],
  [0x0e, ti('Int32', K.Int2, 2, { wire: 'Int2_', neg: true })],
  [0x0f, ti('Int64', K.Long1, 1, { wire: 'L1' })],
  [0x10, ti('Int64', K.Long1, 1, { wire: 'L1_', neg: true })],
  [0x11, ti('Int64', K.Long2, 2, { wire: 'L2' })],
  [0x12, ti('Int64', K.Long2, 2, { wire: 'L2_', neg: true })],
  [0x13, ti('Custom', K.Custom, 2)],
  [0x14, ti('Dictionary', K.Dictionary, 3)],
  [0x15, ti('Hashtable', K.Hashtable, 1)],
  [0x17, ti('ObjectArray', K.ObjectArray, 1)],
  [0x18, ti('OperationRequest', K.Request, 2)],
  [0x19, ti('OperationResponse', K.Response, 5)],
  [0x1a, ti('EventData', K.Event, 2)],
  [0x1b, ti('Boolean', K.Const, 0, { wire: 'BooleanFalse', constant: false })],
  [0x1c, ti('Boolean', K.Const, 0, { wire: 'BooleanTrue', constant: true })],
  [0x1d, ti('Int16', K.Const, 0, { wire: 'ShortZero', constant: 0 })],
  [0x1e, ti('Int32', K.Const, 0, { wire: 'IntZero', constant: 0 })],
  [0x1f, ti('Int64', K.Const, 0, { wire: 'LongZero', constant: 0n })],
  [0x20, ti('Float', K.Const, 0, { wire: 'FloatZero', constant: 0 })],
  [0x21, ti('Double', K.Const, 0, { wire: 'DoubleZero', constant: 0 })],
  [0x22, ti('Byte', K.Const, 0, { wire: 'ByteZero', constant: 0 })],
  [0x40, ti('Array', K.ArrayInArray, 1)],
  [0x42, ti('BooleanArray', K.BoolArray, 1)],
  [0x43, ti('ByteArray', K.Bytes, 1)],
  [0x44, ti('Int16Array', K.I16Array, 1)],
  [0x45, ti('FloatArray', K.F32Array, 1)],
  [0x46, ti('DoubleArray', K.F64Array, 1)],
  [0x47, ti('StringArray', K.StringArray, 1)],
  [0x49, ti('IntArray', K.IntArray, 1)],
  [0x4a, ti('Int64Array', K.I64Array, 1)],
  [0x53, ti('CustomArray', K.CustomArray, 2)],
  [0x54, ti('DictionaryArray', K.DictArray, 3)],
  [0x55, ti('HashtableArray', K.HashArray, 1)],
  // Slim custom types: the code is t - 0x80 ([P18b] writes codes below 100 this way).
  ...Array.from({ length: 0xe5 - 0x80 }, (_, i): [number, TypeInfo] => [0x80 + i, ti('Custom', K.Slim, 1, { wire: 'slim' })])
])

/** The logical type name of a type code, or undefined when the version has no such code. */
export function typeCodeName(version: GpVersion, code: number): PhotonTypeName | undefined {
  return (version === 16 ? TYPES16 : TYPES18)[code]?.name
}

const FIELD_TYPES: Partial<Record<PhotonTypeName, FieldType>> = {
  Boolean: 'bool',
  Byte: 'u8',
  Int16: 'i16',
  Int32: 'i32',
  Int64: 'i64',
  Float: 'f32',
  Double: 'f64',
  String: 'string',
  ByteArray: 'bytes',
  Custom: 'bytes'
}

const CODE_TEXT: readonly string[] = Array.from({ length: 256 }, (_, i) => String(i))
const hex2 = (n: number) => `0x${n.toString(16).padStart(2, '0')}`

/** The lazy label of a primitive array element, made outside the reading loop (see `elements`). */
function elementLabel(i: number, v: number | bigint | boolean | string): () => string {
  return () => `[${i}]: ${typeof v === 'string' ? JSON.stringify(v) : String(v)}`
}

/** The scalar a node carries (for filters), or undefined for containers. */
function nodeValue(v: PhotonValue): FieldScalar | undefined {
  switch (v.type) {
    case 'Null':
    case 'Boolean':
    case 'Byte':
    case 'Int16':
    case 'Int32':
    case 'Int64':
    case 'Float':
    case 'Double':
    case 'String':
    case 'ByteArray':
    case 'Custom':
      return v.value
    default:
      return undefined
  }
}

/** Entry keys that become a tree-key segment: integers and short strings. */
function keySegment(k: PhotonValue): string | null {
  switch (k.type) {
    case 'Byte':
    case 'Int16':
    case 'Int32':
    case 'Int64':
      return String(k.value)
    case 'String':
      return k.value.length <= 64 ? k.value : null
    default:
      return null
  }
}

function keyText(k: PhotonValue): string {
  switch (k.type) {
    case 'Byte':
    case 'Int16':
    case 'Int32':
    case 'Int64':
      return String(k.value)
    case 'String':
      return previewValue(k, 40)
    default:
      return `<${typeText(k)} ${previewValue(k, 24)}>`
  }
}

interface DictSlots {
  /** Fixed type codes, or -1 when every key/value carries its type byte. */
  k: number
  v: number
  keyType: PhotonSlotType
  valueType: PhotonSlotType
  min: number
}

// ---- the walker ----

class GpWalker {
  private readonly rec: boolean
  /** With a tree: whether its nodes get labels (a filter's tree goes without). */
  private readonly labelled: boolean
  private readonly le: boolean
  private readonly types: readonly (TypeInfo | undefined)[]
  private readonly maxDepth: number
  private readonly maxValues: number
  private small = 0
  /** Wire form of the value just read (for its label). */
  private wire: string | undefined

  constructor(
    readonly r: FieldReader,
    readonly version: GpVersion,
    readonly opts: GpOptions
  ) {
    this.rec = r.tree.recording
    this.labelled = r.tree.labels
    this.le = version === 18
    this.types = version === 16 ? TYPES16 : TYPES18
    // Bounded so a generous setting cannot exhaust the call stack (the walker recurses per level).
    this.maxDepth = Math.max(1, Math.min(opts.maxDepth ?? DEFAULT_MAX_DEPTH, 1000))
    this.maxValues = opts.maxValues ?? DEFAULT_MAX_VALUES
  }

  fail(message: string, offset: number): never {
    throw new DecodeError(`${message} at offset ${offset}`, offset)
  }

  private warn(text: string): void {
    this.opts.warn?.(text)
  }

  private info(code: number, at: number): TypeInfo {
    const t = this.types[code]
    if (!t) this.fail(`unknown Protocol${this.version} type code ${hex2(code)} (${code})`, at)
    return t
  }

  /** `0x69 'i' Int32` (P16 letters), `0x0c Int32 (Int1_)` (P18 wire forms). */
  private typeDesc(code: number, t: TypeInfo): string {
    const letter = this.version === 16 && code >= 0x21 && code < 0x7f ? ` '${String.fromCharCode(code)}'` : ''
    return `${hex2(code)}${letter} ${t.name}${t.wire ? ` (${t.wire})` : ''}`
  }

  private typeLabel(code: number, t: TypeInfo, what = 'Type'): string {
    return `${what}: ${this.typeDesc(code, t)}`
  }

  // -- nodes --

  private open(key: string, start: number): FieldNode | null {
    return this.rec ? this.r.tree.open({ key, label: '', type: 'none', source: this.r.source, start, length: 0 }) : null
  }

  /** Ends a node opened by `open`; `head` starts its label (the callers pass '' for a tree without labels). */
  private finish(node: FieldNode, head: string, v: PhotonValue | undefined, wire: string | undefined): void {
    this.r.tree.close(this.r.pos)
    if (!this.labelled) {
      if (v) this.typeNode(node, v)
      return
    }
    if (!v) {
      node.label = `${head}: (incomplete)`
      return
    }
    node.label = `${head}: ${this.describe(v, wire)}`
    this.typeNode(node, v)
  }

  private typeNode(node: FieldNode, v: PhotonValue): void {
    const scalar = nodeValue(v)
    if (scalar !== undefined) node.value = scalar
    node.type = FIELD_TYPES[v.type] ?? 'none'
  }

  private describe(v: PhotonValue, wire: string | undefined): string {
    const type = `${typeText(v)}${wire ? ` (${wire})` : ''}`
    if (v.type === 'Custom') {
      if (v.name) return `${type} ${v.name} ${previewValue(v)}`
      const d = decodeCustom(v.code, v.value)
      if (d.name) return `${type} ${d.name} ${previewValue(v)}${d.note ? ` (${d.note})` : ''}`
    }
    return `${type} ${previewValue(v)}`
  }

  /** Runs `read` inside its own node (key, range from `start`); `head` names it in the label. */
  private wrapped(key: string, start: number, head: () => string, read: () => PhotonValue): PhotonValue {
    const node = this.open(key, start)
    if (!node) return read()
    let v: PhotonValue | undefined
    try {
      this.wire = undefined
      v = read()
      return v
    } finally {
      this.finish(node, this.labelled ? head() : '', v, this.wireOf(v))
    }
  }

  /** Elements share their array's key. Callers read directly in the index pass (no closure per element). */
  private item(key: string, i: number, read: () => PhotonValue): PhotonValue {
    return this.rec ? this.wrapped(key, this.r.pos, () => `[${i}]`, read) : read()
  }

  /** The wire form of `v` just read: set by payload() last for scalars and customs, stale for containers. */
  private wireOf(v: PhotonValue | undefined): string | undefined {
    return v && (isScalar(v) || v.type === 'Custom') ? this.wire : undefined
  }

  // -- primitives --

  private count(at: number, what: string): number {
    const r = this.r
    if (this.le) return r.varint(F_VALUE.count, 5)
    const n = r.i16(F_VALUE.count)
    if (n < 0) this.fail(`${what} count ${n} is negative`, at)
    return n
  }

  private count32(at: number, what: string, def = F_VALUE.count): number {
    const n = this.r.i32(def)
    if (n < 0) this.fail(`${what} ${def === F_VALUE.count ? 'count' : 'length'} ${n} is negative`, at)
    return n
  }

  /** Checks `n` elements of at least `min` bytes each fit, or counts zero-size ones against maxValues. */
  private checkCount(n: number, min: number, at: number, what: string): void {
    const r = this.r
    if (min > 0) {
      if (n * min > r.remaining) this.fail(`${what} claims ${n} elements (at least ${n * min} bytes) but only ${r.remaining} bytes follow`, at)
    } else {
      this.small += n
      if (this.small > this.maxValues) this.fail(`${what} of ${n} zero-size elements exceeds the limit of ${this.maxValues} values per message`, at)
    }
  }

  /** `lengthDef` null inside string arrays: the element leaf covers length and bytes. */
  private string(lengthDef: FieldDef | null = F_VALUE.length): string {
    const r = this.r
    const at = r.pos
    const n = this.le ? r.varint(lengthDef, 5) : r.i16(lengthDef)
    if (n < 0) this.fail(`string length ${n} is negative`, at)
    r.need(n, 'string')
    return r.utf8(null, n)
  }

  private varint32(): number {
    const u = this.r.varint(null, 5) >>> 0 // bits past 32 are dropped, as the SDK does
    return ((u >>> 1) ^ -(u & 1)) | 0
  }

  private varint64(): bigint {
    const r = this.r
    const at = r.pos
    let n = 0
    let i = 0
    for (;;) {
      if (i >= 10) this.fail('varint longer than 10 bytes', at)
      r.need(1, 'varint')
      const b = r.bytes[r.pos++]
      if (i < 7) n += (b & 0x7f) * 2 ** (7 * i)
      i++
      if ((b & 0x80) === 0) break
    }
    // Up to 7 bytes (< 2^49) the number is exact; longer ones go through bigint.
    if (i <= 7) return BigInt(n % 2 ? -(n + 1) / 2 : n / 2)
    let u = 0n
    for (let j = i - 1; j >= 0; j--) u = (u << 7n) | BigInt(r.bytes[at + j] & 0x7f)
    u = BigInt.asUintN(64, u)
    return BigInt.asIntN(64, (u >> 1n) ^ -(u & 1n))
  }

  /** Primitive array elements: one leaf each, keyed like the array. */
  // The element reader is a kind switched on, not a closure: a closure per array made its caller allocate a context.
  private elements(key: string, n: number, ftype: FieldType, kind: E): (number | bigint | string)[] {
    const r = this.r
    const out = arrayFor<number | bigint | string>(n)
    const def = this.rec ? valueDef(key, ftype) : null
    for (let i = 0; i < n; i++) {
      const at = r.pos
      const v = this.element(kind)
      out[i] = v
      if (def) r.record(def, v, at, r.pos - at, elementLabel(i, v))
    }
    return out
  }

  private element(kind: E): number | bigint | string {
    const r = this.r
    switch (kind) {
      case E.I32:
        return r.i32(null)
      case E.Varint32:
        return this.varint32()
      case E.I16:
        return r.i16(null, true)
      case E.F32:
        return r.f32(null, true)
      case E.F64:
        return r.f64(null, true)
      case E.Varint64:
        return this.varint64()
      case E.String:
        return this.string(null)
    }
  }

  /** An array element in its own node (with a tree only: the closures stay out of the reading functions). */
  private typedItem(key: string, i: number, depth: number): PhotonValue {
    return this.item(key, i, () => this.typed(key, depth))
  }

  private hashtableItem(key: string, i: number, depth: number): PhotonValue {
    return this.item(key, i, () => this.hashtable(key, depth, this.r.pos))
  }

  private dictItem(s: DictSlots, key: string, i: number, depth: number): PhotonValue {
    return this.item(key, i, () => this.dictBody(s, key, depth, this.r.pos))
  }

  private payloadItem(code: number, t: TypeInfo, key: string, i: number, depth: number): PhotonValue {
    return this.item(key, i, () => this.payload(code, t, key, depth))
  }

  private customItem(c: number, key: string, i: number): PhotonValue {
    return this.item(key, i, () => this.customBody(c, key))
  }

  private debugMessage(depth: number): PhotonValue {
    return this.wrapped(
      F_VALUE.debug_message.key,
      this.r.pos,
      () => 'Debug message',
      () => this.typed(F_VALUE.debug_message.key, depth)
    )
  }

  // -- values --

  /** Type byte + payload; fields go into the node open around it. */
  typed(key: string, depth: number): PhotonValue {
    const r = this.r
    const at = r.pos
    const code = r.u8(null)
    const t = this.info(code, at)
    if (this.rec) r.record(F_VALUE.type, code, at, 1, this.labelled ? this.typeLabel(code, t) : undefined)
    return this.payload(code, t, key, depth)
  }

  /** A typed value (code -1) or a payload of a fixed type. */
  private slot(code: number, key: string, depth: number): PhotonValue {
    return code < 0 ? this.typed(key, depth) : this.payload(code, this.types[code]!, key, depth)
  }

  private payload(code: number, t: TypeInfo, key: string, depth: number): PhotonValue {
    const v = this.payloadOf(code, t, key, depth)
    this.wire = t.wire
    return v
  }

  private payloadOf(code: number, t: TypeInfo, key: string, depth: number): PhotonValue {
    const r = this.r
    const le = this.le
    switch (t.kind) {
      case K.Null:
        return { type: 'Null', value: null }
      case K.Const:
        return { type: t.name, value: t.constant } as PhotonValue
      case K.Bool:
        return { type: 'Boolean', value: r.u8(null) !== 0 }
      case K.Byte:
        return { type: 'Byte', value: r.u8(null) }
      case K.I16:
        return { type: 'Int16', value: r.i16(null, le) }
      case K.I32:
        return { type: 'Int32', value: r.i32(null) }
      case K.I64:
        return { type: 'Int64', value: r.i64(null) }
      case K.F32:
        return { type: 'Float', value: r.f32(null, le) }
      case K.F64:
        return { type: 'Double', value: r.f64(null, le) }
      case K.String:
        return { type: 'String', value: this.string() }
      case K.Varint32:
        return { type: 'Int32', value: this.varint32() }
      case K.Varint64:
        return { type: 'Int64', value: this.varint64() }
      case K.Int1: {
        const b = r.u8(null)
        return { type: 'Int32', value: t.neg ? -b | 0 : b }
      }
      case K.Int2: {
        const b = r.u16(null, true)
        return { type: 'Int32', value: t.neg ? -b | 0 : b }
      }
      case K.Long1: {
        const b = BigInt(r.u8(null))
        return { type: 'Int64', value: t.neg ? -b : b }
      }
      case K.Long2: {
        const b = BigInt(r.u16(null, true))
        return { type: 'Int64', value: t.neg ? -b : b }
      }
      case K.Bytes: {
        const at = r.pos
        const n = le ? r.varint(F_VALUE.length, 5) : this.count32(at, 'byte[]', F_VALUE.length)
        r.need(n, 'byte[]')
        return { type: 'ByteArray', value: r.bytesField(null, n) }
      }
      case K.Custom: {
        const c = r.u8(F_VALUE.custom_code)
        return this.customBody(c, key)
      }
      case K.Slim:
        return this.customBody(code - 0x80, key)
    }
    return this.container(code, t, key, depth)
  }

  /**
   * Containers, apart from payloadOf: their element closures make V8 allocate a context on every call of
   * the function holding them, which payloadOf (run for every scalar too) must not pay.
   */
  private container(code: number, t: TypeInfo, key: string, depth: number): PhotonValue {
    const r = this.r
    const at = r.pos
    if (depth > this.maxDepth) this.fail(`nesting deeper than ${this.maxDepth}`, at)
    // The common containers, which need no closure; the rest go through sequence().
    switch (t.kind) {
      case K.BoolArray:
        return this.boolArray(key, at)
      case K.Hashtable:
        return this.hashtable(key, depth, at)
      case K.Dictionary:
        return this.dictBody(this.dictHeader(depth), key, depth, r.pos)
      case K.Array16:
        return this.array16(key, depth, at)
      case K.Event: {
        const c = r.u8(F_VALUE.code)
        return { type: 'EventData', code: c, parameters: this.params(depth + 1, key) }
      }
      case K.Request: {
        const c = r.u8(F_VALUE.code)
        return { type: 'OperationRequest', code: c, parameters: this.params(depth + 1, key) }
      }
    }
    return this.sequence(code, t, key, depth, at)
  }

  /** Arrays and the rest: apart from container(), which runs for every Hashtable and Dictionary. */
  private sequence(code: number, t: TypeInfo, key: string, depth: number, at: number): PhotonValue {
    const r = this.r
    const le = this.le
    switch (t.kind) {
      case K.IntArray: {
        const n = le ? r.varint(F_VALUE.count, 5) : this.count32(at, 'int[]')
        this.checkCount(n, le ? 1 : 4, at, 'int[]')
        return { type: 'IntArray', value: this.elements(key, n, 'i32', le ? E.Varint32 : E.I32) as number[] }
      }
      case K.I16Array: {
        const n = r.varint(F_VALUE.count, 5)
        this.checkCount(n, 2, at, 'short[]')
        return { type: 'Int16Array', value: this.elements(key, n, 'i16', E.I16) as number[] }
      }
      case K.F32Array: {
        const n = r.varint(F_VALUE.count, 5)
        this.checkCount(n, 4, at, 'float[]')
        return { type: 'FloatArray', value: this.elements(key, n, 'f32', E.F32) as number[] }
      }
      case K.F64Array: {
        const n = r.varint(F_VALUE.count, 5)
        this.checkCount(n, 8, at, 'double[]')
        return { type: 'DoubleArray', value: this.elements(key, n, 'f64', E.F64) as number[] }
      }
      case K.I64Array: {
        const n = r.varint(F_VALUE.count, 5)
        this.checkCount(n, 1, at, 'long[]')
        return { type: 'Int64Array', value: this.elements(key, n, 'i64', E.Varint64) as bigint[] }
      }
      case K.StringArray: {
        const n = this.count(at, 'string[]')
        this.checkCount(n, le ? 1 : 2, at, 'string[]')
        return { type: 'StringArray', value: this.elements(key, n, 'string', E.String) as string[] }
      }
      case K.ObjectArray: {
        const n = this.count(at, 'object[]')
        this.checkCount(n, 1, at, 'object[]')
        const out = arrayFor<PhotonValue>(n)
        for (let i = 0; i < n; i++) out[i] = this.rec ? this.typedItem(key, i, depth + 1) : this.typed(key, depth + 1)
        return { type: 'ObjectArray', value: out }
      }
      case K.ArrayInArray: {
        const n = r.varint(F_VALUE.count, 5)
        this.checkCount(n, 1, at, 'array of arrays')
        const out = arrayFor<PhotonValue>(n)
        for (let i = 0; i < n; i++) out[i] = this.rec ? this.typedItem(key, i, depth + 1) : this.typed(key, depth + 1)
        const first = out[0]?.type
        return { type: 'Array', elementType: first && out.every((x) => x.type === first) ? first : 'Object', value: out }
      }
      case K.HashArray: {
        const n = r.varint(F_VALUE.count, 5)
        this.checkCount(n, 1, at, 'Hashtable[]')
        const out = arrayFor<PhotonHashtable>(n)
        for (let i = 0; i < n; i++) out[i] = (this.rec ? this.hashtableItem(key, i, depth + 1) : this.hashtable(key, depth + 1, r.pos)) as PhotonHashtable
        return { type: 'HashtableArray', value: out }
      }
      case K.DictArray: {
        const s = this.dictHeader(depth)
        const cAt = r.pos
        const n = r.varint(F_VALUE.count, 5)
        this.checkCount(n, 1, cAt, 'Dictionary[]')
        const out = arrayFor<PhotonDictionary>(n)
        for (let i = 0; i < n; i++) out[i] = (this.rec ? this.dictItem(s, key, i, depth + 1) : this.dictBody(s, key, depth + 1, r.pos)) as PhotonDictionary
        return { type: 'DictionaryArray', keyType: s.keyType, valueType: s.valueType, value: out }
      }
      case K.CustomArray: {
        const n = r.varint(F_VALUE.count, 5)
        const c = r.u8(F_VALUE.custom_code)
        this.checkCount(n, 1, at, 'custom type array')
        const out = arrayFor<PhotonCustom>(n)
        for (let i = 0; i < n; i++) out[i] = (this.rec ? this.customItem(c, key, i) : this.customBody(c, key)) as PhotonCustom
        return { type: 'CustomArray', code: c, value: out }
      }
      case K.Response: {
        const c = r.u8(F_VALUE.code)
        const returnCode = r.i16(F_VALUE.return_code, le)
        const debugMessage = this.rec ? this.debugMessage(depth + 1) : this.typed(F_VALUE.debug_message.key, depth + 1)
        return { type: 'OperationResponse', code: c, returnCode, debugMessage, parameters: this.params(depth + 1, key) }
      }
    }
    return this.fail(`type ${hex2(code)} has no reader`, at)
  }

  private customBody(code: number, key: string): PhotonCustom {
    const r = this.r
    const at = r.pos
    const n = this.le ? r.varint(F_VALUE.length, 5) : r.i16(F_VALUE.length)
    if (n < 0) this.fail(`custom type ${code} length ${n} is negative`, at)
    r.need(n, 'custom type payload')
    const spec = this.opts.customTypes?.get(code)
    if (spec) return this.packCustom(spec, n, key)
    const bytes = r.bytesField(null, n)
    const d = decodeCustom(code, bytes)
    if (d.note) this.warn(`custom type ${customCodeText(code)}: ${d.note}`)
    return d.decoded ? { type: 'Custom', code, value: bytes, decoded: d.decoded } : { type: 'Custom', code, value: bytes }
  }

  /**
   * A custom type a schema pack lays out: its fields are leaves inside the value's node. A payload of another
   * size than a fixed layout, or too short for one, stays bytes with a warning (as PUN's types do).
   */
  private packCustom(spec: PhotonCustomTypeSpec, n: number, key: string): PhotonCustom {
    const r = this.r
    const start = r.pos
    const bytes = r.bytesField(null, n)
    const size = structSize(spec)
    const what = `custom type ${customCodeText(spec.code)} (${spec.name})`
    if (size !== null && size !== n) {
      this.warn(`${what}: ${n} bytes where the schema pack's layout has ${size}: not decoded`)
      return { type: 'Custom', code: spec.code, value: bytes, name: spec.name }
    }
    // Laid out in a sub-reader over exactly the payload, so a short one fails here and not the message.
    const sub = new FieldReader(r.bytes, r.tree, r.source, start, start + n)
    try {
      const decoded = readStruct(sub, spec, key)
      if (sub.remaining) this.warn(`${what}: ${sub.remaining} bytes after its layout`)
      return { type: 'Custom', code: spec.code, value: bytes, name: spec.name, decoded }
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e
      this.warn(`${what}: ${e.message}`)
      return { type: 'Custom', code: spec.code, value: bytes, name: spec.name }
    }
  }

  private boolArray(key: string, at: number): PhotonValue {
    const r = this.r
    const n = r.varint(F_VALUE.count, 5)
    const nBytes = Math.ceil(n / 8)
    if (nBytes > r.remaining) this.fail(`bool[] claims ${n} elements (${nBytes} bytes) but only ${r.remaining} bytes follow`, at)
    this.checkCount(n, 0, at, 'bool[]') // 8 values per byte: counted against the cap
    const start = r.pos
    const bits = r.bytesField(null, nBytes)
    const out: boolean[] = new Array(n)
    for (let i = 0; i < n; i++) out[i] = (bits[i >> 3] & (1 << (i & 7))) !== 0
    if (this.rec) {
      const def = valueDef(key, 'bool')
      for (let i = 0; i < n; i++) r.record(def, out[i], start + (i >> 3), 1, () => `[${i}]: ${out[i]} (bit ${i & 7})`)
    }
    return { type: 'BooleanArray', value: out }
  }

  private hashtable(key: string, depth: number, at: number): PhotonHashtable {
    if (depth > this.maxDepth) this.fail(`nesting deeper than ${this.maxDepth}`, at)
    const n = this.count(at, 'Hashtable')
    this.checkCount(n, 2, at, 'Hashtable')
    const out = arrayFor<PhotonEntry>(n)
    for (let i = 0; i < n; i++) out[i] = this.entry(key, depth + 1, -1, -1)
    return { type: 'Hashtable', value: out }
  }

  /** keyType, valueType (P18: a nested header after 0x14, a 0x40 chain after 0x40). */
  private dictHeader(depth: number): DictSlots {
    const r = this.r
    const kAt = r.pos
    const kc = r.u8(null)
    const k = this.slotCode(kc, kAt)
    if (this.rec) r.record(F_VALUE.key_type, kc, kAt, 1, k < 0 ? `Key type: ${kc} (per-entry types)` : this.typeLabel(kc, this.types[kc]!, 'Key type'))
    const vAt = r.pos
    const vc = r.u8(null)
    let v: number
    let valueType: PhotonSlotType
    let shown: string
    if (this.le && vc === 0x14) {
      shown = `Dictionary<${this.nestedHeader(depth + 1)}>`
      v = 0x14
      valueType = 'Dictionary'
    } else if (this.le && vc === 0x40) {
      let levels = 1
      let base: number
      while ((base = r.u8(null)) === 0x40) levels++
      const b = this.info(base, r.pos - 1)
      shown = `${'Array of '.repeat(levels)}${b.name}`
      v = -1 // every value carries its own type byte
      valueType = 'Array'
    } else {
      v = this.slotCode(vc, vAt)
      valueType = v < 0 ? 'Object' : this.types[v]!.name
      shown = v < 0 ? '' : this.typeDesc(vc, this.types[vc]!)
    }
    if (this.rec)
      r.record(F_VALUE.value_type, vc, vAt, r.pos - vAt, v < 0 && valueType === 'Object' ? `Value type: ${vc} (per-entry types)` : `Value type: ${shown}`)
    const min = (k < 0 ? 1 : this.types[k]!.min) + (v < 0 ? 1 : this.types[v]!.min)
    return { k, v, keyType: k < 0 ? 'Object' : this.types[k]!.name, valueType, min }
  }

  /** A P18 nested dictionary header (key type, value type, recursively); returns its description. */
  private nestedHeader(depth: number): string {
    const r = this.r
    if (depth > this.maxDepth) this.fail(`nesting deeper than ${this.maxDepth}`, r.pos)
    const kAt = r.pos
    const k = this.slotCode(r.u8(null), kAt)
    const vAt = r.pos
    const vc = r.u8(null)
    let value: string
    if (vc === 0x14) value = `Dictionary<${this.nestedHeader(depth + 1)}>`
    else if (vc === 0x40) {
      let base: number
      while ((base = r.u8(null)) === 0x40);
      value = `Array of ${this.info(base, r.pos - 1).name}`
    } else {
      const v = this.slotCode(vc, vAt)
      value = v < 0 ? 'Object' : this.types[v]!.name
    }
    return `${k < 0 ? 'Object' : this.types[k]!.name},${value}`
  }

  /** -1 for "each entry carries its type byte" (0, and '*' in P16), else a known type code. */
  private slotCode(c: number, at: number): number {
    if (c === 0 || (!this.le && c === 0x2a)) return -1
    this.info(c, at)
    return c
  }

  private dictBody(s: DictSlots, key: string, depth: number, at: number): PhotonDictionary {
    if (depth > this.maxDepth) this.fail(`nesting deeper than ${this.maxDepth}`, at)
    const n = this.count(at, 'Dictionary')
    this.checkCount(n, s.min, at, 'Dictionary')
    const out = arrayFor<PhotonEntry>(n)
    for (let i = 0; i < n; i++) out[i] = this.entry(key, depth + 1, s.k, s.v)
    return { type: 'Dictionary', keyType: s.keyType, valueType: s.valueType, value: out }
  }

  /** One Hashtable/Dictionary entry: a node `<parent>.<key>` holding a key node and the value's fields. */
  private entry(parent: string, depth: number, kc: number, vc: number): PhotonEntry {
    const node = this.open(parent, this.r.pos)
    if (!node) {
      const key = this.slot(kc, parent, depth)
      return { key, value: this.slot(vc, parent, depth) }
    }
    return this.entryNode(node, parent, depth, kc, vc)
  }

  /** entry() with a tree: its key closure lives here so the tree-less path allocates no context for it. */
  private entryNode(node: FieldNode, parent: string, depth: number, kc: number, vc: number): PhotonEntry {
    const r = this.r
    let key: PhotonValue | undefined
    let value: PhotonValue | undefined
    try {
      key = this.wrapped(
        F_VALUE.entry_key.key,
        r.pos,
        () => 'Key',
        () => this.slot(kc, parent, depth)
      )
      const seg = keySegment(key)
      if (seg !== null) node.key = `${parent}.${seg}`
      this.wire = undefined
      value = this.slot(vc, node.key, depth)
      return { key, value }
    } finally {
      this.finish(node, !this.labelled ? '' : key ? keyText(key) : '(key)', value, this.wireOf(value))
    }
  }

  private array16(key: string, depth: number, at: number): PhotonValue {
    const r = this.r
    const n = this.count(at, 'Array')
    const eAt = r.pos
    const ec = r.u8(null)
    if (ec === 0x63) {
      // Custom elements: the custom code once, then per element an i16 length + bytes.
      if (this.rec) r.record(F_VALUE.element_type, ec, eAt, 1, () => `Element type: 0x63 'c' Custom`)
      const c = r.u8(F_VALUE.custom_code)
      this.checkCount(n, 2, at, 'Array')
      const out = arrayFor<PhotonValue>(n)
      for (let i = 0; i < n; i++) out[i] = this.rec ? this.customItem(c, key, i) : this.customBody(c, key)
      return { type: 'Array', elementType: 'Custom', value: out }
    }
    if (ec === 0x44) {
      // Dictionary elements: one header, then per element a count + entries.
      if (this.rec) r.record(F_VALUE.element_type, ec, eAt, 1, () => `Element type: 0x44 'D' Dictionary`)
      const s = this.dictHeader(depth)
      this.checkCount(n, 2, at, 'Array')
      const out = arrayFor<PhotonValue>(n)
      for (let i = 0; i < n; i++) out[i] = this.rec ? this.dictItem(s, key, i, depth + 1) : this.dictBody(s, key, depth + 1, r.pos)
      return { type: 'Array', elementType: 'Dictionary', value: out }
    }
    const t = this.info(ec, eAt)
    if (this.rec) r.record(F_VALUE.element_type, ec, eAt, 1, this.labelled ? this.typeLabel(ec, t, 'Element type') : undefined)
    this.checkCount(n, t.min, at, 'Array')
    const out = arrayFor<PhotonValue>(n)
    for (let i = 0; i < n; i++) out[i] = this.rec ? this.payloadItem(ec, t, key, i, depth + 1) : this.payload(ec, t, key, depth + 1)
    return { type: 'Array', elementType: t.name, value: out }
  }

  // -- parameter tables and bodies --

  /** A parameter table; `prefix` null for the body's own (keys photon.param.<code>, named). */
  params(depth: number, prefix: string | null, map: PhotonParams = new Map()): PhotonParams {
    const r = this.r
    const at = r.pos
    const n = this.le ? r.u8(F_BODY.param_count) : r.i16(F_BODY.param_count)
    if (n < 0) this.fail(`parameter count ${n} is negative`, at)
    this.checkCount(n, 2, at, 'parameter table')
    for (let i = 0; i < n; i++) {
      const start = r.pos
      const node = this.open('', start)
      let code = -1
      let v: PhotonValue | undefined
      try {
        code = r.u8(null)
        const key = prefix === null ? PARAM_KEYS[code] : `${prefix}.${code}`
        if (node) node.key = key
        // Recorded at both depths: photon.key is an index field (a filter on parameter codes reads the index).
        // A string, not a closure: a closure over the loop's `code` costs a context per parameter at both depths.
        if (this.rec) r.record(F_BODY.key, code, start, 1, this.labelled ? `Parameter code: ${this.paramHead(code, prefix)}` : undefined)
        else r.tree.indexValue(F_BODY.key, code)
        this.wire = undefined
        v = this.typed(key, depth)
      } finally {
        if (node) this.finish(node, !this.labelled ? '' : code < 0 ? 'Parameter' : this.paramHead(code, prefix), v, this.wireOf(v))
        else if (prefix === null && code >= 0) this.indexParam(code, v)
      }
      if (prefix === null) this.opts.onParam?.(code, node, v)
      const k = CODE_TEXT[code]
      if (map.has(k)) {
        this.warn(`duplicate parameter ${code} at offset ${start}: the last value is kept`)
        map.delete(k) // re-inserted below: the Map keeps the last value at its last wire position
      }
      map.set(k, v)
    }
    return map
  }

  /**
   * Without a tree, what the index keeps of a body parameter (its node photon.param.<code> with a tree):
   * its value when that is all its tree has under the key, a scalar (a long string: see keepValue);
   * otherwise only that the body has it, which also tells a view to decode the message again for the
   * parameter's values: a container's elements and key-less entries share its key, bytes and long strings
   * stay out of the index, and a value cut short may have left nodes under the key.
   */
  private indexParam(code: number, v: PhotonValue | undefined): void {
    const tree = this.r.tree
    if (v && isScalar(v)) tree.keepValue(PARAM_KEYS[code], nodeValue(v)!)
    else tree.presentKey(PARAM_PRESENCE_KEYS[code])
  }

  private paramHead(code: number, prefix: string | null): string {
    const name = prefix === null ? this.opts.paramName?.(code) : undefined
    return name ? `${name} (${code})` : `Parameter ${code}`
  }

  codeLeaf(def: typeof F_OP.code, what: string): number {
    const r = this.r
    const at = r.pos
    const code = r.u8(null)
    if (this.rec) {
      const name = this.opts.codeName?.(code)
      r.record(def, code, at, 1, `${what}: ${code}${name ? ` (${name})` : ''}`)
    } else r.tree.indexValue(def, code)
    return code
  }

  /** A top-level typed value in its own node. */
  topValue(key: string, head: string): PhotonValue {
    return this.wrapped(
      key,
      this.r.pos,
      () => head,
      () => this.typed(key, 1)
    )
  }
}

// ---- public API ----

export interface PhotonBody {
  code: number
  parameters: PhotonParams
  returnCode?: number
  debugMessage?: PhotonValue
}

const partials = new WeakMap<DecodeError, PhotonBody>()

/** What a message reader had read when it threw `e`: the code and the parameters read completely. */
export function partialBody(e: DecodeError): PhotonBody | undefined {
  return partials.get(e)
}

/** Runs `fn`, turning anything but a DecodeError into one (the readers' contract), and keeping the partial body. */
function guard<T>(r: FieldReader, partial: PhotonBody | null, fn: () => T): T {
  try {
    return fn()
  } catch (e) {
    const err = e instanceof DecodeError ? e : new DecodeError(`decoder failure: ${e instanceof Error ? e.message : String(e)} at offset ${r.pos}`, r.pos)
    if (partial && partial.code >= 0) partials.set(err, partial)
    throw err
  }
}

/** Reads the parameter table into `into` (so a failure keeps the parameters read so far). */
function readParams(w: GpWalker, into: PhotonBody): PhotonParams {
  return w.params(1, null, into.parameters)
}

/** Reads one typed value (type byte + payload) at r.pos, in a node keyed opts.key (default photon.value). */
export function readTypedValue(r: FieldReader, version: GpVersion, opts: GpOptions = {}): PhotonValue {
  const w = new GpWalker(r, version, opts)
  return guard(r, null, () => w.topValue(opts.key ?? F_VALUE_ROOT.key, 'Value'))
}

/** OperationRequest body (msgType 2 and 6): opCode + parameter table. */
export function readOperationRequest(r: FieldReader, version: GpVersion, opts: GpOptions = {}): { code: number; parameters: PhotonParams } {
  const w = new GpWalker(r, version, opts)
  const body: PhotonBody = { code: -1, parameters: new Map() }
  return guard(r, body, () => {
    body.code = w.codeLeaf(F_OP.code, 'Operation code')
    readParams(w, body)
    return { code: body.code, parameters: body.parameters }
  })
}

/** OperationResponse body (msgType 3 and 7): opCode, returnCode (P16 BE, P18 LE), debugMessage (any typed value), parameters. */
export function readOperationResponse(
  r: FieldReader,
  version: GpVersion,
  opts: GpOptions = {}
): { code: number; returnCode: number; debugMessage: PhotonValue; parameters: PhotonParams } {
  const w = new GpWalker(r, version, opts)
  const body: PhotonBody = { code: -1, parameters: new Map() }
  return guard(r, body, () => {
    body.code = w.codeLeaf(F_OP.code, 'Operation code')
    body.returnCode = r.i16(F_BODY.return_code, version === 18)
    body.debugMessage = w.topValue(F_BODY.debug_message.key, 'Debug message')
    readParams(w, body)
    return { code: body.code, returnCode: body.returnCode, debugMessage: body.debugMessage, parameters: body.parameters }
  })
}

/** Event body (msgType 4): event code + parameter table. */
export function readEvent(r: FieldReader, version: GpVersion, opts: GpOptions = {}): { code: number; parameters: PhotonParams } {
  const w = new GpWalker(r, version, opts)
  const body: PhotonBody = { code: -1, parameters: new Map() }
  return guard(r, body, () => {
    body.code = w.codeLeaf(F_EV.code, 'Event code')
    readParams(w, body)
    return { code: body.code, parameters: body.parameters }
  })
}

/** DisconnectMessage body (msgType 5): code i16 (P16 BE, P18 LE), debugMessage typed, parameters. */
export function readDisconnectMessage(
  r: FieldReader,
  version: GpVersion,
  opts: GpOptions = {}
): { code: number; debugMessage: PhotonValue; parameters: PhotonParams } {
  const w = new GpWalker(r, version, opts)
  const body: PhotonBody = { code: -1, parameters: new Map() }
  return guard(r, body, () => {
    body.code = r.i16(F_BODY.disconnect_code, version === 18)
    body.debugMessage = w.topValue(F_BODY.debug_message.key, 'Debug message')
    readParams(w, body)
    return { code: body.code, debugMessage: body.debugMessage, parameters: body.parameters }
  })
}

/** Message body (msgType 8): one serialized object, in a node keyed photon.message. */
export function readMessageObject(r: FieldReader, version: GpVersion, opts: GpOptions = {}): PhotonValue {
  const w = new GpWalker(r, version, opts)
  return guard(r, null, () => w.topValue(F_BODY.message.key, 'Message'))
}

/** Reads the body of a message type (masking the encrypted bit); null for types without a GpBinary body (0, 1, 9). */
export function readMessageBody(r: FieldReader, version: GpVersion, msgType: number, opts: GpOptions = {}): PhotonBody | PhotonValue | null {
  switch (msgType & 0x7f) {
    case 2:
    case 6:
      return readOperationRequest(r, version, opts)
    case 3:
    case 7:
      return readOperationResponse(r, version, opts)
    case 4:
      return readEvent(r, version, opts)
    case 5:
      return readDisconnectMessage(r, version, opts)
    case 8:
      return readMessageObject(r, version, opts)
    default:
      return null
  }
}

/**
 * Decides Protocol16 vs Protocol18 for a body when no Init was seen: the version whose parse consumes the
 * body exactly without error wins. Both or neither fitting gives `confident: false` (then the one that
 * parsed further, Protocol16 on a tie).
 */
export function trialVersion(bytes: Uint8Array, msgType: number): { version: GpVersion; confident: boolean } {
  const t = msgType & 0x7f
  if (![2, 3, 4, 5, 6, 7, 8].includes(t)) return { version: 16, confident: false }
  const attempt = (v: GpVersion): { fits: boolean; progress: number } => {
    const r = new FieldReader(bytes, new TreeBuilder(false), 0)
    try {
      readMessageBody(r, v, t)
      return { fits: r.pos === r.end, progress: r.pos }
    } catch (e) {
      return { fits: false, progress: e instanceof DecodeError ? e.offset : 0 }
    }
  }
  const a = attempt(16)
  const b = attempt(18)
  if (a.fits !== b.fits) return { version: a.fits ? 16 : 18, confident: true }
  return { version: b.progress > a.progress ? 18 : 16, confident: false }
}
