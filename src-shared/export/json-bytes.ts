// JSON written straight to UTF-8 bytes. Export text used to be built by string concatenation and then
// encoded; for a big capture that was a third of the decode time. Here every piece (punctuation, keys,
// escaped strings, numbers, hex of byte arrays) goes directly into one growable buffer, which is handed
// to a sink in chunks. The output is byte for byte what JSON.stringify would give, UTF-8 encoded.

import { concatBytes } from '../bytes/concat'

/** Receives the written bytes. Owns `chunk` unless the writer was made with `reuse` (then it must copy or consume it before returning). */
export type ByteSink = (chunk: Uint8Array) => void

export interface JsonBytesOptions {
  /** Bytes per chunk handed to the sink (default 64 KiB). */
  chunkSize?: number
  /** The sink is done with each chunk when it returns (a synchronous file write, a copy): the buffer is reused. */
  reuse?: boolean
}

// Strings and byte arrays go in pieces of this many units, so one reservation never needs more than
// 6 * SEGMENT bytes, however long the value.
const SEGMENT = 4096

const HEX_HI = new Uint8Array(256)
const HEX_LO = new Uint8Array(256)
const HEX_DIGITS = '0123456789abcdef'
for (let i = 0; i < 256; i++) {
  HEX_HI[i] = HEX_DIGITS.charCodeAt(i >> 4)
  HEX_LO[i] = HEX_DIGITS.charCodeAt(i & 15)
}

// How each ASCII code is written inside a JSON string: 0 = as itself, else the escape's second
// character ('u' for \u00XX), as JSON.stringify does.
const ESCAPE = new Uint8Array(128)
for (let c = 0; c < 0x20; c++) ESCAPE[c] = 0x75 // u
ESCAPE[0x08] = 0x62 // \b
ESCAPE[0x09] = 0x74 // \t
ESCAPE[0x0a] = 0x6e // \n
ESCAPE[0x0c] = 0x66 // \f
ESCAPE[0x0d] = 0x72 // \r
ESCAPE[0x22] = 0x22 // \"
ESCAPE[0x5c] = 0x5c // \\

const encoder = new TextEncoder()

/** UTF-8 bytes of an ASCII literal or of text known to need no JSON escaping. */
export function utf8(s: string): Uint8Array {
  return encoder.encode(s)
}

const EMPTY = new Uint8Array(0)
const NULL = utf8('null')
const TRUE = utf8('true')
const FALSE = utf8('false')

/**
 * Encoded JSON built around strings that repeat (object keys, field keys, type names, source names):
 * `make` gets the string quoted and returns the snippet, which is encoded once and kept (up to a bound,
 * short strings only, so keys from traffic cannot grow it without limit).
 */
export class Snippets {
  private readonly made = new Map<string, Uint8Array>()

  constructor(private readonly make: (quoted: string) => string) {}

  get(s: string): Uint8Array {
    let b = this.made.get(s)
    if (b === undefined) {
      b = encoder.encode(this.make(JSON.stringify(s)))
      if (s.length <= 64 && this.made.size < 50_000) this.made.set(s, b)
    }
    return b
  }
}

const QUOTED = new Snippets((q) => q)

export class JsonBytes {
  private buf: Uint8Array
  private pos = 0
  private readonly chunkSize: number
  private readonly reuse: boolean

  constructor(
    private readonly sink: ByteSink,
    opts: JsonBytesOptions = {}
  ) {
    this.chunkSize = Math.max(64, opts.chunkSize ?? 1 << 16)
    this.reuse = opts.reuse ?? false
    this.buf = EMPTY
  }

  /** Bytes written and not yet handed to the sink. */
  get buffered(): number {
    return this.pos
  }

  /** Hands what has been written to the sink (when at least `min` bytes are waiting). */
  flush(min = 1): void {
    if (this.pos === 0 || this.pos < min) return
    const chunk = this.buf.subarray(0, this.pos)
    this.pos = 0
    if (!this.reuse) this.buf = EMPTY // the sink owns those bytes now; the next write allocates
    this.sink(chunk)
  }

  /** Makes room for `n` more bytes: hands a full buffer over, and allocates (bigger for a piece larger than a chunk). */
  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return
    this.flush()
    if (n > this.buf.length) this.buf = new Uint8Array(Math.max(n, this.chunkSize))
  }

  /** Bytes as they are (pre-encoded punctuation, keys, literals). */
  raw(b: Uint8Array): void {
    const n = b.length
    this.room(n)
    const buf = this.buf
    let p = this.pos
    // A copy loop beats TypedArray.set for the few bytes most pieces have.
    if (n <= 32) for (let i = 0; i < n; i++) buf[p++] = b[i]
    else {
      buf.set(b, p)
      p += n
    }
    this.pos = p
  }

  byte(c: number): void {
    this.room(1)
    this.buf[this.pos++] = c
  }

  /** Text that is already JSON (JSON.stringify output, ASCII or not), UTF-8 encoded. */
  json(text: string): void {
    this.room(text.length * 3)
    this.pos += encoder.encodeInto(text, this.buf.subarray(this.pos)).written
  }

  null(): void {
    this.raw(NULL)
  }

  bool(v: boolean): void {
    this.raw(v ? TRUE : FALSE)
  }

  /** A number as JSON.stringify writes it: non-finite ones become null. */
  number(v: number): void {
    if (v >= 0 && v <= 0x7fffffff && (v | 0) === v) {
      this.room(10)
      this.pos = writeUint(this.buf, this.pos, v)
    } else if (!Number.isFinite(v)) this.raw(NULL)
    else {
      this.room(DECIMAL_MAX)
      const end = writeDecimal(this.buf, this.pos, v)
      if (end >= 0) this.pos = end
      else this.ascii(String(v))
    }
  }

  /** `prefix` (a member key) and a number, in one step: the shape of most numbers in the export. */
  field(prefix: Uint8Array, v: number): void {
    if (!(v >= 0 && v <= 0x7fffffff && (v | 0) === v)) {
      this.raw(prefix)
      return this.number(v)
    }
    const n = prefix.length
    this.room(n + 10)
    const buf = this.buf
    let p = this.pos
    for (let i = 0; i < n; i++) buf[p++] = prefix[i]
    this.pos = writeUint(buf, p, v)
  }

  /** ASCII text without anything to escape (number and bigint digits). */
  private ascii(s: string): void {
    const n = s.length
    this.room(n)
    const buf = this.buf
    let p = this.pos
    for (let i = 0; i < n; i++) buf[p++] = s.charCodeAt(i)
    this.pos = p
  }

  /** A JSON string, escaped exactly as JSON.stringify does (lone surrogates as \udXXX, U+2028/2029 as they are). */
  string(s: string): void {
    const n = s.length
    const first = Math.min(n, SEGMENT)
    this.room(6 * first + 2)
    this.buf[this.pos++] = 0x22
    let i = this.stringPart(s, 0, first)
    while (i < n) {
      const end = Math.min(n, i + SEGMENT)
      this.room(6 * (end - i) + 1)
      i = this.stringPart(s, i, end)
    }
    this.buf[this.pos++] = 0x22
  }

  // Writes s[from, to) (and the low half of a surrogate pair that straddles `to`); room is reserved.
  private stringPart(s: string, from: number, to: number): number {
    const buf = this.buf
    let p = this.pos
    let i = from
    for (; i < to; i++) {
      const c = s.charCodeAt(i)
      if (c < 0x80) {
        const e = ESCAPE[c]
        if (e === 0) buf[p++] = c
        else {
          buf[p++] = 0x5c
          buf[p++] = e
          if (e === 0x75) p = hex4(buf, p, c)
        }
      } else if (c < 0x800) {
        buf[p++] = 0xc0 | (c >> 6)
        buf[p++] = 0x80 | (c & 0x3f)
      } else if (c < 0xd800 || c >= 0xe000) {
        buf[p++] = 0xe0 | (c >> 12)
        buf[p++] = 0x80 | ((c >> 6) & 0x3f)
        buf[p++] = 0x80 | (c & 0x3f)
      } else {
        const d = c < 0xdc00 && i + 1 < s.length ? s.charCodeAt(i + 1) : 0
        if (d >= 0xdc00 && d < 0xe000) {
          const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00)
          buf[p++] = 0xf0 | (cp >> 18)
          buf[p++] = 0x80 | ((cp >> 12) & 0x3f)
          buf[p++] = 0x80 | ((cp >> 6) & 0x3f)
          buf[p++] = 0x80 | (cp & 0x3f)
          i++
        } else {
          // A lone surrogate is not valid UTF-8: escaped, as JSON.stringify does.
          buf[p++] = 0x5c
          buf[p++] = 0x75
          p = hex4(buf, p, c)
        }
      }
    }
    this.pos = p
    return i
  }

  /** A string that repeats (field keys, type names, source names), quoted and encoded once. */
  name(s: string): void {
    this.raw(QUOTED.get(s))
  }

  /** Bytes as a quoted lowercase hex string. */
  hex(b: Uint8Array): void {
    const n = b.length
    this.room(2 * Math.min(n, SEGMENT) + 2)
    this.buf[this.pos++] = 0x22
    for (let i = 0; i < n; ) {
      const end = Math.min(n, i + SEGMENT)
      if (i > 0) this.room(2 * (end - i) + 1)
      const buf = this.buf
      let p = this.pos
      for (; i < end; i++) {
        const x = b[i]
        buf[p++] = HEX_HI[x]
        buf[p++] = HEX_LO[x]
      }
      this.pos = p
    }
    this.buf[this.pos++] = 0x22
  }

  /** A bigint or a non-finite number as a quoted string ("9223372036854775807", "NaN"): the export's form of values JSON has no number for. */
  quotedText(v: bigint | number): void {
    const s = String(v)
    this.room(s.length + 2)
    this.buf[this.pos++] = 0x22
    this.ascii(s)
    this.buf[this.pos++] = 0x22
  }
}

// A non-negative 31-bit integer (ids, frame numbers, offsets), digit by digit; room is reserved.
function writeUint(buf: Uint8Array, p: number, v: number): number {
  if (v < 10) {
    buf[p] = 48 + v
    return p + 1
  }
  let digits = 1
  for (let x = v; x >= 10; x = (x / 10) | 0) digits++
  const end = p + digits
  p = end
  while (v >= 10) {
    const q = (v / 10) | 0
    buf[--p] = 48 + v - q * 10
    v = q
  }
  buf[--p] = 48 + v
  return end
}

// Powers of ten up to the most fractional digits writeDecimal tries (all exact doubles).
const POW10 = [1, 10, 100, 1000, 10000, 100000, 1000000]
/** Bytes writeDecimal may write: a sign, ten integer digits, a point and six fractional digits. */
const DECIMAL_MAX = 18

/**
 * `v` as Number.prototype.toString writes it (the shortest decimal that reads back as `v`) when that
 * decimal has at most six fractional digits and |v| < 2^32: timestamps, scaled shorts, negative integers,
 * most of an export's numbers. Returns the end, or -1 for others (the caller falls back to String(v),
 * which costs a string per number).
 *
 * Why it is exact: for d = 0..6 it takes m = round(|v|·10^d) and keeps it when m / 10^d === |v|: IEEE
 * division rounds exactly as parsing the decimal m·10^-d does (m and 10^d are exact), so the decimal reads
 * back as v. Below 2^32 doubles are at most 2^-21 apart, so the decimal that reads back as v with d digits
 * (if any) lies within 10^6·2^-22 < 0.24 of |v|·10^d, the product is rounded by at most 0.25, and m is
 * that decimal; no second one fits between v's neighbours. The first d that has one gives the fewest
 * digits, which is what toString picks; it has no trailing zero, or d - 1 would have had one. m / 10^d
 * is at least 10^-6 from the next integer, far more than its rounding, so its floor is the whole part.
 */
function writeDecimal(buf: Uint8Array, p: number, v: number): number {
  const a = v < 0 ? -v : v
  if (!(a < 4294967296)) return -1
  // One test for every d: a decimal with d digits also reads back with six (m·10^(6-d) / 10^6 is the same
  // quotient, rounded the same way), so a value six digits cannot write (most float32 values) is rejected at once.
  if (Math.round(a * 1000000) / 1000000 !== a) return -1
  for (let d = 0; d <= 6; d++) {
    const scale = POW10[d]
    const m = Math.round(a * scale)
    if (m / scale !== a) continue
    if (v < 0) buf[p++] = 0x2d // -
    const whole = Math.floor(m / scale)
    p = writeWhole(buf, p, whole)
    if (d > 0) {
      buf[p++] = 0x2e // .
      let frac = m - whole * scale
      for (let k = d - 1; k >= 0; k--) {
        const q = Math.floor(frac / 10)
        buf[p + k] = 48 + frac - q * 10
        frac = q
      }
      p += d
    }
    return p
  }
  return -1
}

// A non-negative integer below 2^32 (writeUint's bitwise division stops at 2^31).
function writeWhole(buf: Uint8Array, p: number, v: number): number {
  if (v <= 0x7fffffff) return writeUint(buf, p, v)
  const high = Math.floor(v / 10)
  p = writeUint(buf, p, high)
  buf[p] = 48 + v - high * 10
  return p + 1
}

function hex4(buf: Uint8Array, p: number, c: number): number {
  buf[p++] = HEX_DIGITS.charCodeAt(c >> 12)
  buf[p++] = HEX_DIGITS.charCodeAt((c >> 8) & 15)
  buf[p++] = HEX_DIGITS.charCodeAt((c >> 4) & 15)
  buf[p++] = HEX_DIGITS.charCodeAt(c & 15)
  return p
}

const decoder = new TextDecoder('utf-8', { ignoreBOM: true })

/** Runs `write` against a writer whose output is collected and returned as one string (for in-memory use: tests, the detail view). */
export function jsonString(write: (w: JsonBytes) => void): string {
  const parts: Uint8Array[] = []
  const w = new JsonBytes((c) => parts.push(c), { chunkSize: 4096 })
  write(w)
  w.flush()
  return decoder.decode(concatBytes(parts))
}
