// A message's compared leaves (valueLeaves, less the skipped paths) as one 64-bit digest, so that a side of
// the diff keeps 8 bytes per message instead of its decoded value (about 3 KB a message: a capture of
// 400,000 frames against itself held 3.7 GB). Aligned messages with equal digests have no differences;
// only the others' values are decoded again, to name their fields.
//
// The digest is the sum, lane by lane, of a hash of each leaf (its path, type and value), so it does not
// depend on the order of the leaves, as the comparison of leaves does not. Two lanes of 32 bits with
// different hash functions: two different sets of leaves have equal digests with a chance of about one in
// 2^64. The hashes are not cryptographic: values made to collide could hide a difference.
//
// leavesDigest is the definition, over valueLeaves' map. leafDigest gives the same digest without making
// the map or any path string (half of a diff's time went there): it walks the value as valueLeaves does,
// hashing each path as it grows and testing the skip patterns on the segment just added, so a skipped
// field is left at once with everything under it. A path that comes twice counts once in the map (its
// last leaf); the walk cannot tell that cheaply as it goes, so it keeps the hash of each path it counted
// and, if two are equal, gives the message to leavesDigest.

import { type FieldPatterns, isEntryList, isLeaf, isWrapper, keySegment, type Scalar, scalar, valueLeaves, wrapped } from './fields'

/** Both lanes of the digest, written at out[at] and out[at + 1]. */
export function leafDigest(value: unknown, patterns: FieldPatterns, out: Uint32Array, at: number): void {
  sum1 = 0
  sum2 = 0
  counted = 0
  depthOfPath = 0
  skipped = patterns
  visit(value, undefined, 0, SEED1, SEED2, 0)
  if (pathRepeats()) return leavesDigest(value, (path) => patterns.test(path), out, at)
  out[at] = sum1
  out[at + 1] = sum2
}

/** The digest of valueLeaves(value) less the paths `skip` takes. */
export function leavesDigest(value: unknown, skip: (path: string) => boolean, out: Uint32Array, at: number): void {
  let s1 = 0
  let s2 = 0
  for (const [path, leaf] of valueLeaves(value)) {
    if (skip(path)) continue
    h1 = SEED1
    h2 = SEED2
    text(path)
    text(leaf.type ?? '')
    scalarPart(leaf.value)
    s1 = (s1 + fmix(h1)) >>> 0
    s2 = (s2 + fmix(h2 ^ 0x9e3779b9)) >>> 0
  }
  out[at] = s1
  out[at + 1] = s2
}

// The two lanes: FNV-1a, and a multiply-xorshift hash (MurmurHash2's multiplier), fed the same code units.
// Module state, so that a walk can pass a path's lanes down as plain numbers.
const SEED1 = 0x811c9dc5
const SEED2 = 0x2545f491
const FNV_PRIME = 0x01000193
const MURMUR_M = 0x5bd1e995
let h1 = 0
let h2 = 0
const numberBits = new Float64Array(1)
const numberWords = new Uint32Array(numberBits.buffer)

function feedCode(c: number): void {
  h1 = Math.imul(h1 ^ c, FNV_PRIME)
  h2 = Math.imul(h2 ^ c, MURMUR_M)
  h2 ^= h2 >>> 15
}

function feed(s: string): void {
  for (let i = 0; i < s.length; i++) feedCode(s.charCodeAt(i))
}

/** The length ends each part, so ("ab", "") and ("a", "b") differ. */
function endPart(length: number): void {
  h1 = Math.imul(h1 ^ (length | 0x10000), FNV_PRIME)
  h2 = Math.imul(h2 ^ (length | 0x10000), MURMUR_M)
}

function text(s: string): void {
  feed(s)
  endPart(s.length)
}

function tag(t: number): void {
  h1 = Math.imul(h1 ^ t, FNV_PRIME)
  h2 = Math.imul(h2 ^ t, MURMUR_M)
}

/** A tag per kind: the number 1, the string "1" and true are three values. */
function scalarPart(v: Scalar): void {
  if (typeof v === 'string') {
    tag(1)
    text(v)
  } else if (typeof v === 'number') {
    // Its 64 bits rather than its text (formatting a float costs more than the rest of a leaf). A leaf's
    // number is finite (valueLeaves makes NaN and the infinities text); + 0 makes -0 the 0 it equals.
    tag(2)
    numberBits[0] = v + 0
    feedCode(numberWords[0])
    feedCode(numberWords[1])
    endPart(8)
  } else if (typeof v === 'boolean') {
    tag(3)
    text(v ? '1' : '0')
  } else {
    tag(4)
    text('')
  }
}

/** MurmurHash3's finalizer: every input bit reaches every output bit before the lanes are summed. */
function fmix(h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

// The walk's state: the sums, the first lane of each counted leaf's path hash, the path's segments.
let sum1 = 0
let sum2 = 0
let pathHashes = new Uint32Array(256)
let counted = 0
/** The path's segments: segments[0..depthOfPath), a stack reused by every walk. */
const segments: string[] = []
let depthOfPath = 0
let skipped: FieldPatterns
const HEX_CODES = Array.from({ length: 16 }, (_, i) => i.toString(16).charCodeAt(0))

/** valueLeaves' walk (fields.ts), with the path as its two lanes (p1, p2) and its length in code units. */
function visit(x: unknown, type: string | undefined, depth: number, p1: number, p2: number, length: number): void {
  if (isLeaf(x, depth)) {
    if (x !== undefined) leaf(x, type, p1, p2, length)
    return
  }
  const v = x as object
  if (isWrapper(v)) return visit(wrapped(v), v.type, depth + 1, p1, p2, length)
  if (v instanceof Map) {
    if (v.size === 0) leaf('{}', type, p1, p2, length)
    for (const [k, e] of v) child(String(k), e, depth + 1, p1, p2, length)
    return
  }
  if (Array.isArray(v)) {
    if (v.length === 0) leaf('[]', type, p1, p2, length)
    if (isEntryList(v)) for (let i = 0; i < v.length; i++) child(keySegment(v[i].key, i), v[i].value, depth + 1, p1, p2, length)
    else for (let i = 0; i < v.length; i++) child(String(i), v[i], depth + 1, p1, p2, length)
    return
  }
  const keys = Object.keys(v)
  if (keys.length === 0) leaf('{}', type, p1, p2, length)
  for (const k of keys) child(k, (v as Record<string, unknown>)[k], depth + 1, p1, p2, length)
}

/** Into `x` under the segment `seg`: valueLeaves' `path ? path.seg : seg`, unless a pattern covers it. */
function child(seg: string, x: unknown, depth: number, p1: number, p2: number, length: number): void {
  h1 = p1
  h2 = p2
  if (length > 0) feedCode(46) // '.'
  feed(seg)
  const q1 = h1
  const q2 = h2
  const extended = length > 0 ? length + 1 + seg.length : seg.length
  const before = depthOfPath
  // An empty key at the root leaves the path empty: no segment to add.
  if (extended === 0 || !covered(seg)) visit(x, undefined, depth, q1, q2, extended)
  depthOfPath = before
}

/** Adds the path's segments from `seg` (a key may hold dots) and tells whether a pattern now matches. */
function covered(seg: string): boolean {
  if (!seg.includes('.')) {
    segments[depthOfPath++] = seg
    return skipped.endsAt(segments, depthOfPath - 1)
  }
  for (const part of seg.split('.')) {
    segments[depthOfPath++] = part
    if (skipped.endsAt(segments, depthOfPath - 1)) return true
  }
  return false
}

function leaf(x: unknown, type: string | undefined, p1: number, p2: number, length: number): void {
  if (length === 0 && skipped.test('')) return
  h1 = p1
  h2 = p2
  endPart(length)
  if (counted === pathHashes.length) {
    const more = new Uint32Array(counted * 2)
    more.set(pathHashes)
    pathHashes = more
  }
  pathHashes[counted++] = h1
  text(type ?? '')
  if (x instanceof Uint8Array) {
    // valueLeaves' hex text of the bytes (toHex), fed without making it.
    tag(1)
    for (let i = 0; i < x.length; i++) {
      feedCode(HEX_CODES[x[i] >> 4])
      feedCode(HEX_CODES[x[i] & 15])
    }
    endPart(2 * x.length)
  } else scalarPart(scalar(x) ?? null)
  sum1 = (sum1 + fmix(h1)) >>> 0
  sum2 = (sum2 + fmix(h2 ^ 0x9e3779b9)) >>> 0
}

/** Whether two counted leaves may share a path (equal first lanes): then the map's rule decides. */
function pathRepeats(): boolean {
  if (counted < 2) return false
  const list = pathHashes.subarray(0, counted).sort()
  for (let i = 1; i < counted; i++) if (list[i] === list[i - 1]) return true
  return false
}
