// A bounds-checked byte reader that records each field it reads, with its byte range, into a TreeBuilder.
// Every protocol decoder reads through it: no length is used before it has been checked against the bytes
// present, and a short read throws DecodeError carrying the offset, which the caller turns into the
// message's `error` while keeping the fields read so far.

import type { FieldNode, FieldScalar } from '../model/types'
import type { FieldDef } from './fields'
import { label, type TreeBuilder } from './tree'

/**
 * A decode failure at a byte offset. Malformed input is common (truncated captures, mid-stream starts), so
 * this is thrown and caught on hot paths: it captures no stack trace, which would cost more than the
 * decoding itself. Its `stack` is just its message.
 */
// V8's (Node, Electron, Chromium) limit on the frames a stack trace keeps; not in the ES library types.
const V8Error = Error as ErrorConstructor & { stackTraceLimit?: number }

export class DecodeError extends Error {
  readonly offset: number
  constructor(message: string, offset: number) {
    const limit = V8Error.stackTraceLimit
    V8Error.stackTraceLimit = 0
    super(message)
    V8Error.stackTraceLimit = limit
    this.offset = offset
    this.name = 'DecodeError'
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: false })

/**
 * UTF-8 text of bytes[start, end), malformed sequences as U+FFFD. Short ASCII, which most names and keys
 * are, is built directly: a TextDecoder call costs more than such a string.
 */
export function decodeUtf8(bytes: Uint8Array, start: number, end: number): string {
  if (end - start <= 32) {
    let ascii = true
    for (let i = start; i < end; i++) {
      if (bytes[i] > 0x7f) {
        ascii = false
        break
      }
    }
    if (ascii) return String.fromCharCode.apply(null, bytes.subarray(start, end) as unknown as number[])
  }
  return utf8.decode(bytes.subarray(start, end))
}

// Float and 64-bit values are read through one shared 8-byte scratch view: a DataView per reader cost more
// than the reads themselves, since the index pass makes a reader (and sub-readers) per message.
const scratch = new Uint8Array(8)
const scratchView = new DataView(scratch.buffer)

/** Copies `n` (4 or 8) bytes at `at` into the scratch view and returns it. */
function scratchOf(bytes: Uint8Array, at: number, n: number): DataView {
  for (let i = 0; i < n; i++) scratch[i] = bytes[at + i]
  return scratchView
}

export class FieldReader {
  pos: number
  readonly end: number

  constructor(
    readonly bytes: Uint8Array,
    readonly tree: TreeBuilder,
    readonly source: number,
    start = 0,
    end = bytes.length
  ) {
    if (start < 0 || end > bytes.length || start > end) throw new RangeError('reader window outside buffer')
    this.pos = start
    this.end = end
  }

  get remaining(): number {
    return this.end - this.pos
  }

  /** Throws unless `n` more bytes are present. `what` names the field for the error line. */
  need(n: number, what: string): void {
    if (n >= 0 && n <= this.end - this.pos && Number.isInteger(n)) return
    if (!Number.isInteger(n) || n < 0) throw new DecodeError(`${what}: invalid length ${n}`, this.pos)
    throw new DecodeError(`${what}: needs ${n} bytes at offset ${this.pos}, only ${this.end - this.pos} present`, this.pos)
  }

  /** A sub-reader over the next `n` bytes (same source), advancing this reader past them. */
  sub(n: number, what: string): FieldReader {
    this.need(n, what)
    const r = new FieldReader(this.bytes, this.tree, this.source, this.pos, this.pos + n)
    this.pos += n
    return r
  }

  /**
   * Records a field over [start, start+length) without reading (for values computed by the caller). A label
   * built from values is passed as a function, so the tree-less pass, and a tree without labels, never format it.
   */
  record(def: FieldDef, value: FieldScalar, start: number, length: number, labelText?: string | (() => string)): void {
    if (!this.tree.recording) {
      if (def.index) this.tree.indexValue(def, value)
      if (def.within !== undefined) this.tree.presentKey(def.within)
      return
    }
    // A leaf's key never changes after it is read: one the tree's interest does not keep is not made at all.
    if (this.tree.interest !== null && !this.tree.interest.wants(def.key)) return
    const text = !this.tree.labels ? '' : typeof labelText === 'function' ? labelText() : (labelText ?? label(def, value))
    this.tree.add({ key: def.key, label: text, type: def.type, value, source: this.source, start, length })
  }

  /**
   * Opens a group node starting here (or at `start`, already read); `close()` ends it at the current
   * position. A label built from values is passed as a function, as to record(). Returns the node (null
   * without a tree, where an index field's value or a presence is kept instead).
   */
  open(def: FieldDef, labelText?: string | (() => string), value?: FieldScalar, start = this.pos): FieldNode | null {
    if (!this.tree.recording) {
      if (def.index && value !== undefined) this.tree.indexValue(def, value)
      else this.tree.present(def)
      if (def.within !== undefined) this.tree.presentKey(def.within)
      return null
    }
    const text = !this.tree.labels ? '' : typeof labelText === 'function' ? labelText() : (labelText ?? def.name)
    return this.tree.open({ key: def.key, label: text, type: def.type, value, source: this.source, start, length: 0 })
  }

  close(): void {
    this.tree.close(this.pos)
  }

  /** Runs `fn` inside a group node that spans exactly what `fn` read. */
  group<T>(def: FieldDef, labelText: string | undefined, fn: () => T): T {
    this.open(def, labelText)
    try {
      return fn()
    } finally {
      this.close()
    }
  }

  // The fixed-size reads below share one shape: check, read at `at`, advance, record. They are written out
  // rather than passed a reader callback because they run for every field of every message.

  /** Checks `size` bytes are present and returns where they start, advancing past them. */
  private take(def: FieldDef | null, size: number): number {
    if (size > this.end - this.pos) this.need(size, def?.name ?? 'value')
    const at = this.pos
    this.pos = at + size
    return at
  }

  private done<T extends FieldScalar>(def: FieldDef | null, v: T, at: number): T {
    if (def) this.record(def, v, at, this.pos - at)
    return v
  }

  u8(def: FieldDef | null): number {
    const at = this.take(def, 1)
    return this.done(def, this.bytes[at], at)
  }
  i8(def: FieldDef | null): number {
    const at = this.take(def, 1)
    return this.done(def, (this.bytes[at] << 24) >> 24, at)
  }
  u16(def: FieldDef | null, le = false): number {
    const at = this.take(def, 2)
    const b = this.bytes
    return this.done(def, le ? b[at] | (b[at + 1] << 8) : (b[at] << 8) | b[at + 1], at)
  }
  i16(def: FieldDef | null, le = false): number {
    const at = this.take(def, 2)
    const b = this.bytes
    return this.done(def, ((le ? b[at] | (b[at + 1] << 8) : (b[at] << 8) | b[at + 1]) << 16) >> 16, at)
  }
  u24(def: FieldDef | null, le = false): number {
    const at = this.take(def, 3)
    const b = this.bytes
    return this.done(def, le ? b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) : (b[at] << 16) | (b[at + 1] << 8) | b[at + 2], at)
  }
  u32(def: FieldDef | null, le = false): number {
    const at = this.take(def, 4)
    return this.done(def, this.word(at, le) >>> 0, at)
  }
  i32(def: FieldDef | null, le = false): number {
    const at = this.take(def, 4)
    return this.done(def, this.word(at, le), at)
  }
  /** The signed 32-bit word at `at`. */
  private word(at: number, le: boolean): number {
    const b = this.bytes
    return le ? b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24) : (b[at] << 24) | (b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3]
  }
  u64(def: FieldDef | null, le = false): bigint {
    const at = this.take(def, 8)
    return this.done(def, scratchOf(this.bytes, at, 8).getBigUint64(0, le), at)
  }
  i64(def: FieldDef | null, le = false): bigint {
    const at = this.take(def, 8)
    return this.done(def, scratchOf(this.bytes, at, 8).getBigInt64(0, le), at)
  }
  f32(def: FieldDef | null, le = false): number {
    const at = this.take(def, 4)
    return this.done(def, scratchOf(this.bytes, at, 4).getFloat32(0, le), at)
  }
  f64(def: FieldDef | null, le = false): number {
    const at = this.take(def, 8)
    return this.done(def, scratchOf(this.bytes, at, 8).getFloat64(0, le), at)
  }

  bytesField(def: FieldDef | null, n: number): Uint8Array {
    this.need(n, def?.name ?? 'bytes')
    const at = this.take(def, n)
    return this.done(def, this.bytes.subarray(at, at + n), at)
  }

  /** UTF-8 text of `n` bytes (malformed sequences become U+FFFD rather than failing). */
  utf8(def: FieldDef | null, n: number): string {
    this.need(n, def?.name ?? 'string')
    const at = this.take(def, n)
    return this.done(def, decodeUtf8(this.bytes, at, at + n), at)
  }

  /** Unsigned LEB128 varint of at most `maxBytes` bytes (5 for 32-bit, 10 for 64-bit). */
  varint(def: FieldDef | null, maxBytes = 5): number {
    const at = this.pos
    let result = 0
    let shift = 0
    for (let i = 0; ; i++) {
      if (i >= maxBytes) throw new DecodeError(`${def?.name ?? 'varint'}: longer than ${maxBytes} bytes`, at)
      this.need(1, def?.name ?? 'varint')
      const b = this.bytes[this.pos++]
      result += (b & 0x7f) * 2 ** shift
      shift += 7
      if ((b & 0x80) === 0) break
    }
    if (def) this.record(def, result, at, this.pos - at)
    return result
  }

  skip(n: number, what: string): void {
    this.need(n, what)
    this.pos += n
  }

  peekU8(at = this.pos): number {
    if (at >= this.end) throw new DecodeError('peek past end', at)
    return this.bytes[at]
  }
}
