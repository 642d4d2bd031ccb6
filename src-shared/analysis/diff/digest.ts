// A message's compared leaves (valueLeaves, less the skipped paths) as one 64-bit digest, so that a side of
// the diff keeps 8 bytes per message instead of its decoded value (about 3 KB a message: a capture of
// 400,000 frames against itself held 3.7 GB). Aligned messages with equal digests have no differences;
// only the others' values are decoded again, to name their fields.
//
// The digest is the sum, lane by lane, of a hash of each leaf (its path, type and value), so it does not
// depend on the order of the leaves, as the comparison of leaves does not. Two lanes of 32 bits with
// different hash functions: two different sets of leaves have equal digests with a chance of about one in
// 2^64. The hashes are not cryptographic: values made to collide could hide a difference.

import { valueLeaves } from './fields'

/** Both lanes of the digest, written at out[at] and out[at + 1]. */
export function leafDigest(value: unknown, skip: (path: string) => boolean, out: Uint32Array, at: number): void {
  let sum1 = 0
  let sum2 = 0
  const h = lanes
  for (const [path, leaf] of valueLeaves(value)) {
    if (skip(path)) continue
    h.reset()
    h.text(path)
    h.text(leaf.type ?? '')
    const v = leaf.value
    // A tag per kind: the number 1, the string "1" and true are three values.
    if (typeof v === 'string') h.tagged(1, v)
    else if (typeof v === 'number') h.tagged(2, String(v))
    else if (typeof v === 'boolean') h.tagged(3, v ? '1' : '0')
    else h.tagged(4, '')
    sum1 = (sum1 + fmix(h.h1)) >>> 0
    sum2 = (sum2 + fmix(h.h2 ^ 0x9e3779b9)) >>> 0
  }
  out[at] = sum1
  out[at + 1] = sum2
}

/** FNV-1a in one lane, a multiply-xorshift hash (MurmurHash2's multiplier) in the other, fed the same code units. */
class LaneHash {
  h1 = 0
  h2 = 0

  reset(): void {
    this.h1 = 0x811c9dc5
    this.h2 = 0x2545f491
  }

  text(s: string): void {
    let h1 = this.h1
    let h2 = this.h2
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i)
      h1 = Math.imul(h1 ^ c, 0x01000193)
      h2 = Math.imul(h2 ^ c, 0x5bd1e995)
      h2 ^= h2 >>> 15
    }
    // The length ends each part, so ("ab", "") and ("a", "b") differ.
    this.h1 = Math.imul(h1 ^ (s.length | 0x10000), 0x01000193)
    this.h2 = Math.imul(h2 ^ (s.length | 0x10000), 0x5bd1e995)
  }

  tagged(tag: number, s: string): void {
    this.h1 = Math.imul(this.h1 ^ tag, 0x01000193)
    this.h2 = Math.imul(this.h2 ^ tag, 0x5bd1e995)
    this.text(s)
  }
}

const lanes = new LaneHash()

/** MurmurHash3's finalizer: every input bit reaches every output bit before the lanes are summed. */
function fmix(h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}
