// Value semantics of the filter language: how a field value (FieldScalar) compares with a literal or
// with another field's value. Comparisons are strict about types (a number never equals a string),
// with three deliberate bridges: 64-bit bigint vs number compared exactly, booleans vs 0/1, and
// address literals vs IP strings (parsed, so `::1` equals `0:0::1`, and CIDR tests the prefix).

import type { FieldScalar } from '../model/types'
import { parseIP, prefixEqual } from './ip'
import { bytesEqual } from '../bytes/equal'

/** A literal with every interpretation its text allows; the field value's runtime type picks one. */
export interface Literal {
  text: string
  start: number
  end: number
  /** Numeric value (the nearest double for huge integers). */
  num?: number
  /** Exact value of an integer literal. */
  int?: bigint
  /** True when `num` represents the literal exactly (always for floats, for integers up to 2^53). */
  numExact?: boolean
  str?: string
  /** UTF-8 (with raw \xHH bytes) of `str`, used against byte-array values. */
  strBytes?: Uint8Array
  bytes?: Uint8Array
  /** IPv4 (4 bytes) or IPv6 (16 bytes) address; `prefix` set for CIDR. */
  ip?: Uint8Array
  prefix?: number
  bool?: boolean
}

// ---- numbers ----

/** Exact comparison of a bigint with a double: -1, 0, 1, or NaN when b is NaN. */
function cmpBigNum(a: bigint, b: number): number {
  if (Number.isNaN(b)) return NaN
  if (b === Infinity) return -1
  if (b === -Infinity) return 1
  const fb = Math.floor(b)
  const bi = BigInt(fb)
  if (a < bi) return -1
  if (a > bi) return 1
  return fb === b ? 0 : -1 // a == floor(b) < b
}

function sign(x: number): number {
  return x < 0 ? -1 : x > 0 ? 1 : x === 0 ? 0 : NaN
}

/** Compares two numeric scalars exactly (number vs bigint included). NaN when unordered. */
export function cmpNumeric(a: number | bigint, b: number | bigint): number {
  if (typeof a === 'number') {
    if (typeof b === 'number') return a < b ? -1 : a > b ? 1 : a === b ? 0 : NaN
    return Number.isNaN(a) ? NaN : -cmpBigNum(b, a)
  }
  if (typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0
  return cmpBigNum(a, b)
}

function cmpNumLit(v: number | bigint, lit: Literal): number {
  if (typeof v === 'number') {
    if (lit.num !== undefined && lit.numExact) {
      const n = lit.num // both doubles
      return v < n ? -1 : v > n ? 1 : v === n ? 0 : NaN
    }
    if (lit.int !== undefined) return cmpNumeric(v, lit.int)
    return NaN
  }
  if (lit.int !== undefined) return v < lit.int ? -1 : v > lit.int ? 1 : 0
  if (lit.num !== undefined) return cmpBigNum(v, lit.num)
  return NaN
}

// ---- bytes ----

export function bytesCompare(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0
}

/** True when `needle` occurs as a contiguous sub-sequence of `hay` (the empty needle always does). */
export function bytesContains(hay: Uint8Array, needle: Uint8Array): boolean {
  const n = needle.length
  if (n === 0) return true
  const first = needle[0]
  const last = hay.length - n
  outer: for (let i = 0; i <= last; i++) {
    if (hay[i] !== first) continue
    for (let j = 1; j < n; j++) if (hay[i + j] !== needle[j]) continue outer
    return true
  }
  return false
}

const enc = new TextEncoder()
export function utf8(s: string): Uint8Array {
  return enc.encode(s)
}

/** Bytes as a Latin-1 string (one char per byte), so a RegExp can run over binary data. */
export function latin1(b: Uint8Array): string {
  let s = ''
  for (let i = 0; i < b.length; i += 8192) s += String.fromCharCode(...b.subarray(i, i + 8192))
  return s
}

// ---- IP strings ----

const ipCache = new Map<string, Uint8Array | null>()
/** Parses an IP string value, caching results (IP fields repeat across messages). */
export function ipOf(s: string): Uint8Array | null {
  let r = ipCache.get(s)
  if (r === undefined) {
    r = s.length <= 47 ? parseIP(s) : null
    if (ipCache.size > 8192) ipCache.clear()
    ipCache.set(s, r)
  }
  return r
}

// ---- value vs literal ----

export function eqLit(v: FieldScalar, lit: Literal): boolean {
  switch (typeof v) {
    case 'number':
    case 'bigint':
      return (lit.num !== undefined || lit.int !== undefined) && cmpNumLit(v, lit) === 0
    case 'string':
      if (lit.str !== undefined) return v === lit.str
      if (lit.ip !== undefined) {
        const a = ipOf(v)
        if (!a || a.length !== lit.ip.length) return false
        return lit.prefix !== undefined ? prefixEqual(a, lit.ip, lit.prefix) : bytesEqual(a, lit.ip)
      }
      return false
    case 'boolean':
      if (lit.bool !== undefined) return v === lit.bool
      if (lit.num !== undefined) return (v ? 1 : 0) === lit.num
      return false
    default:
      if (v instanceof Uint8Array) {
        if (lit.bytes !== undefined) return bytesEqual(v, lit.bytes)
        if (lit.strBytes !== undefined) return bytesEqual(v, lit.strBytes)
      }
      return false
  }
}

/** Orders a value against a literal: -1/0/1, or NaN when the types do not compare. */
export function cmpLit(v: FieldScalar, lit: Literal): number {
  switch (typeof v) {
    case 'number':
    case 'bigint':
      return lit.num !== undefined || lit.int !== undefined ? cmpNumLit(v, lit) : NaN
    case 'string':
      if (lit.str !== undefined) return v < lit.str ? -1 : v > lit.str ? 1 : 0
      if (lit.ip !== undefined) {
        const a = ipOf(v)
        return a && a.length === lit.ip.length ? bytesCompare(a, lit.ip) : NaN
      }
      return NaN
    case 'boolean':
      if (lit.bool !== undefined) return (v ? 1 : 0) - (lit.bool ? 1 : 0)
      if (lit.num !== undefined) return sign((v ? 1 : 0) - lit.num)
      return NaN
    default:
      if (v instanceof Uint8Array) {
        if (lit.bytes !== undefined) return bytesCompare(v, lit.bytes)
        if (lit.strBytes !== undefined) return bytesCompare(v, lit.strBytes)
      }
      return NaN
  }
}

export function containsLit(v: FieldScalar, lit: Literal): boolean {
  if (typeof v === 'string') {
    if (lit.str !== undefined) return v.includes(lit.str)
    if (lit.bytes !== undefined) return bytesContains(utf8(v), lit.bytes)
    return false
  }
  if (v instanceof Uint8Array) {
    if (lit.bytes !== undefined) return bytesContains(v, lit.bytes)
    if (lit.strBytes !== undefined) return bytesContains(v, lit.strBytes)
  }
  return false
}

// ---- value vs value (field compared with field) ----

export function cmpScalar(a: FieldScalar, b: FieldScalar): number {
  if ((typeof a === 'number' || typeof a === 'bigint') && (typeof b === 'number' || typeof b === 'bigint')) return cmpNumeric(a, b)
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0
  if (typeof a === 'boolean' && typeof b === 'boolean') return (a ? 1 : 0) - (b ? 1 : 0)
  if (a instanceof Uint8Array && b instanceof Uint8Array) return bytesCompare(a, b)
  return NaN
}

export function eqScalar(a: FieldScalar, b: FieldScalar): boolean {
  return cmpScalar(a, b) === 0
}

export function containsScalar(a: FieldScalar, b: FieldScalar): boolean {
  if (typeof a === 'string') {
    if (typeof b === 'string') return a.includes(b)
    if (b instanceof Uint8Array) return bytesContains(utf8(a), b)
    return false
  }
  if (a instanceof Uint8Array) {
    if (b instanceof Uint8Array) return bytesContains(a, b)
    if (typeof b === 'string') return bytesContains(a, utf8(b))
  }
  return false
}
