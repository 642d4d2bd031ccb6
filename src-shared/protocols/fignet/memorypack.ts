// MemoryPack (Cysharp), the codec of the Entangle payloads (docs/fignet.md, Codecs and ENet on the wire). Not
// self-describing: the caller walks the schema and asks for each value. Little-endian throughout.
//
// - object header: u8 member count 0–249, 255 = null, 250–254 reserved (an error here)
// - version-tolerant header: member count, then one varint byte length per member
// - unmanaged values: their memory image, back to back; bool one byte; Nullable<T> = hasValue + padding + T
// - string: i32 -1 null, 0 empty, > 0 UTF-16 length (then 2 bytes per unit), ≤ -2 ~UTF-8 byte count then
//   i32 UTF-16 length (-1 = not given) then the UTF-8 bytes
// - collections (T[], List<T>): i32 count (-1 null) then the elements; byte[] its raw bytes
//
// Every length and count is checked against the bytes left before it is used, so a hostile count never
// allocates. guessMembers() splits the members of a model whose schema is unknown, as far as the bytes
// allow telling them apart.

import { DecodeError, FieldReader } from '../../bytes/reader'
import { TreeBuilder, formatValue } from '../../bytes/tree'
import type { FieldDef, FieldType } from '../../bytes/fields'
import type { FieldNode, FieldScalar } from '../../model/types'
import { F_MEMORYPACK, dynamicDef } from './payload-fields'
import type { Typed, TypedFields } from './typed'

export type Unmanaged = 'byte' | 'sbyte' | 'bool' | 'short' | 'ushort' | 'char' | 'int' | 'uint' | 'float' | 'long' | 'ulong' | 'double'

export const UNMANAGED_SIZE: Readonly<Record<Unmanaged, number>> = {
  byte: 1,
  sbyte: 1,
  bool: 1,
  short: 2,
  ushort: 2,
  char: 2,
  int: 4,
  uint: 4,
  float: 4,
  long: 8,
  ulong: 8,
  double: 8
}

/** The field-registry type of each unmanaged C# type. */
export const UNMANAGED_FIELD_TYPE: Readonly<Record<Unmanaged, FieldType>> = {
  byte: 'u8',
  sbyte: 'i8',
  bool: 'bool',
  short: 'i16',
  ushort: 'u16',
  char: 'u16',
  int: 'i32',
  uint: 'u32',
  float: 'f32',
  long: 'i64',
  ulong: 'u64',
  double: 'f64'
}

export function isUnmanaged(t: string): t is Unmanaged {
  return Object.hasOwn(UNMANAGED_SIZE, t)
}

export const NULL_OBJECT = 255
export const DEFAULT_MAX_DEPTH = 32

const utf8Strict = new TextDecoder('utf-8', { fatal: true })
const utf8Lenient = new TextDecoder('utf-8', { fatal: false })
const utf16 = new TextDecoder('utf-16le', { fatal: false })

export interface MemoryPackOptions {
  /** Deepest object nesting accepted (top-level object = 1). Default 32, at most 1000. */
  maxDepth?: number
}

export class MemoryPackReader {
  readonly maxDepth: number
  depth = 0
  readonly warnings: string[] = []

  constructor(
    readonly r: FieldReader,
    opts: MemoryPackOptions = {}
  ) {
    this.maxDepth = Math.max(1, Math.min(opts.maxDepth ?? DEFAULT_MAX_DEPTH, 1000))
  }

  warn(text: string): void {
    if (this.warnings.length < 20 && !this.warnings.includes(text)) this.warnings.push(text)
  }

  /** Runs `fn` one object level deeper; fails past maxDepth. */
  nested<T>(what: string, fn: () => T): T {
    this.enter(what)
    try {
      return fn()
    } finally {
      this.leave()
    }
  }

  /** One object level deeper (fails past maxDepth); pair with leave() in a finally. No closure, for hot paths. */
  enter(what: string): void {
    if (this.depth >= this.maxDepth) throw new DecodeError(`${what}: objects nested deeper than ${this.maxDepth} at offset ${this.r.pos}`, this.r.pos)
    this.depth++
  }

  /** Back out of the level enter() went into. */
  leave(): void {
    this.depth--
  }

  /** Opens a group node over what follows (null when not recording); close with closeNode. */
  openNode(def: FieldDef, label?: string): FieldNode | null {
    return this.r.open(def, label)
  }

  closeNode(node: FieldNode | null): void {
    if (node) this.r.tree.close(this.r.pos)
  }

  /** Object header: the member count, or null for the null object (255). */
  objectHeader(what: string): number | null {
    const at = this.r.pos
    const b = this.r.u8(null)
    if (b >= 250 && b !== NULL_OBJECT) {
      this.r.record(F_MEMORYPACK.header, b, at, 1, this.r.tree.labels ? `Object header: ${b} (reserved code)` : undefined)
      throw new DecodeError(`${what}: reserved object header ${b} at offset ${at}`, at)
    }
    // Every object passes here: its label (a number to text) only with a tree.
    this.r.record(F_MEMORYPACK.header, b, at, 1, !this.r.tree.labels ? undefined : b === NULL_OBJECT ? 'Object header: 255 (null)' : `Member count: ${b}`)
    return b === NULL_OBJECT ? null : b
  }

  /** Version-tolerant header: member count, then each member's byte length (varints). Null for the null object. */
  versionTolerantHeader(what: string): { count: number; lengths: number[] } | null {
    const count = this.objectHeader(what)
    if (count === null) return null
    const node = this.openNode(F_MEMORYPACK.member_lengths, `Member lengths (${count})`)
    const lengths: number[] = []
    try {
      for (let i = 0; i < count; i++) {
        const at = this.r.pos
        const v = this.varint(F_MEMORYPACK.varint)
        if (typeof v === 'bigint' || v < 0) throw new DecodeError(`${what}: member ${i} length ${v} is not a byte length (offset ${at})`, at)
        lengths.push(v)
      }
    } finally {
      this.closeNode(node)
    }
    const total = lengths.reduce((a, b) => a + b, 0)
    if (total > this.r.remaining)
      throw new DecodeError(`${what}: members need ${total} bytes at offset ${this.r.pos}, only ${this.r.remaining} present`, this.r.pos)
    return { count, lengths }
  }

  /** MemoryPack VarInt: an sbyte 0..127 or -1..-120 is the value; -121..-128 name the type of the LE value that follows. */
  varint(def: FieldDef | null): number | bigint {
    const at = this.r.pos
    const code = this.r.i8(null)
    let v: number | bigint
    if (code >= -120) v = code
    else {
      switch (code) {
        case -121:
          v = this.r.u8(null)
          break
        case -122:
          v = this.r.i8(null)
          break
        case -123:
          v = this.r.u16(null, true)
          break
        case -124:
          v = this.r.i16(null, true)
          break
        case -125:
          v = this.r.u32(null, true)
          break
        case -126:
          v = this.r.i32(null, true)
          break
        case -127:
          v = this.r.u64(null, true)
          break
        default:
          v = this.r.i64(null, true)
      }
      if (typeof v === 'bigint' && v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)) v = Number(v)
    }
    if (def) this.r.record(def, typeof v === 'bigint' ? v : BigInt(v), at, this.r.pos - at, this.r.tree.labels ? `${def.name}: ${v}` : undefined)
    return v
  }

  /** An unmanaged value (its memory image, little-endian). */
  unmanaged(kind: Unmanaged, def: FieldDef | null, labelText?: (v: number | bigint | boolean) => string): number | bigint | boolean {
    const at = this.r.pos
    const r = this.r
    let v: number | bigint | boolean
    switch (kind) {
      case 'byte':
        v = r.u8(null)
        break
      case 'sbyte':
        v = r.i8(null)
        break
      case 'bool': {
        const b = r.u8(null)
        if (b > 1) this.warn(`bool at offset ${at} holds ${b} (read as true)`)
        v = b !== 0
        break
      }
      case 'short':
        v = r.i16(null, true)
        break
      case 'ushort':
      case 'char':
        v = r.u16(null, true)
        break
      case 'int':
        v = r.i32(null, true)
        break
      case 'uint':
        v = r.u32(null, true)
        break
      case 'float':
        v = r.f32(null, true)
        break
      case 'long':
        v = r.i64(null, true)
        break
      case 'ulong':
        v = r.u64(null, true)
        break
      case 'double':
        v = r.f64(null, true)
        break
    }
    if (def) r.record(def, v, at, r.pos - at, r.tree.labels ? labelText?.(v) : undefined)
    return v
  }

  /** Nullable<T> of an unmanaged T: hasValue byte, padding to T's alignment, then T (present either way). */
  nullable(kind: Unmanaged, def: FieldDef): number | bigint | boolean | null {
    const size = UNMANAGED_SIZE[kind]
    this.r.need(size * 2, def.name)
    const node = this.openNode(def)
    try {
      const at = this.r.pos
      const has = this.r.u8(null)
      this.r.record(F_MEMORYPACK.has_value, has !== 0, at, 1)
      if (has > 1) this.warn(`Nullable hasValue byte at offset ${at} holds ${has}`)
      if (size > 1) this.r.bytesField(F_MEMORYPACK.padding, size - 1)
      const v = this.unmanaged(kind, has ? dynamicDef(def.key, 'Value', UNMANAGED_FIELD_TYPE[kind]) : null)
      const value = has ? v : null
      if (node) {
        node.value = value
        if (this.r.tree.labels) node.label = `${def.name}: ${value === null ? 'null' : String(value)}`
      }
      return value
    } finally {
      this.closeNode(node)
    }
  }

  /** Reads a string length prefix and, for UTF-8, the UTF-16 length; returns the form and sizes. */
  private stringHeader(what: string): { form: 'null' | 'empty' | 'utf16' | 'utf8'; bytes: number; utf16Length: number } {
    const at = this.r.pos
    const n = this.r.i32(null, true)
    if (n === -1) {
      this.r.record(F_MEMORYPACK.length, n, at, 4, 'Length: -1 (null)')
      return { form: 'null', bytes: 0, utf16Length: -1 }
    }
    if (n === 0) {
      this.r.record(F_MEMORYPACK.length, n, at, 4, 'Length: 0 (empty)')
      return { form: 'empty', bytes: 0, utf16Length: 0 }
    }
    if (n > 0) {
      this.r.record(F_MEMORYPACK.length, n, at, 4, this.r.tree.labels ? `Length: ${n} UTF-16 code units` : undefined)
      if (n > Math.floor(this.r.remaining / 2)) {
        throw new DecodeError(`${what}: UTF-16 string of ${n} units needs ${n * 2} bytes at offset ${this.r.pos}, only ${this.r.remaining} present`, at)
      }
      return { form: 'utf16', bytes: n * 2, utf16Length: n }
    }
    const bytes = ~n
    this.r.record(F_MEMORYPACK.length, n, at, 4, this.r.tree.labels ? `Length: ${n} (~${bytes}: UTF-8, ${bytes} bytes)` : undefined)
    const u16at = this.r.pos
    const utf16Length = this.r.i32(F_MEMORYPACK.utf16_length, true)
    if (bytes > this.r.remaining) {
      throw new DecodeError(`${what}: UTF-8 string of ${bytes} bytes at offset ${this.r.pos}, only ${this.r.remaining} present`, at)
    }
    // MemoryPack's own bound on a declared UTF-16 length (MemoryPackReader.ReadUtf8).
    if (utf16Length > (this.r.remaining + 1) * 3) {
      throw new DecodeError(`${what}: UTF-16 length ${utf16Length} at offset ${u16at} cannot come from ${bytes} UTF-8 bytes`, u16at)
    }
    return { form: 'utf8', bytes, utf16Length }
  }

  /** A string in either form (null for -1). A group node `def` over the prefix(es) and the characters. */
  string(def: FieldDef, labelName = def.name): string | null {
    const node = this.openNode(def, labelName)
    try {
      const h = this.stringHeader(labelName)
      let s: string | null
      if (h.form === 'null') s = null
      else if (h.form === 'empty') s = ''
      else {
        const at = this.r.pos
        const raw = this.r.bytesField(null, h.bytes)
        if (h.form === 'utf16') s = utf16.decode(raw)
        else if (h.utf16Length > 0) {
          // MemoryPack decodes strictly when the UTF-16 length is given, and fails when it is too short.
          try {
            s = utf8Strict.decode(raw)
          } catch {
            throw new DecodeError(`${labelName}: invalid UTF-8 at offset ${at}`, at)
          }
          if (s.length > h.utf16Length) throw new DecodeError(`${labelName}: ${s.length} UTF-16 units at offset ${at}, the prefix says ${h.utf16Length}`, at)
          if (s.length < h.utf16Length) this.warn(`${labelName}: the prefix at offset ${at - 4} says ${h.utf16Length} UTF-16 units, the text has ${s.length}`)
        } else s = utf8Lenient.decode(raw)
        this.r.record(
          F_MEMORYPACK.chars,
          s,
          at,
          h.bytes,
          this.r.tree.labels ? `${h.form === 'utf16' ? 'UTF-16' : 'UTF-8'} text: ${JSON.stringify(s)}` : undefined
        )
      }
      if (node) {
        node.value = s
        if (this.r.tree.labels) node.label = `${labelName}: ${s === null ? 'null' : JSON.stringify(s)}`
      }
      return s
    } finally {
      this.closeNode(node)
    }
  }

  /**
   * A collection's count (null for -1), checked against the bytes left: each element takes at least
   * `minElementSize` bytes, so a hostile count fails here before anything is allocated.
   */
  collectionCount(what: string, minElementSize: number): number | null {
    const at = this.r.pos
    const n = this.r.i32(null, true)
    if (n === -1) {
      this.r.record(F_MEMORYPACK.length, n, at, 4, 'Count: -1 (null)')
      return null
    }
    this.r.record(F_MEMORYPACK.length, n, at, 4, this.r.tree.labels ? `Count: ${n}` : undefined)
    if (n < 0) throw new DecodeError(`${what}: negative count ${n} at offset ${at}`, at)
    if (minElementSize > 0 && n > Math.floor(this.r.remaining / minElementSize)) {
      throw new DecodeError(
        `${what}: count ${n} at offset ${at}, but ${n} elements of at least ${minElementSize} byte${minElementSize === 1 ? '' : 's'} cannot fit in the ${this.r.remaining} bytes that follow`,
        at
      )
    }
    return n
  }

  /** byte[]: count then raw bytes. A group node `def` over both. */
  bytes(def: FieldDef, labelName = def.name): Uint8Array | null {
    const node = this.openNode(def, labelName)
    try {
      const n = this.collectionCount(labelName, 1)
      const data = n === null ? null : this.r.bytesField(n ? F_MEMORYPACK.data : null, n)
      if (node) {
        node.value = data
        if (this.r.tree.labels)
          node.label = `${labelName}: ${data === null ? 'null' : `${formatValue({ type: 'bytes' }, data)}${data.length <= 24 && data.length ? ` (${data.length} bytes)` : ''}`}`
      }
      return data
    } finally {
      this.closeNode(node)
    }
  }
}

// ---- members of a model without a schema ----

export type MemberKind = 'utf8' | 'utf16' | 'null' | 'bytes' | 'value' | 'undecoded'

export interface MemberGuess {
  kind: MemberKind
  /** Byte offsets (absolute, in the reader's buffer). */
  start: number
  end: number
  /** Members this segment stands for (more than one only for 'undecoded'). */
  members: number
}

/** Generic guessing works on windows up to this size and member count (quadratic table). */
const GUESS_MAX_BYTES = 4096
const GUESS_MAX_MEMBERS = 64
const PRIMITIVE_SIZES = [4, 1, 2, 8]

function peekI32(r: FieldReader, at: number): number {
  return r.peekU8(at) | (r.peekU8(at + 1) << 8) | (r.peekU8(at + 2) << 16) | (r.peekU8(at + 3) << 24) | 0
}

function slice(r: FieldReader, at: number, n: number): Uint8Array {
  return new FieldReader(r.bytes, new TreeBuilder(false), r.source, at, at + n).bytesField(null, n)
}

function printableUtf16(b: Uint8Array): boolean {
  for (let i = 0; i + 1 < b.length; i += 2) {
    const u = b[i] | (b[i + 1] << 8)
    if (u < 0x20 || (u >= 0x7f && u < 0xa0) || (u >= 0xd800 && u <= 0xdfff) || u >= 0xfff0) return false
  }
  return true
}

interface Candidate {
  kind: MemberKind
  size: number
  score: number
}

function candidates(r: FieldReader, at: number, left: number): Candidate[] {
  const out: Candidate[] = []
  if (left >= 4) {
    const v = peekI32(r, at)
    if (v === -1) out.push({ kind: 'null', size: 4, score: 1 })
    else if (v <= -2) {
      const n = ~v
      if (left >= 8 + n) {
        const u16 = peekI32(r, at + 4)
        try {
          const s = utf8Strict.decode(slice(r, at + 8, n))
          if (u16 === -1 || u16 === s.length) out.push({ kind: 'utf8', size: 8 + n, score: 10 + n })
        } catch {
          // not UTF-8: not a string
        }
      }
    } else if (v > 0) {
      if (left >= 4 + 2 * v && printableUtf16(slice(r, at + 4, 2 * v))) out.push({ kind: 'utf16', size: 4 + 2 * v, score: 4 + v })
      if (left >= 4 + v) out.push({ kind: 'bytes', size: 4 + v, score: 1 })
    }
  }
  for (const size of PRIMITIVE_SIZES) if (size <= left) out.push({ kind: 'value', size, score: 0 })
  return out
}

/** Ways to split `len` bytes into `parts` unmanaged values of 1, 2, 4 or 8 bytes, capped at 2. */
function splits(len: number, parts: number): number {
  let row = new Array<number>(len + 1).fill(0)
  row[0] = 1
  for (let k = 0; k < parts; k++) {
    const next = new Array<number>(len + 1).fill(0)
    for (let l = 0; l <= len; l++) {
      if (!row[l]) continue
      for (const s of PRIMITIVE_SIZES) if (l + s <= len) next[l + s] = Math.min(2, next[l + s] + row[l])
    }
    row = next
  }
  return row[len]
}

/**
 * Splits the reader's window [pos, end) into exactly `count` members, preferring the readings the bytes
 * support best (UTF-8 strings with consistent prefixes, then UTF-16 text, nulls, length-prefixed data);
 * runs of plain values whose sizes cannot be told apart stay one 'undecoded' segment. Returns null when
 * no split fits (e.g. fewer bytes than members). Does not move the reader.
 */
export function guessMembers(r: FieldReader, count: number): MemberGuess[] | null {
  const start = r.pos
  const total = r.end - start
  if (count === 0) return total === 0 ? [] : null
  if (count > total) return null
  if (total > GUESS_MAX_BYTES || count > GUESS_MAX_MEMBERS) return [{ kind: 'undecoded', start, end: r.end, members: count }]

  const width = count + 1
  const best = new Float64Array((total + 1) * width).fill(-Infinity)
  const pick = new Int32Array((total + 1) * width).fill(-1)
  const cands: Candidate[][] = new Array(total + 1)
  best[total * width] = 0
  for (let p = total - 1; p >= 0; p--) {
    cands[p] = candidates(r, start + p, total - p)
    for (let k = 1; k <= count; k++) {
      let b = -Infinity
      let choice = -1
      cands[p].forEach((c, i) => {
        const s = c.score + best[(p + c.size) * width + k - 1]
        if (s > b) {
          b = s
          choice = i
        }
      })
      best[p * width + k] = b
      pick[p * width + k] = choice
    }
  }
  if (best[count] === -Infinity) return [{ kind: 'undecoded', start, end: r.end, members: count }]

  const seq: MemberGuess[] = []
  for (let p = 0, k = count; k > 0; k--) {
    const c = cands[p][pick[p * width + k]]
    seq.push({ kind: c.kind, start: start + p, end: start + p + c.size, members: 1 })
    p += c.size
  }
  // A run of plain values is only shown split when no other split of its bytes exists.
  const out: MemberGuess[] = []
  for (let i = 0; i < seq.length; ) {
    if (seq[i].kind !== 'value') {
      out.push(seq[i++])
      continue
    }
    let j = i
    while (j < seq.length && seq[j].kind === 'value') j++
    const len = seq[j - 1].end - seq[i].start
    if (splits(len, j - i) === 1) out.push(...seq.slice(i, j))
    else out.push({ kind: 'undecoded', start: seq[i].start, end: seq[j - 1].end, members: j - i })
    i = j
  }
  return out
}

const VALUE_TYPE: Record<number, { type: string; field: FieldType }> = {
  1: { type: '1-byte value', field: 'u8' },
  2: { type: '2-byte value', field: 'u16' },
  4: { type: '4-byte value', field: 'u32' },
  8: { type: '8-byte value', field: 'u64' }
}

/**
 * Reads `count` members whose types are unknown (the reader's window must end where the members end),
 * naming them `member<first>`, `member<first+1>`… Returns false (nothing read) when they cannot fit the bytes.
 */
export function readGuessedMembers(mp: MemoryPackReader, count: number, first: number, out: TypedFields): boolean {
  const r = mp.r
  const segs = guessMembers(r, count)
  if (!segs) return false
  let index = first
  for (const seg of segs) {
    const name = seg.members > 1 ? `member${index}..${index + seg.members - 1}` : `member${index}`
    const key = F_MEMORYPACK.member.key
    let t: Typed
    switch (seg.kind) {
      case 'utf8':
      case 'utf16':
        t = { type: 'string', value: mp.string(dynamicDef(key, name, 'string'), `${name} (string?)`), guessed: true }
        break
      case 'null': {
        const at = r.pos
        r.i32(null, true)
        r.record(dynamicDef(key, name, 'none'), null, at, 4, () => `${name}: null (string or collection?)`)
        t = { type: 'null', value: null, guessed: true }
        break
      }
      case 'bytes':
        t = { type: 'byte[]', value: mp.bytes(dynamicDef(key, name, 'bytes'), `${name} (byte[] or collection?)`), guessed: true }
        break
      case 'value': {
        const size = seg.end - seg.start
        const vt = VALUE_TYPE[size]
        const at = r.pos
        const v: FieldScalar = size === 1 ? r.u8(null) : size === 2 ? r.u16(null, true) : size === 4 ? r.u32(null, true) : r.u64(null, true)
        r.record(dynamicDef(key, name, vt.field), v, at, size, () => `${name} (${vt.type}?): ${String(v)}`)
        t = { type: vt.type, value: v, guessed: true }
        break
      }
      default: {
        const n = seg.end - seg.start
        const data = r.bytesField(null, n)
        r.record(F_MEMORYPACK.undecoded, data, seg.start, n, () => `${name}: ${seg.members} member${seg.members > 1 ? 's' : ''} not told apart, ${n} bytes`)
        t = { type: 'undecoded', value: data, members: seg.members, guessed: true }
      }
    }
    out[name] = t
    index += seg.members
  }
  return true
}
