// An independent GpBinary encoder for the tests, written from docs/photon.md (What is decoded: GpBinary 1.6,
// Protocol16, and 1.8, Protocol18), not from the decoder. Values are the decoder's typed values (builders in `pv`);
// wire choices the typed value cannot express (a compact int form, a dictionary's fixed key code, a raw
// header) are attached with `wire(value, hint)` and stay invisible to toEqual.
import { FieldReader } from '../../../../src-shared/bytes/reader'
import { TreeBuilder } from '../../../../src-shared/bytes/tree'
import type { FieldNode } from '../../../../src-shared/model/types'
import type {
  PhotonCustom,
  PhotonDictionary,
  PhotonEntry,
  PhotonHashtable,
  PhotonParams,
  PhotonSlotType,
  PhotonTypeName,
  PhotonValue
} from '../../../../src-shared/protocols/photon/values'

export type PV = PhotonValue
export type Params = [code: number, value: PV][]

export interface Hint {
  /** The type byte to write where the value is typed (P18: any compact form; P16: e.g. 0x00 for Null). */
  code?: number
  /** Dictionary / DictionaryArray fixed key and value codes (0 = per-entry typed). */
  keyCode?: number
  valueCode?: number
  /** Raw dictionary header bytes (key type, value type and any nested header), replacing the computed one. */
  header?: number[]
  /** P16 typed array element code. */
  elemCode?: number
}

const hints = new WeakMap<object, Hint>()
export function wire<T extends PV>(v: T, h: Hint): T {
  hints.set(v, h)
  return v
}
const hint = (v: PV): Hint => hints.get(v) ?? {}

// ---- builders (the values the decoder must produce) ----

const f32 = (x: number) => Math.fround(x)
const beFloats = (...xs: number[]) => {
  const dv = new DataView(new ArrayBuffer(xs.length * 4))
  xs.forEach((x, i) => dv.setFloat32(i * 4, x))
  return new Uint8Array(dv.buffer)
}

export const pv = {
  null: (): PV => ({ type: 'Null', value: null }),
  bool: (value: boolean): PV => ({ type: 'Boolean', value }),
  byte: (value: number): PV => ({ type: 'Byte', value }),
  short: (value: number): PV => ({ type: 'Int16', value }),
  int: (value: number): PV => ({ type: 'Int32', value }),
  long: (value: bigint): PV => ({ type: 'Int64', value }),
  float: (value: number): PV => ({ type: 'Float', value: f32(value) }),
  double: (value: number): PV => ({ type: 'Double', value }),
  str: (value: string): PV => ({ type: 'String', value }),
  bytes: (value: number[] | Uint8Array): PV => ({ type: 'ByteArray', value: Uint8Array.from(value) }),
  ints: (value: number[]): PV => ({ type: 'IntArray', value }),
  strs: (value: string[]): PV => ({ type: 'StringArray', value }),
  objs: (...value: PV[]): PV => ({ type: 'ObjectArray', value }),
  arr: (elementType: PhotonSlotType, ...value: PV[]): PV => ({ type: 'Array', elementType, value }),
  hash: (...entries: [PV, PV][]): PhotonHashtable => ({ type: 'Hashtable', value: entries.map(([key, value]) => ({ key, value })) }),
  dict: (keyType: PhotonSlotType, valueType: PhotonSlotType, ...entries: [PV, PV][]): PhotonDictionary => ({
    type: 'Dictionary',
    keyType,
    valueType,
    value: entries.map(([key, value]) => ({ key, value }))
  }),
  custom: (code: number, value: number[] | Uint8Array, decoded?: Record<string, number>): PhotonCustom =>
    decoded ? { type: 'Custom', code, value: Uint8Array.from(value), decoded } : { type: 'Custom', code, value: Uint8Array.from(value) },
  vec2: (x: number, y: number) => pv.custom(0x57, beFloats(x, y), { x: f32(x), y: f32(y) }),
  vec3: (x: number, y: number, z: number) => pv.custom(0x56, beFloats(x, y, z), { x: f32(x), y: f32(y), z: f32(z) }),
  quat: (w: number, x: number, y: number, z: number) => pv.custom(0x51, beFloats(w, x, y, z), { w: f32(w), x: f32(x), y: f32(y), z: f32(z) }),
  player: (actorNr: number) => pv.custom(0x50, [(actorNr >> 24) & 255, (actorNr >> 16) & 255, (actorNr >> 8) & 255, actorNr & 255], { actorNr }),
  // Protocol18 only
  bools: (value: boolean[]): PV => ({ type: 'BooleanArray', value }),
  shorts: (value: number[]): PV => ({ type: 'Int16Array', value }),
  floats: (value: number[]): PV => ({ type: 'FloatArray', value: value.map(f32) }),
  doubles: (value: number[]): PV => ({ type: 'DoubleArray', value }),
  longs: (value: bigint[]): PV => ({ type: 'Int64Array', value }),
  customs: (code: number, ...value: PhotonCustom[]): PV => ({ type: 'CustomArray', code, value }),
  dicts: (keyType: PhotonSlotType, valueType: PhotonSlotType, ...value: PhotonDictionary[]): PV => ({ type: 'DictionaryArray', keyType, valueType, value }),
  hashes: (...value: PhotonHashtable[]): PV => ({ type: 'HashtableArray', value }),
  // nested messages
  params: (ps: Params): PhotonParams => new Map(ps.map(([c, v]) => [String(c), v])),
  event: (code: number, ps: Params = []): PV => ({ type: 'EventData', code, parameters: pv.params(ps) }),
  request: (code: number, ps: Params = []): PV => ({ type: 'OperationRequest', code, parameters: pv.params(ps) }),
  response: (code: number, returnCode: number, debugMessage: PV, ps: Params = []): PV => ({
    type: 'OperationResponse',
    code,
    returnCode,
    debugMessage,
    parameters: pv.params(ps)
  })
}

// ---- byte helpers ----

type B = number[]
function be(size: number, write: (d: DataView) => void, le = false): B {
  const d = new DataView(new ArrayBuffer(size))
  write(d)
  const out = [...new Uint8Array(d.buffer)]
  return le ? out.reverse() : out
}
const i16be = (n: number) => be(2, (d) => d.setInt16(0, n))
const i32be = (n: number) => be(4, (d) => d.setInt32(0, n))
const utf8 = (s: string) => [...Buffer.from(s, 'utf8')]

/** Unsigned LEB128 of a non-negative integer (number up to 2^53 or bigint). */
export function varint(n: number | bigint): B {
  let v = BigInt(n)
  const out: B = []
  do {
    let b = Number(v & 0x7fn)
    v >>= 7n
    if (v) b |= 0x80
    out.push(b)
  } while (v)
  return out
}
export const zigzag32 = (n: number) => varint(((n << 1) ^ (n >> 31)) >>> 0)
export const zigzag64 = (n: bigint) => varint(BigInt.asUintN(64, (n << 1n) ^ (n >> 63n)))

// ---- Protocol16 ----

const C16: Record<PhotonTypeName, number | undefined> = {
  Null: 0x2a,
  Boolean: 0x6f,
  Byte: 0x62,
  Int16: 0x6b,
  Int32: 0x69,
  Int64: 0x6c,
  Float: 0x66,
  Double: 0x64,
  String: 0x73,
  ByteArray: 0x78,
  IntArray: 0x6e,
  StringArray: 0x61,
  ObjectArray: 0x7a,
  Array: 0x79,
  Hashtable: 0x68,
  Dictionary: 0x44,
  Custom: 0x63,
  EventData: 0x65,
  OperationRequest: 0x71,
  OperationResponse: 0x70,
  BooleanArray: undefined,
  Int16Array: undefined,
  FloatArray: undefined,
  DoubleArray: undefined,
  Int64Array: undefined,
  CustomArray: undefined,
  DictionaryArray: undefined,
  HashtableArray: undefined
}

function code16(t: PhotonSlotType): number {
  if (t === 'Object') return 0
  const c = C16[t]
  if (c === undefined) throw new Error(`Protocol16 has no ${t}`)
  return c
}

/** Type byte + payload. */
export function enc16(v: PV): B {
  return [hint(v).code ?? code16(v.type), ...pay16(v)]
}

function str16(s: string): B {
  const b = utf8(s)
  return [...i16be(b.length), ...b]
}

function params16(ps: PhotonParams | Params): B {
  const list = ps instanceof Map ? [...ps].map(([k, v]) => [Number(k), v] as const) : ps
  return [...i16be(list.length), ...list.flatMap(([c, v]) => [c, ...enc16(v)])]
}

function dictHeader16(d: { keyType: PhotonSlotType; valueType: PhotonSlotType }, h: Hint): B {
  return h.header ?? [h.keyCode ?? code16(d.keyType), h.valueCode ?? code16(d.valueType)]
}

function entries16(d: PhotonDictionary, kc: number, vc: number): B {
  // 0 and '*' mean "each key/value carries its type byte"
  const typedK = kc === 0 || kc === 0x2a
  const typedV = vc === 0 || vc === 0x2a
  return [
    ...i16be(d.value.length),
    ...d.value.flatMap((e: PhotonEntry) => [...(typedK ? enc16(e.key) : pay16(e.key)), ...(typedV ? enc16(e.value) : pay16(e.value))])
  ]
}

/** Payload without the type byte. */
export function pay16(v: PV): B {
  switch (v.type) {
    case 'Null':
      return []
    case 'Boolean':
      return [v.value ? 1 : 0]
    case 'Byte':
      return [v.value]
    case 'Int16':
      return i16be(v.value)
    case 'Int32':
      return i32be(v.value)
    case 'Int64':
      return be(8, (d) => d.setBigInt64(0, v.value))
    case 'Float':
      return be(4, (d) => d.setFloat32(0, v.value))
    case 'Double':
      return be(8, (d) => d.setFloat64(0, v.value))
    case 'String':
      return str16(v.value)
    case 'ByteArray':
      return [...i32be(v.value.length), ...v.value]
    case 'IntArray':
      return [...i32be(v.value.length), ...v.value.flatMap(i32be)]
    case 'StringArray':
      return [...i16be(v.value.length), ...v.value.flatMap(str16)]
    case 'ObjectArray':
      return [...i16be(v.value.length), ...v.value.flatMap(enc16)]
    case 'Hashtable':
      return [...i16be(v.value.length), ...v.value.flatMap((e) => [...enc16(e.key), ...enc16(e.value)])]
    case 'Dictionary': {
      const h = hint(v)
      const head = dictHeader16(v, h)
      return [...head, ...entries16(v, head[0], head[1])]
    }
    case 'Custom':
      return [v.code, ...i16be(v.value.length), ...v.value]
    case 'EventData':
      return [v.code, ...params16(v.parameters)]
    case 'OperationRequest':
      return [v.code, ...params16(v.parameters)]
    case 'OperationResponse':
      return [v.code, ...i16be(v.returnCode), ...enc16(v.debugMessage), ...params16(v.parameters)]
    case 'Array': {
      const h = hint(v)
      const ec = h.elemCode ?? code16(v.elementType)
      const out = [...i16be(v.value.length), ec]
      if (ec === 0x63) {
        // custom code once, then i16 length + bytes per element
        const first = v.value[0] as PhotonCustom | undefined
        out.push(first?.code ?? 0)
        for (const x of v.value as PhotonCustom[]) out.push(...i16be(x.value.length), ...x.value)
      } else if (ec === 0x44) {
        // dictionary header once, then count + entries per element
        const first = (v.value[0] as PhotonDictionary | undefined) ?? { keyType: 'Object', valueType: 'Object' }
        const head = dictHeader16(first, h)
        out.push(...head)
        for (const x of v.value as PhotonDictionary[]) out.push(...entries16(x, head[0], head[1]))
      } else {
        for (const x of v.value) out.push(...pay16(x))
      }
      return out
    }
  }
  throw new Error(`Protocol16 cannot encode ${v.type}`)
}

// ---- Protocol18 ----

const le16 = (n: number) => [n & 0xff, (n >> 8) & 0xff]

/** The canonical fixed (untyped) code of a type, as a dictionary header or array element would name it. */
const FIXED18: Partial<Record<PhotonSlotType, number>> = {
  Object: 0,
  Null: 0x08,
  Boolean: 0x02,
  Byte: 0x03,
  Int16: 0x04,
  Float: 0x05,
  Double: 0x06,
  String: 0x07,
  Int32: 0x09,
  Int64: 0x0a,
  Custom: 0x13,
  Dictionary: 0x14,
  Hashtable: 0x15,
  ObjectArray: 0x17,
  OperationRequest: 0x18,
  OperationResponse: 0x19,
  EventData: 0x1a,
  Array: 0x40,
  BooleanArray: 0x42,
  ByteArray: 0x43,
  Int16Array: 0x44,
  FloatArray: 0x45,
  DoubleArray: 0x46,
  StringArray: 0x47,
  IntArray: 0x49,
  Int64Array: 0x4a,
  CustomArray: 0x53,
  DictionaryArray: 0x54,
  HashtableArray: 0x55
}

function fixed18(t: PhotonSlotType): number {
  const c = FIXED18[t]
  if (c === undefined) throw new Error(`no Protocol18 code for ${t}`)
  return c
}

/** The type byte the SDK writer picks: shortcuts for zero/true/false, the smallest int form, slim customs. */
export function code18(v: PV): number {
  const h = hint(v).code
  if (h !== undefined) return h
  switch (v.type) {
    case 'Null':
      return 0x08
    case 'Boolean':
      return v.value ? 0x1c : 0x1b
    case 'Byte':
      return v.value === 0 ? 0x22 : 0x03
    case 'Int16':
      return v.value === 0 ? 0x1d : 0x04
    case 'Int32': {
      const n = v.value
      if (n === 0) return 0x1e
      if (n > 0 && n <= 0xff) return 0x0b
      if (n < 0 && n >= -0xff) return 0x0c
      if (n > 0 && n <= 0xffff) return 0x0d
      if (n < 0 && n >= -0xffff) return 0x0e
      return 0x09
    }
    case 'Int64': {
      const n = v.value
      if (n === 0n) return 0x1f
      if (n > 0n && n <= 0xffn) return 0x0f
      if (n < 0n && n >= -0xffn) return 0x10
      if (n > 0n && n <= 0xffffn) return 0x11
      if (n < 0n && n >= -0xffffn) return 0x12
      return 0x0a
    }
    case 'Custom':
      return v.code < 100 ? 0x80 + v.code : 0x13
    default:
      return fixed18(v.type)
  }
}

export function enc18(v: PV): B {
  const c = code18(v)
  return [c, ...pay18(c, v)]
}

function str18(s: string): B {
  const b = utf8(s)
  return [...varint(b.length), ...b]
}

function params18(ps: PhotonParams | Params): B {
  const list = ps instanceof Map ? [...ps].map(([k, v]) => [Number(k), v] as const) : ps
  return [list.length, ...list.flatMap(([c, v]) => [c, ...enc18(v)])]
}

/** Key/value type header of a dictionary whose first element is `sample`. */
function dictHeader18(d: { keyType: PhotonSlotType; valueType: PhotonSlotType }, sampleValue: PV | undefined, h: Hint): { head: B; kc: number; vc: number } {
  // a raw header: keyCode/valueCode then give the codes the entries are written with
  if (h.header) return { head: h.header, kc: h.keyCode ?? h.header[0], vc: h.valueCode ?? h.header[1] }
  const kc = h.keyCode ?? fixed18(d.keyType)
  const vc = h.valueCode ?? fixed18(d.valueType)
  const head = [kc, vc]
  if (vc === 0x14) {
    // nested header describing the inner dictionaries (taken from the first value)
    const inner = (sampleValue as PhotonDictionary | undefined) ?? { type: 'Dictionary', keyType: 'Object', valueType: 'Object', value: [] }
    head.push(...dictHeader18(inner, inner.value[0]?.value, hint(inner)).head)
  } else if (vc === 0x40) {
    // a chain of 0x40 for every further array level, then the innermost array's code
    let x = sampleValue
    while (x && x.type === 'Array' && x.value[0]?.type === 'Array') {
      head.push(0x40)
      x = x.value[0]
    }
    head.push(x && x.type === 'Array' && x.value[0] ? code18(x.value[0]) : 0x49)
  }
  // values of an array-of-arrays dictionary carry their own type byte
  return { head, kc, vc: vc === 0x40 ? 0 : vc }
}

function entries18(d: PhotonDictionary, kc: number, vc: number): B {
  return [
    ...varint(d.value.length),
    ...d.value.flatMap((e) => [...(kc === 0 ? enc18(e.key) : pay18(kc, e.key)), ...(vc === 0 ? enc18(e.value) : pay18(vc, e.value))])
  ]
}

function customBody18(x: PhotonCustom): B {
  return [...varint(x.value.length), ...x.value]
}

/** Payload of `v` written as type code `c` (without the type byte). */
export function pay18(c: number, v: PV): B {
  if (c >= 0x80 && c <= 0xe4) return customBody18(v as PhotonCustom)
  const n = (v as { value: unknown }).value
  switch (c) {
    case 0x00:
    case 0x08:
    case 0x1b:
    case 0x1c:
    case 0x1d:
    case 0x1e:
    case 0x1f:
    case 0x20:
    case 0x21:
    case 0x22:
      return []
    case 0x02:
      return [n ? 1 : 0]
    case 0x03:
      return [n as number]
    case 0x04:
      return be(2, (d) => d.setInt16(0, n as number), true)
    case 0x05:
      return be(4, (d) => d.setFloat32(0, n as number), true)
    case 0x06:
      return be(8, (d) => d.setFloat64(0, n as number), true)
    case 0x07:
      return str18(n as string)
    case 0x09:
      return zigzag32(n as number)
    case 0x0a:
      return zigzag64(n as bigint)
    case 0x0b:
      return [n as number]
    case 0x0c:
      return [-(n as number)]
    case 0x0d:
      return le16(n as number)
    case 0x0e:
      return le16(-(n as number))
    case 0x0f:
      return [Number(n)]
    case 0x10:
      return [Number(-(n as bigint))]
    case 0x11:
      return le16(Number(n))
    case 0x12:
      return le16(Number(-(n as bigint)))
    case 0x13: {
      const x = v as PhotonCustom
      return [x.code, ...customBody18(x)]
    }
    case 0x14: {
      const d = v as PhotonDictionary
      const { head, kc, vc } = dictHeader18(d, d.value[0]?.value, hint(d))
      return [...head, ...entries18(d, kc, vc)]
    }
    case 0x15: {
      const x = v as PhotonHashtable
      return [...varint(x.value.length), ...x.value.flatMap((e) => [...enc18(e.key), ...enc18(e.value)])]
    }
    case 0x17: {
      const x = n as PV[]
      return [...varint(x.length), ...x.flatMap(enc18)]
    }
    case 0x18:
    case 0x1a: {
      const x = v as { code: number; parameters: PhotonParams }
      return [x.code, ...params18(x.parameters)]
    }
    case 0x19: {
      const x = v as Extract<PV, { type: 'OperationResponse' }>
      return [x.code, ...le16(x.returnCode & 0xffff), ...enc18(x.debugMessage), ...params18(x.parameters)]
    }
    case 0x40: {
      const x = n as PV[]
      return [...varint(x.length), ...x.flatMap(enc18)]
    }
    case 0x42: {
      const x = n as boolean[]
      const bits = new Array(Math.ceil(x.length / 8)).fill(0)
      x.forEach((b, i) => {
        if (b) bits[i >> 3] |= 1 << (i & 7)
      })
      return [...varint(x.length), ...bits]
    }
    case 0x43: {
      const x = n as Uint8Array
      return [...varint(x.length), ...x]
    }
    case 0x44: {
      const x = n as number[]
      return [...varint(x.length), ...x.flatMap((y) => be(2, (d) => d.setInt16(0, y), true))]
    }
    case 0x45: {
      const x = n as number[]
      return [...varint(x.length), ...x.flatMap((y) => be(4, (d) => d.setFloat32(0, y), true))]
    }
    case 0x46: {
      const x = n as number[]
      return [...varint(x.length), ...x.flatMap((y) => be(8, (d) => d.setFloat64(0, y), true))]
    }
    case 0x47: {
      const x = n as string[]
      return [...varint(x.length), ...x.flatMap(str18)]
    }
    case 0x49: {
      const x = n as number[]
      return [...varint(x.length), ...x.flatMap(zigzag32)]
    }
    case 0x4a: {
      const x = n as bigint[]
      return [...varint(x.length), ...x.flatMap(zigzag64)]
    }
    case 0x53: {
      const x = v as Extract<PV, { type: 'CustomArray' }>
      return [...varint(x.value.length), x.code, ...x.value.flatMap(customBody18)]
    }
    case 0x54: {
      const x = v as Extract<PV, { type: 'DictionaryArray' }>
      const first = x.value[0] ?? { type: 'Dictionary', keyType: x.keyType, valueType: x.valueType, value: [] }
      const { head, kc, vc } = dictHeader18(first, first.value[0]?.value, hint(v))
      return [...head, ...varint(x.value.length), ...x.value.flatMap((d) => entries18(d, kc, vc))]
    }
    case 0x55: {
      const x = n as PhotonHashtable[]
      return [...varint(x.length), ...x.flatMap((h) => pay18(0x15, h))]
    }
  }
  throw new Error(`Protocol18 cannot encode ${v.type} as 0x${c.toString(16)}`)
}

// ---- message bodies (after the 2-byte F3/msgType header) ----

export type Version = 16 | 18

const enc = (ver: Version, v: PV) => (ver === 16 ? enc16(v) : enc18(v))
const params = (ver: Version, ps: Params) => (ver === 16 ? params16(ps) : params18(ps))
const short = (ver: Version, n: number) => (ver === 16 ? i16be(n) : le16(n & 0xffff))

export function eventBody(ver: Version, code: number, ps: Params = []): Uint8Array {
  return Uint8Array.from([code, ...params(ver, ps)])
}
export function requestBody(ver: Version, code: number, ps: Params = []): Uint8Array {
  return Uint8Array.from([code, ...params(ver, ps)])
}
export function responseBody(ver: Version, code: number, returnCode: number, debug: PV, ps: Params = []): Uint8Array {
  return Uint8Array.from([code, ...short(ver, returnCode), ...enc(ver, debug), ...params(ver, ps)])
}
export function disconnectBody(ver: Version, code: number, debug: PV, ps: Params = []): Uint8Array {
  return Uint8Array.from([...short(ver, code), ...enc(ver, debug), ...params(ver, ps)])
}
export function valueBytes(ver: Version, v: PV): Uint8Array {
  return Uint8Array.from(enc(ver, v))
}
/** The bytes of one parameter entry (key byte + typed value), for range checks. */
export function paramBytes(ver: Version, code: number, v: PV): Uint8Array {
  return Uint8Array.from([code, ...enc(ver, v)])
}

// ---- decode harness (shared by the tests; calls the decoder) ----

/** Runs a reader over `bytes` with a fresh tree (recording or not). */
export function run<T>(bytes: Uint8Array, read: (r: FieldReader) => T, recording = true): { value: T; tree: FieldNode[]; pos: number } {
  const tree = new TreeBuilder(recording)
  const r = new FieldReader(bytes, tree, 0)
  const value = read(r)
  return { value, tree: tree.roots, pos: r.pos }
}

/** Runs a reader expected to throw; returns the error and the tree recorded before it. */
export function runFail(bytes: Uint8Array, read: (r: FieldReader) => unknown, recording = true): { error: unknown; tree: FieldNode[] } {
  const tree = new TreeBuilder(recording)
  const r = new FieldReader(bytes, tree, 0)
  try {
    read(r)
  } catch (error) {
    return { error, tree: tree.roots }
  }
  throw new Error('expected the reader to throw')
}

// Tree lookups and hex helpers are shared with the other tests.
export { find, findAll } from '../../helpers/decode'
export { hex, unhex } from './udp-encoder'

export function slice(bytes: Uint8Array, n: FieldNode): Uint8Array {
  return bytes.subarray(n.start!, n.start! + n.length!)
}

/**
 * Checks the tree's ranges: the roots tile [from, to) without gaps, and every node's children lie inside
 * it, in order, without overlapping (so every byte belongs to a node and no node strays outside its parent).
 */
export function checkTiling(nodes: FieldNode[], from: number, to: number): void {
  let at = from
  for (const n of nodes) {
    if (n.start !== at) throw new Error(`gap or overlap before ${n.key} (${n.label}) at ${n.start}, expected ${at}`)
    at = n.start + n.length!
    checkNested(n)
  }
  if (at !== to) throw new Error(`nodes end at ${at}, expected ${to}`)
}

function checkNested(n: FieldNode): void {
  let at = n.start!
  let prev: FieldNode | undefined
  for (const c of n.children ?? []) {
    // packed bools share their byte: the same range twice is fine
    const same = prev && prev.start === c.start && prev.length === c.length
    if ((c.start! < at && !same) || c.start! + c.length! > n.start! + n.length!) {
      throw new Error(`${c.key} (${c.label}) [${c.start}+${c.length}] outside/overlapping in ${n.key} (${n.label}) [${n.start}+${n.length}]`)
    }
    at = c.start! + c.length!
    prev = c
    checkNested(c)
  }
}
